import type { FastifyInstance } from 'fastify';
import type { TaskFile } from '../../canonical/task.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

// `multipart/form-data` bodies (OpenAI's audio transcriptions and image edits), parsed whole
// by the platform's own parser (undici's `Response.formData()`: no dependency of ours) once
// the route's body limit has bounded them. Registered only in the scope of the routes that
// take uploads, so no JSON route ever sees a form.

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
  scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, async (request: { headers: Record<string, unknown> }, body: Buffer) => {
    return parseMultipart(String(request.headers['content-type']), body);
  });
}

export async function parseMultipart(contentType: string, body: Buffer): Promise<MultipartForm> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new GatewayError('invalid_parameter', 'The body is not valid multipart/form-data (check the boundary and the parts).', { param: 'body' });
  }
  const fields = new Map<string, string[]>();
  const files = new Map<string, TaskFile[]>();
  for (const [name, value] of form) {
    if (typeof value === 'string') {
      let list = fields.get(name);
      if (list === undefined) fields.set(name, (list = []));
      list.push(value);
    } else {
      let list = files.get(name);
      if (list === undefined) files.set(name, (list = []));
      list.push({ filename: value.name, contentType: value.type || 'application/octet-stream', data: Buffer.from(await value.arrayBuffer()) });
    }
  }
  return new MultipartForm(fields, files);
}
