import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { serveThread } from '../../runtime/serve-thread.ts';

// The PDF text thread (pdf-text-extractor.ts): reads a PDF with pdf.js (unpdf's
// serverless build: no native code, no eval, no font or network fetches) and returns its
// text, page by page. The page and character bounds are checked here, as it reads; the
// size bound before the bytes are sent, and the time bound by the caller, which ends the
// thread when it passes (pdf.js cannot be interrupted otherwise).

export interface PdfTextRequest {
  bytes: Uint8Array;
  maxPages: number;
  maxChars: number;
}

export type PdfTextReply =
  { ok: true; pages: number; text: string } | { ok: false; reason: 'encrypted' | 'malformed' | 'pages' | 'chars'; detail: string };

interface TextItemLike {
  str?: string;
  hasEOL?: boolean;
}

async function extract(m: PdfTextRequest): Promise<PdfTextReply> {
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    doc = await getDocumentProxy(m.bytes, {
      useSystemFonts: false,
      disableFontFace: true,
      verbosity: 0,
      stopAtErrors: false,
    });
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === 'PasswordException') return { ok: false, reason: 'encrypted', detail: 'it is encrypted with a password' };
    return {
      ok: false,
      reason: 'malformed',
      detail: name === 'InvalidPDFException' ? 'it is not a valid PDF' : `it could not be read (${(err as Error)?.message ?? String(err)})`,
    };
  }
  try {
    const pages = doc.numPages;
    if (pages > m.maxPages)
      return { ok: false, reason: 'pages', detail: `it has ${pages} pages, more than the ${m.maxPages} the gateway reads` };
    const texts: string[] = [];
    let chars = 0;
    for (let p = 1; p <= pages; p++) {
      const page = await doc.getPage(p);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items as TextItemLike[]) {
        if (item.str !== undefined) text += item.str;
        if (item.hasEOL === true) text += '\n';
      }
      page.cleanup();
      text = text.trim();
      chars += text.length;
      if (chars > m.maxChars)
        return { ok: false, reason: 'chars', detail: `its text is longer than the ${m.maxChars} characters left to extract` };
      if (text !== '') texts.push(text);
    }
    return { ok: true, pages, text: texts.join('\n\n') };
  } catch (err) {
    return { ok: false, reason: 'malformed', detail: `it could not be read (${(err as Error)?.message ?? String(err)})` };
  } finally {
    await doc.loadingTask.destroy();
  }
}

// pdf.js loads here, before the thread says it is ready: its time bound is for reading PDFs.
await getResolvedPDFJS();
serveThread<PdfTextRequest, PdfTextReply>(extract);
