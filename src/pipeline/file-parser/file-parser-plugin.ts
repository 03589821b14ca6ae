import type { CanonicalRequest } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

// OpenRouter's `plugins: [{id: "file-parser", pdf: {engine}}]`: how a request wants its PDFs
// read. `pdf-text`: the gateway extracts their text, whatever the endpoints; `native`: the
// PDF goes to the model as a file, never as text (refused where no endpoint reads PDFs).
// Without the plugin (`auto`): native where an endpoint of the plan reads PDFs, else text.
// Other engines (OpenRouter's `mistral-ocr`, `cloudflare-ai`) are refused: the gateway has
// no OCR, and would not forward a service billed per page that it does not price.

export type PdfEngine = 'auto' | 'pdf-text' | 'native';

const ENGINES: ReadonlySet<string> = new Set(['pdf-text', 'native']);

/** The request's PDF engine; 400 `invalid_parameter` for a malformed file-parser plugin or an engine the gateway lacks. */
export function pdfEngineOf(req: CanonicalRequest): PdfEngine {
  const plugins = req.extra.plugins;
  if (!Array.isArray(plugins)) return 'auto';
  let engine: PdfEngine = 'auto';
  for (let i = 0; i < plugins.length; i++) {
    const plugin = plugins[i] as { id?: unknown; pdf?: unknown } | null;
    if (plugin === null || typeof plugin !== 'object' || plugin.id !== 'file-parser') continue;
    const pdf = plugin.pdf;
    if (pdf === undefined || pdf === null) continue;
    const param = `plugins[${i}].pdf`;
    if (typeof pdf !== 'object' || Array.isArray(pdf))
      throw new GatewayError('invalid_parameter', `Invalid '${param}': expected an object {engine}.`, { param });
    const value = (pdf as { engine?: unknown }).engine;
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !ENGINES.has(value)) {
      throw new GatewayError(
        'invalid_parameter',
        `Invalid '${param}.engine': ${JSON.stringify(value)} is not an engine this gateway has; use 'pdf-text' (the gateway extracts the text) or 'native' (the model reads the file).`,
        {
          param: `${param}.engine`,
        },
      );
    }
    engine = value as PdfEngine;
  }
  return engine;
}
