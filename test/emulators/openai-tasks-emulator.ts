import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback, sendJson } from './emulator-http.ts';
import { OPENAI_AUDIO_HANDLERS } from './openai-audio-handlers.ts';

// OpenAI's task endpoints over real HTTP on loopback, as an OpenAI-compatible server speaks
// them: `/v1/embeddings` today (images and audio are added beside it). Each request is kept
// (path, headers, raw body) so a test can check what the gateway sent.

export interface RecordedTaskRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** The body as JSON when it is JSON, else null (multipart). */
  json: any;
}

/** A handler answers one path; it gets the parsed JSON body (or null) and the raw bytes. */
export type TaskHandler = (req: RecordedTaskRequest, res: ServerResponse) => void;

export interface OpenAITasksEmulator {
  /** http://127.0.0.1:<port>/v1: a provider's base_url. */
  baseUrl: string;
  requests: RecordedTaskRequest[];
  /** Answers this path (`/v1/...`) with `handler` from now on (replacing the default). */
  handle(path: string, handler: TaskHandler): void;
  close(): Promise<void>;
}

/** A deterministic vector per input: [length of the input, index, 0.5]. */
export function emulatorVector(input: string | number[], index: number): number[] {
  return [typeof input === 'string' ? input.length : input.length, index, 0.5];
}

function embeddings(req: RecordedTaskRequest, res: ServerResponse): void {
  const body = req.json as { model?: string; input?: unknown } | null;
  const inputs: (string | number[])[] =
    typeof body?.input === 'string'
      ? [body.input]
      : Array.isArray(body?.input)
        ? typeof body.input[0] === 'number'
          ? [body.input as number[]]
          : (body.input as (string | number[])[])
        : [];
  if (inputs.length === 0)
    return sendJson(res, 400, { error: { message: "'input' is required", type: 'invalid_request_error', param: 'input', code: null } });
  const tokens = inputs.reduce((n, x) => n + (typeof x === 'string' ? Math.max(1, Math.ceil(x.length / 4)) : x.length), 0);
  sendJson(res, 200, {
    object: 'list',
    // Out of order on purpose: the index says where each belongs.
    data: inputs.map((x, index) => ({ object: 'embedding', index, embedding: emulatorVector(x, index) })).reverse(),
    model: body?.model ?? 'unknown',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

export async function startOpenAITasksEmulator(): Promise<OpenAITasksEmulator> {
  const handlers = new Map<string, TaskHandler>([['/v1/embeddings', embeddings], ...OPENAI_AUDIO_HANDLERS]);
  const requests: RecordedTaskRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let json: any = null;
      if ((req.headers['content-type'] ?? '').startsWith('application/json')) {
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = null;
        }
      }
      const path = (req.url ?? '/').split('?')[0]!;
      const recorded: RecordedTaskRequest = { path, headers: req.headers, body, json };
      requests.push(recorded);
      const handler = handlers.get(path);
      if (handler === undefined) return sendJson(res, 404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
      handler(recorded, res);
    });
  });
  const origin = await listenOnLoopback(server);
  return {
    baseUrl: `${origin}/v1`,
    requests,
    handle: (path, handler) => void handlers.set(path, handler),
    close: () => closeServer(server),
  };
}
