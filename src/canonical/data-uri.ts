// URLs of attachments as canonical parts carry them: http(s), or a base64 `data:` URI.

export function isHttpOrDataUrl(url: string): boolean {
  return url.startsWith('https://') || url.startsWith('http://') || (url.startsWith('data:') && url.indexOf(',') > 5);
}

/** `data:application/pdf;base64,...` → `application/pdf`; undefined for bare base64. */
export function dataUriMediaType(data: string): string | undefined {
  if (!data.startsWith('data:')) return undefined;
  let end = data.indexOf(';');
  const comma = data.indexOf(',');
  if (end === -1 || (comma !== -1 && comma < end)) end = comma;
  return end > 5 ? data.slice(5, end) : undefined;
}

const PDF = 'application/pdf';
/** Base64 of `%PDF-`: how a PDF sent without a media type is recognized. */
const PDF_MAGIC_BASE64 = 'JVBERi0';

/** A file part holding a PDF inline: its media type says so, or, with none, its bytes start with `%PDF-`. */
export function isInlinePdf(part: { data?: string; mediaType?: string }): boolean {
  const data = part.data;
  if (data === undefined) return false;
  if (part.mediaType !== undefined) return part.mediaType === PDF;
  return data.startsWith(PDF_MAGIC_BASE64);
}
