import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

const RAW_TEXT_LIMIT = 2000;

/** Statuses where the provider judged the request itself: another endpoint would too. */
function isRejection(status: number): boolean {
  return status === 400 || status === 404 || status === 413 || status === 422;
}

/**
 * Failures of this provider rather than of the request, so another endpoint may succeed.
 * 402 is included: an operator's exhausted upstream balance says nothing about other providers.
 */
function isRetryable(status: number): boolean {
  return status >= 500 || status === 401 || status === 402 || status === 403 || status === 408 || status === 409 || status === 429;
}

export function decodeOpenAIError(
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined>,
  endpoint: Endpoint,
): GatewayError {
  const raw = parseRaw(body);
  const upstreamMessage = upstreamErrorMessage(raw);
  const metadata: Record<string, unknown> = { provider_name: endpoint.provider.id, raw, upstream_status: status };
  const retryAfter = retryAfterSeconds(headers);
  if (retryAfter !== undefined) metadata.retry_after_seconds = retryAfter;

  if (isRejection(status)) {
    const message = upstreamMessage ?? `${endpoint.provider.name} rejected the request (HTTP ${status})`;
    return new GatewayError('upstream_rejected_request', message, { metadata });
  }
  // The upstream's own words would be about the gateway's credentials, not the caller's.
  const message = status === 401 || status === 403 || upstreamMessage === undefined
    ? `${endpoint.provider.name} returned HTTP ${status}`
    : `${endpoint.provider.name} returned HTTP ${status}: ${upstreamMessage}`;
  return new GatewayError('provider_error', message, { metadata, retryable: isRetryable(status) });
}

/** A provider_error for an answer that arrived but is unusable (bad body, error in stream). */
export function openAIProviderError(endpoint: Endpoint, message: string, raw: unknown): GatewayError {
  return new GatewayError('provider_error', `${endpoint.provider.name}: ${message}`, {
    metadata: { provider_name: endpoint.provider.id, raw },
  });
}

/** The error body as JSON when it is JSON, else its text, bounded. */
export function parseRaw(text: string): unknown {
  if (text.length > 0) {
    const c = text.charCodeAt(0);
    if (c === 123 /* { */ || c === 91 /* [ */) {
      try {
        return JSON.parse(text);
      } catch {
        // not JSON after all: fall through to text
      }
    }
  }
  return truncateRaw(text);
}

export function truncateRaw(text: string): string {
  return text.length > RAW_TEXT_LIMIT ? text.slice(0, RAW_TEXT_LIMIT) : text;
}

/** `{error:{message}}` (OpenAI), `{error:"..."}` and `{message}` (other compatible servers). */
export function upstreamErrorMessage(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const err = (raw as { error?: unknown }).error;
  if (typeof err === 'string' && err.length > 0) return err;
  if (typeof err === 'object' && err !== null) {
    const m = (err as { message?: unknown }).message;
    if (typeof m === 'string' && m.length > 0) return m;
  }
  const m = (raw as { message?: unknown }).message;
  return typeof m === 'string' && m.length > 0 ? m : undefined;
}

/** `retry-after-ms` (OpenAI) or `retry-after` in seconds or as an HTTP date. */
function retryAfterSeconds(headers: Record<string, string | string[] | undefined>): number | undefined {
  const ms = firstHeader(headers['retry-after-ms']);
  if (ms !== undefined) {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return Math.ceil(n / 1000);
  }
  const value = firstHeader(headers['retry-after']);
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}
