import { parentPort } from 'node:worker_threads';
import { GatewayError } from '../../errors/gateway-error.ts';
import { checkJsonDepth } from '../../front/shared/check-json-depth.ts';
import { checkJsonShape } from './json-values.ts';
import { parseJsonText } from './parse-json-text.ts';

// The JSON body thread (off-thread-json.ts): parses large request bodies so the event loop
// never spends the parse, checks their value bound and depth first and last, and sends the
// value back (a structured clone: a large string costs a copy, a bounded number of small
// values a bounded time).

export interface ParseRequest {
  id: number;
  bytes: Uint8Array;
}

export type ParseReply =
  | { id: number; value: unknown }
  | { id: number; error: { code: GatewayError['code']; message: string; param?: string } };

const port = parentPort!;
port.on('message', (m: ParseRequest) => {
  try {
    checkJsonShape(m.bytes);
    const value = parseJsonText(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength).toString('utf8'));
    checkJsonDepth(value);
    port.postMessage({ id: m.id, value } satisfies ParseReply);
  } catch (err) {
    const e = err instanceof GatewayError ? err : new GatewayError('internal_error', 'The request body could not be parsed.');
    port.postMessage({ id: m.id, error: { code: e.code, message: e.message, ...(e.param === undefined ? {} : { param: e.param }) } } satisfies ParseReply);
  }
});
