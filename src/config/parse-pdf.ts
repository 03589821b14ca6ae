import { checkKeys, optInt, readMapping } from './read-fields.ts';

/**
 * `pdf:` — the bounds of the gateway's own PDF text extraction (docs/pdf.md), used when no
 * endpoint of a request's plan reads PDFs natively or the request's `file-parser` plugin
 * asks for `pdf-text`. A PDF past a bound is refused with 413 `file_too_large`.
 */
export interface PdfConfig {
  /** The largest PDF read, in decoded bytes. */
  maxBytes: number;
  /** The most pages read from one PDF. */
  maxPages: number;
  /** The most characters of text extracted from a request's PDFs together. */
  maxChars: number;
  /** How long the extraction of a request's PDFs together may take; past it the extraction thread is ended (and restarted). */
  timeoutMs: number;
}

export const PDF_DEFAULTS: PdfConfig = { maxBytes: 20 * 1024 * 1024, maxPages: 500, maxChars: 2_000_000, timeoutMs: 10_000 };

const KEYS = ['max_bytes', 'max_pages', 'max_chars', 'timeout_ms'] as const;

export function parsePdf(value: unknown, path: string): PdfConfig {
  if (value === undefined || value === null) return PDF_DEFAULTS;
  const fields = readMapping(value, path);
  checkKeys(fields, KEYS, path);
  const d = PDF_DEFAULTS;
  return {
    maxBytes: optInt(fields, 'max_bytes', path, 1, 512 * 1024 * 1024) ?? d.maxBytes,
    maxPages: optInt(fields, 'max_pages', path, 1, 100_000) ?? d.maxPages,
    maxChars: optInt(fields, 'max_chars', path, 1, 100_000_000) ?? d.maxChars,
    timeoutMs: optInt(fields, 'timeout_ms', path, 1, 600_000) ?? d.timeoutMs,
  };
}
