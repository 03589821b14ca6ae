import { isInlinePdf } from '../../canonical/data-uri.ts';
import type { CanonicalRequest, FilePart, TextPart } from '../../canonical/request.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { PdfConfig } from '../../config/parse-pdf.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ProviderAdapter } from '../../providers/types.ts';
import { fullBudget, pdfTextExtractor, type PdfBudget, type PdfTextExtractor } from './pdf-text-extractor.ts';

/**
 * PDFs for every model (docs/pdf.md): knows which endpoints read PDFs natively (their
 * adapter says so), and replaces a request's inline PDFs by their text, each as a text part
 * naming the file, within the bounds of `pdf:`. Runs at admission, before the token
 * estimate: the hold and the charge count the text as text.
 */
export class FileParser {
  private readonly bounds: PdfConfig;
  private readonly adapters: ReadonlyMap<string, ProviderAdapter>;
  private readonly extractor: PdfTextExtractor;

  constructor(bounds: PdfConfig, adapters: ReadonlyMap<string, ProviderAdapter>, extractor: PdfTextExtractor = pdfTextExtractor) {
    this.bounds = bounds;
    this.adapters = adapters;
    this.extractor = extractor;
  }

  /** Whether `endpoint`'s provider reads a PDF sent inline. */
  readsPdf(endpoint: Endpoint): boolean {
    return this.adapters.get(endpoint.provider.kind)?.readsPdf?.(endpoint.provider) === true;
  }

  /** Replaces every inline PDF of the user messages by a text part holding its text; then the request has none. */
  async replacePdfs(req: CanonicalRequest): Promise<void> {
    const budget = fullBudget(this.bounds);
    let seen = 0;
    for (const message of req.messages) {
      if (message.role !== 'user') continue;
      const content = message.content;
      for (let j = 0; j < content.length; j++) {
        const part = content[j]!;
        if (part.type !== 'file' || !isInlinePdf(part)) continue;
        seen++;
        content[j] = await this.textPart(part, seen, budget);
      }
    }
    delete req.inlinePdfs;
  }

  private async textPart(part: FilePart, nth: number, budget: PdfBudget): Promise<TextPart> {
    const name = part.filename === undefined ? `number ${nth} of the request` : JSON.stringify(part.filename);
    const bytes = decodePdfBytes(part.data!, this.bounds.maxBytes, name);
    const { text } = await this.extractor.extract(bytes, this.bounds, name, budget);
    const out: TextPart = { type: 'text', text: fileText(part.filename ?? `document-${nth}.pdf`, text) };
    if (part.cacheControl !== undefined) out.cacheControl = part.cacheControl;
    return out;
  }
}

/** The text part's text: the file's name, then its text (as OpenRouter's file-parser sends a parsed file). */
function fileText(filename: string, text: string): string {
  return `<file name=${JSON.stringify(filename)}>\n${text}\n</file>`;
}

/** The PDF's bytes from base64 or a base64 data: URI, refused (413) past `maxBytes` before it is decoded. */
function decodePdfBytes(data: string, maxBytes: number, name: string): Uint8Array {
  let start = 0;
  if (data.startsWith('data:')) {
    const comma = data.indexOf(',');
    if (comma < 0 || !data.slice(0, comma).endsWith(';base64')) {
      throw new GatewayError('unreadable_file', `The PDF ${name} cannot be read as text: its data: URI is not base64.`);
    }
    start = comma + 1;
  }
  const length = data.length - start;
  const decoded = Math.floor((length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  if (decoded > maxBytes) {
    throw new GatewayError(
      'file_too_large',
      `The PDF ${name} cannot be read as text: it is ${decoded} bytes, more than the ${maxBytes} the gateway reads.`,
    );
  }
  // Characters that are not base64 are skipped; what is left must then read as a PDF.
  return Buffer.from(start === 0 ? data : data.slice(start), 'base64');
}
