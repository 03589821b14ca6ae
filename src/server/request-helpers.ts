import type { CacheDirective } from '../pipeline/response-cache/response-cache.ts';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DialectName } from '../canonical/dialect-name.ts';
import { readMessagesKey } from '../front/anthropic-messages/messages-dialect.ts';
import type { ClientPresence, RequestInfo } from '../pipeline/generation-pipeline.ts';
import { MAX_STORED_HEADER_CHARS } from '../front/shared/input-limits.ts';

/**
 * The request's one abort controller: aborted by the pipeline at the deadline, and when
 * the client goes away before the answer is complete. A client that leaves — before the
 * first byte or after, streamed or not — does not cancel the upstream at once: the
 * upstream has been sent the request and bills it, client or no client, so it is read on,
 * unseen, for up to `graceMs` for its usage, which is charged; then it is cancelled (and
 * the estimate charged). `graceMs` 0 cancels at once. `release()` clears the grace timer
 * once the request has run.
 */
export class ClientAbort implements ClientPresence {
  readonly controller = new AbortController();
  left = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(reply: FastifyReply, graceMs: number) {
    const res = reply.raw;
    res.once('close', () => {
      if (res.writableFinished) return;
      this.left = true;
      if (graceMs > 0) this.timer = setTimeout(cancel, graceMs, this.controller);
      else this.controller.abort();
    });
  }

  release(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

function cancel(controller: AbortController): void {
  controller.abort();
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
    // The caller's W3C trace context: the request's server span continues its trace.
    traceparent: typeof h.traceparent === 'string' ? h.traceparent : null,
    cache: cacheDirective(h['x-switchyard-cache'], h['x-switchyard-cache-ttl']),
  };
}

/** `X-Switchyard-Cache: on|off` (case-insensitive; anything else: no say) and `X-Switchyard-Cache-TTL: <seconds>` (a positive integer; anything else: none). */
function cacheDirective(mode: string | string[] | undefined, ttl: string | string[] | undefined): CacheDirective {
  const m = (Array.isArray(mode) ? mode[0] : mode)?.trim().toLowerCase();
  const t = (Array.isArray(ttl) ? ttl[0] : ttl)?.trim();
  return {
    mode: m === 'on' || m === 'off' ? m : null,
    ttlSeconds: t !== undefined && /^[1-9]\d{0,8}$/.test(t) ? Number(t) : null,
  };
}

function headerText(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  const s = Array.isArray(v) ? (v[0] ?? '') : v;
  if (s.length === 0) return null;
  return s.length > MAX_STORED_HEADER_CHARS ? s.slice(0, MAX_STORED_HEADER_CHARS) : s;
}
