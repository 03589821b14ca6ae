import type { FastifyInstance } from 'fastify';
import type { TaskFile } from '../../canonical/task.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

// `multipart/form-data` bodies (OpenAI's audio transcriptions and image edits), parsed whole
// once the route's body limit has bounded them. Registered only in the scope of the routes
// that take uploads, so no JSON route ever sees a form.
//
// The parts are found with Buffer.indexOf (native: a 25 MB upload is split in milliseconds)
// and sliced without copying; their number is bounded. The platform's own parser (undici's
// Response.formData()) walks the bytes in JavaScript: ~330 ms of a blocked event loop for
// one 25 MB file, seconds for a body of half a million tiny fields.

/** Parts a form may have: OpenAI's forms have a dozen fields and up to 16 images. */
export const MAX_FORM_PARTS = 256;
/** Bytes of one part's headers. */
const MAX_PART_HEADERS = 8 * 1024;

/** A parsed form: text fields and uploaded files, by field name, in order. */
export class MultipartForm {
  readonly fields: ReadonlyMap<string, readonly string[]>;
  readonly files: ReadonlyMap<string, readonly TaskFile[]>;

  constructor(fields: Map<string, string[]>, files: Map<string, TaskFile[]>) {
    this.fields = fields;
    this.files = files;
  }

  /** The field's single value (the last one when repeated), or undefined. */
  field(name: string): string | undefined {
    return this.fields.get(name)?.at(-1);
  }
}

/** Makes `scope` parse `multipart/form-data` bodies into a MultipartForm. */
export function installMultipartParser(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer' },
    async (request: { headers: Record<string, unknown> }, body: Buffer) => {
      return parseMultipart(String(request.headers['content-type']), body);
    },
  );
}

function malformed(what: string): GatewayError {
  return new GatewayError('invalid_parameter', `The body is not valid multipart/form-data (${what}; check the boundary and the parts).`, {
    param: 'body',
  });
}

export async function parseMultipart(contentType: string, body: Buffer): Promise<MultipartForm> {
  const boundary = readBoundary(contentType);
  if (boundary === null) throw malformed('no boundary in the content type');
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const next = Buffer.from(`\r\n--${boundary}`, 'latin1');
  const fields = new Map<string, string[]>();
  const files = new Map<string, TaskFile[]>();
  // A preamble before the first delimiter is allowed (RFC 2046) and ignored.
  let at = body.indexOf(delimiter);
  if (at < 0) throw malformed('no part');
  at += delimiter.length;
  for (let parts = 0; ; parts++) {
    // After a delimiter: `--` ends the form, else CRLF and a part's headers.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) break;
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) throw malformed('a delimiter not followed by a line break');
    if (parts >= MAX_FORM_PARTS) throw malformed(`more than ${MAX_FORM_PARTS} parts`);
    const headersStart = at + 2;
    const headersEnd = body.indexOf('\r\n\r\n', headersStart, 'latin1');
    if (headersEnd < 0 || headersEnd - headersStart > MAX_PART_HEADERS) throw malformed('a part without an end to its headers');
    const headers = readHeaders(body.toString('utf8', headersStart, headersEnd));
    const dataStart = headersEnd + 4;
    const dataEnd = body.indexOf(next, dataStart);
    if (dataEnd < 0) throw malformed('a part without a closing delimiter');
    const disposition = parseDisposition(headers.get('content-disposition'));
    if (disposition === null) throw malformed('a part without a form-data name');
    const data = body.subarray(dataStart, dataEnd);
    if (disposition.filename === undefined) {
      push(fields, disposition.name, data.toString('utf8'));
    } else {
      push(files, disposition.name, {
        filename: disposition.filename,
        contentType: headers.get('content-type') || 'application/octet-stream',
        data,
      });
    }
    at = dataEnd + next.length;
  }
  return new MultipartForm(fields, files);
}

function push<T>(map: Map<string, T[]>, name: string, value: T): void {
  let list = map.get(name);
  if (list === undefined) map.set(name, (list = []));
  list.push(value);
}

/** The `boundary` parameter of a multipart content type (quoted or not), or null. */
export function readBoundary(contentType: string): string | null {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  const value = m === null ? undefined : (m[1] ?? m[2]);
  return value === undefined || value === '' ? null : value;
}

function readHeaders(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** `form-data; name="x"; filename="y"`: the name, and the file name when it is a file. */
function parseDisposition(value: string | undefined): { name: string; filename?: string } | null {
  if (value === undefined || !/^form-data\s*(;|$)/i.test(value)) return null;
  const params = new Map<string, string>();
  const re = /;\s*([\w*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (let m = re.exec(value); m !== null; m = re.exec(value)) {
    const raw = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!.trim();
    params.set(m[1]!.toLowerCase(), raw);
  }
  const name = params.get('name');
  if (name === undefined) return null;
  const star = params.get('filename*');
  const filename = star !== undefined ? (decodeExtended(star) ?? params.get('filename')) : params.get('filename');
  return filename === undefined ? { name } : { name, filename };
}

/** RFC 5987's `UTF-8''percent-encoded` value, or undefined when it is not one. */
function decodeExtended(value: string): string | undefined {
  const m = /^utf-8'[^']*'(.*)$/i.exec(value);
  if (m === null) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}
