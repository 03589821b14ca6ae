import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DialectName } from '../front/front-dialect.ts';
import { readMessagesKey } from '../front/anthropic-messages/messages-dialect.ts';
import type { RequestInfo } from '../pipeline/generation-pipeline.ts';
import { MAX_STORED_HEADER_CHARS } from '../front/shared/input-limits.ts';

/**
 * The request's one abort controller: aborted when the client goes away before the answer
 * is complete (the upstream call is then cancelled), and by the pipeline at the deadline.
 */
export function clientAbortController(reply: FastifyReply): AbortController {
  const ctrl = new AbortController();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableFinished) ctrl.abort();
  });
  return ctrl;
}

/**
 * The API key of a route every kind of client reaches (the model list, the key status):
 * `Authorization: Bearer` wins, else `x-api-key`, which Anthropic SDK 0.x (`models.list()`)
 * and Claude Code with ANTHROPIC_API_KEY send. The messages dialect's rule.
 */
export function readAnyApiKey(headers: IncomingHttpHeaders): string | undefined {
  return readMessagesKey(headers);
}

/** What the generation record keeps of the request's headers: the app's referer and title, truncated (never refused). */
export function requestInfo(request: FastifyRequest, dialect: DialectName): RequestInfo {
  const h = request.headers;
  return {
    dialect,
    httpReferer: headerText(h['http-referer'] ?? h.referer),
    xTitle: headerText(h['x-title'] ?? h['x-openrouter-title']),
  };
}

function headerText(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  const s = Array.isArray(v) ? v[0] ?? '' : v;
  if (s.length === 0) return null;
  return s.length > MAX_STORED_HEADER_CHARS ? s.slice(0, MAX_STORED_HEADER_CHARS) : s;
}
