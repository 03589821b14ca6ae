import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

// Anthropic's error envelope is `{type:"error", error:{type, message}, request_id}`, with the
// HTTP status following the error type (reference §2, Errors).

const RAW_TEXT_LIMIT = 2000;

/** The HTTP status each error type comes with, for errors that arrive inside a stream. */
const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** Statuses where Anthropic judged the request itself: another endpoint would too. */
function isRejection(status: number): boolean {
  return status === 400 || status === 404 || status === 413 || status === 422;
}

/**
 * Failures of this provider rather than of the request, so another endpoint may succeed:
 * the gateway's own credentials or upstream balance (401, 402, 403), rate limits, and
 * overload (529) or other server trouble.
 */
function isRetryable(status: number): boolean {
  return status >= 500 || status === 401 || status === 402 || status === 403 || status === 408 || status === 409 || status === 429;
}

export function decodeAnthropicError(
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined>,
  endpoint: Endpoint,
): GatewayError {
  const raw = parseAnthropicRaw(body);
  const metadata: Record<string, unknown> = { provider_name: endpoint.provider.id, raw, upstream_status: status };
  const retryAfter = retryAfterSeconds(headers);
  if (retryAfter !== undefined) metadata.retry_after_seconds = retryAfter;
  return errorFor(status, anthropicErrorMessage(raw), metadata, endpoint);
}

/** An `error` event in a stream, or an error envelope in a 200 body: classified by its type. */
export function anthropicEventError(endpoint: Endpoint, raw: unknown): GatewayError {
  const type = errorTypeOf(raw);
  const status = (type !== undefined ? STATUS_BY_ERROR_TYPE[type] : undefined) ?? 500;
  return errorFor(status, anthropicErrorMessage(raw), { provider_name: endpoint.provider.id, raw }, endpoint);
}

/** A provider_error for an answer that arrived but is unusable (bad body or stream). */
export function anthropicProviderError(endpoint: Endpoint, message: string, raw: unknown): GatewayError {
  return new GatewayError('provider_error', `${endpoint.provider.name}: ${message}`, {
    metadata: { provider_name: endpoint.provider.id, raw },
  });
}

function errorFor(status: number, upstreamMessage: string | undefined, metadata: Record<string, unknown>, endpoint: Endpoint): GatewayError {
  const name = endpoint.provider.name;
  if (isRejection(status)) {
    return new GatewayError('upstream_rejected_request', upstreamMessage ?? `${name} rejected the request (HTTP ${status})`, { metadata });
  }
  // The upstream's words on 401/403 are about the gateway's credentials, not the caller's.
  const message = status === 401 || status === 403 || upstreamMessage === undefined
    ? `${name} returned HTTP ${status}`
    : `${name} returned HTTP ${status}: ${upstreamMessage}`;
  return new GatewayError('provider_error', message, { metadata, retryable: isRetryable(status) });
}

/** The error body as JSON when it is JSON, else its text, bounded. */
export function parseAnthropicRaw(text: string): unknown {
  const c = text.charCodeAt(0);
  if (c === 123 /* { */ || c === 91 /* [ */) {
    try {
      return JSON.parse(text);
    } catch {
      // not JSON after all: keep the text
    }
  }
  return truncateAnthropicRaw(text);
}

export function truncateAnthropicRaw(text: string): string {
  return text.length > RAW_TEXT_LIMIT ? text.slice(0, RAW_TEXT_LIMIT) : text;
}

function errorObject(raw: unknown): Record<string, unknown> | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const err = (raw as { error?: unknown }).error;
  return typeof err === 'object' && err !== null ? (err as Record<string, unknown>) : undefined;
}

function errorTypeOf(raw: unknown): string | undefined {
  const type = errorObject(raw)?.type;
  return typeof type === 'string' ? type : undefined;
}

/** `{error:{message}}` (Anthropic, and proxies in front of it), or a top-level `message`. */
function anthropicErrorMessage(raw: unknown): string | undefined {
  const m = errorObject(raw)?.message ?? (typeof raw === 'object' && raw !== null ? (raw as { message?: unknown }).message : undefined);
  return typeof m === 'string' && m.length > 0 ? m : undefined;
}

/** `retry-after` in seconds or as an HTTP date. */
function retryAfterSeconds(headers: Record<string, string | string[] | undefined>): number | undefined {
  const header = headers['retry-after'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
