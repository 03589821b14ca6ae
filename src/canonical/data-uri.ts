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
