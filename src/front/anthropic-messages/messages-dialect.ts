import type { IncomingHttpHeaders } from 'node:http';
import { extractBearer } from '../../auth/authenticate.ts';
import type { FrontDialect, KeepAlive } from '../front-dialect.ts';
import { decodeMessagesRequest } from './decode-messages-request.ts';
import { encodeMessagesResponse } from './encode-messages-response.ts';
import { MessagesStreamEncoder } from './encode-messages-stream.ts';
import { renderMessagesError } from './render-messages-error.ts';

/**
 * Anthropic's `ping` event while an answer is slow to come (a reasoning model's first
 * token, a long tool argument), so that proxies and client idle timers keep the stream.
 * Pinging opens the response, after which a failure can only be reported in-stream and
 * clients no longer retry on its status: the interval is long enough that quick failures
 * (connect errors, upstream 4xx/5xx) still come as plain HTTP errors.
 */
export const MESSAGES_KEEP_ALIVE: KeepAlive = { intervalMs: 10_000, text: 'event: ping\ndata: {"type":"ping"}\n\n' };

/** The API key: `Authorization: Bearer` wins; otherwise `x-api-key` (Anthropic SDK 0.x, Claude Code with ANTHROPIC_API_KEY). */
export function readMessagesKey(headers: IncomingHttpHeaders): string | undefined {
  const bearer = extractBearer(headers.authorization);
  if (bearer !== undefined) return bearer;
  const key = headers['x-api-key'];
  return typeof key === 'string' ? key.trim() : undefined;
}

/** Anthropic messages. `anthropic-version` and `anthropic-beta` are accepted and ignored (the spec). */
export const messagesDialect: FrontDialect = {
  name: 'messages',
  readKey: readMessagesKey,
  keyHeaders: 'bearer-or-x-api-key',
  decode: (body) => decodeMessagesRequest(body),
  encodeResponse: encodeMessagesResponse,
  createStreamEncoder: (meta, req) => new MessagesStreamEncoder(meta, req),
  renderError: renderMessagesError,
  keepAlive: MESSAGES_KEEP_ALIVE,
};
