import { GatewayError } from '../../errors/gateway-error.ts';
import { checkJsonDepth } from '../../front/shared/check-json-depth.ts';
import { serveThread } from '../../runtime/serve-thread.ts';
import { checkJsonShape } from './json-values.ts';
import { parseJsonText } from './parse-json-text.ts';

// The JSON body thread (off-thread-json.ts): parses large request bodies so the event loop
// never spends the parse, checks their value bound and depth first and last, and sends the
// value back (a structured clone: a large string costs a copy, a bounded number of small
// values a bounded time).

export interface ParseRequest {
  bytes: Uint8Array;
}

export type ParseReply = { value: unknown } | { error: { code: GatewayError['code']; message: string; param?: string } };

serveThread<ParseRequest, ParseReply>((m) => {
  try {
    checkJsonShape(m.bytes);
    const value = parseJsonText(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength).toString('utf8'));
    checkJsonDepth(value);
    return { value };
  } catch (err) {
    const e = err instanceof GatewayError ? err : new GatewayError('internal_error', 'The request body could not be parsed.');
    return { error: { code: e.code, message: e.message, ...(e.param === undefined ? {} : { param: e.param }) } };
  }
});
