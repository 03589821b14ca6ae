// The benchmarks' upstream: an OpenAI chat-completions server on loopback that answers at
// once, run in its own process. It speaks the same wire shape as
// test/emulators/openai-chat-emulator.ts, but its default streamed answer is a realistic
// ~20 chunks (the emulator's is 5) and it has two timed modes the benchmarks need. The
// mode is picked by a marker in the request body, so that the same request reaches it
// the same way directly, through the bare proxy and through the gateway:
//
//   (no marker)   instant answer; streamed: role chunk, 18 word chunks, finish, usage, [DONE]
//                 written at once. Answers are rendered once and only stamped with an id.
//   bench-pace    streamed: role chunk and the first word at once, then one word every
//                 PACE_MS (words are markers w1 w2 ...), so a client can time each chunk.
//   bench-hold    streamed: role chunk and one word at once, then one word a second until
//                 the client goes away (capped at HOLD_MAX_MS): open streams for the
//                 memory figure. POST /bench/release-holds ends every held stream now
//                 (finish, usage, [DONE]) and answers {"released": n}: the bench calls it
//                 once its held streams are measured, so that a gateway reading on for
//                 their usage (billing) gets it now, instead of aborting them all at the
//                 end of its disconnect grace in the middle of the next phase.
//
// Prints {"port": N} on stdout once listening; exits when stdin closes (the parent died)
// or on SIGTERM.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HOLD_MARKER, PACE_MARKER, PACE_MS, PACE_WORDS, paceWord } from './lib/scenarios.ts';

const HOLD_INTERVAL_MS = 1000;
const HOLD_MAX_MS = 120_000;

const ANSWER_WORDS = 'Switchyard forwards this answer in small pieces, the way a model streams its tokens, so every chunk travels.'.split(
  /(?<= )/,
);

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } as const;
const DONE = 'data: [DONE]\n\n';
const ID_SLOT = '@@ID@@';
const created = Math.floor(Date.now() / 1000);
let counter = 0;

interface Shape {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  promptTokens: number;
}

function usage(promptTokens: number, completionTokens: number): Record<string, unknown> {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function chunkHead(id: string, model: string): string {
  return `data: {"id":"${id}","object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)},"system_fingerprint":"fp_bench","choices":`;
}

function deltaEvent(head: string, tail: string, delta: Record<string, unknown>, finish: string | null): string {
  return `${head}[{"index":0,"delta":${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]${tail}`;
}

/** Every event of a streamed answer made of `words`, [DONE] included. */
function streamEvents(shape: Shape, id: string, words: readonly string[]): string[] {
  const head = chunkHead(id, shape.model);
  const tail = shape.includeUsage ? ',"usage":null}\n\n' : '}\n\n';
  const events = [deltaEvent(head, tail, { role: 'assistant', content: '', refusal: null }, null)];
  for (const w of words) events.push(deltaEvent(head, tail, { content: w }, null));
  events.push(deltaEvent(head, tail, {}, 'stop'));
  if (shape.includeUsage) events.push(`${head}[],"usage":${JSON.stringify(usage(shape.promptTokens, words.length))}}\n\n`);
  events.push(DONE);
  return events;
}

function completion(shape: Shape, id: string): string {
  return JSON.stringify({
    id,
    object: 'chat.completion',
    created,
    model: shape.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: ANSWER_WORDS.join(''), refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: usage(shape.promptTokens, ANSWER_WORDS.length),
    service_tier: 'default',
    system_fingerprint: 'fp_bench',
  });
}

/** Rendered instant answers, split around the id. */
const rendered = new Map<string, string[]>();

function instant(shape: Shape, res: ServerResponse): void {
  const key = `${shape.stream ? (shape.includeUsage ? 'su' : 's') : 'j'}:${shape.promptTokens}:${shape.model}`;
  let segments = rendered.get(key);
  if (segments === undefined) {
    const text = shape.stream ? streamEvents(shape, ID_SLOT, ANSWER_WORDS).join('') : completion(shape, ID_SLOT);
    segments = text.split(ID_SLOT);
    if (rendered.size > 100) rendered.clear();
    rendered.set(key, segments);
  }
  const body = segments.join(`chatcmpl-bench-${++counter}`);
  if (shape.stream) res.writeHead(200, SSE_HEADERS);
  else res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Writes events[0..first) at once, then one event per interval; the last `tail` events
 * (finish, usage, [DONE]) go together after the last word. `hold` repeats events[1]
 * until the client goes away.
 */
/** How to end each held stream now (its tail events), until it ended. */
const held = new Set<() => void>();

function paced(res: ServerResponse, events: string[], first: number, tail: number, intervalMs: number, hold: boolean): void {
  res.writeHead(200, SSE_HEADERS);
  res.write(events.slice(0, first).join(''));
  let i = first;
  const started = Date.now();
  const release = (): void => {
    stop();
    if (!res.destroyed) res.end(events.slice(-tail).join(''));
  };
  if (hold) held.add(release);
  const timer = setInterval(() => {
    if (res.destroyed) return stop();
    if (hold) {
      if (Date.now() - started > HOLD_MAX_MS) return release();
      res.write(events[1]!);
      return;
    }
    res.write(events[i++]!);
    if (i >= events.length - tail) {
      res.end(events.slice(i).join(''));
      stop();
    }
  }, intervalMs);
  const stop = (): void => {
    clearInterval(timer);
    held.delete(release);
  };
  res.on('close', stop);
}

function answer(req: IncomingMessage, res: ServerResponse, text: string): void {
  if (req.method === 'POST' && req.url === '/bench/release-holds') {
    const n = held.size;
    for (const release of [...held]) release();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ released: n }));
    return;
  }
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
    return;
  }
  let body: { model?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } } | null;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"invalid json","type":"invalid_request_error"}}');
    return;
  }
  const shape: Shape = {
    model: typeof body?.model === 'string' ? body.model : 'unknown',
    stream: body?.stream === true,
    includeUsage: body?.stream_options?.include_usage === true,
    promptTokens: Math.max(1, Math.ceil(text.length / 4)),
  };
  const tail = shape.includeUsage ? 3 : 2;
  if (shape.stream && text.includes(PACE_MARKER)) {
    const words = Array.from({ length: PACE_WORDS }, (_, k) => paceWord(k + 1));
    paced(res, streamEvents(shape, `chatcmpl-bench-${++counter}`, words), 2, tail, PACE_MS, false);
    return;
  }
  if (shape.stream && text.includes(HOLD_MARKER)) {
    paced(res, streamEvents(shape, `chatcmpl-bench-${++counter}`, ['held ']), 2, tail, HOLD_INTERVAL_MS, true);
    return;
  }
  instant(shape, res);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => answer(req, res, chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
});
server.keepAliveTimeout = 60_000;
server.maxRequestsPerSocket = 0;

function shutdown(): void {
  server.closeAllConnections();
  server.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
