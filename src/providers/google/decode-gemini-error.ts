import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

// Gemini's errors: `{"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT",
// "details": [...]}}`. A request Gemini judges invalid is the client's (another endpoint
// would judge it alike); everything else is this provider's failure, and routing may try
// another. Two 400s are the gateway's, not the client's: a bad API key (Gemini says 400
// API_KEY_INVALID, not 401) and an unsupported location (FAILED_PRECONDITION).

const RAW_TEXT_LIMIT = 2000;

interface GeminiErrorWire {
  code?: unknown;
  message?: unknown;
  status?: unknown;
  details?: unknown;
}

export function decodeGeminiError(
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined>,
  endpoint: Endpoint,
): GatewayError {
  const raw = parseRaw(body);
  const error = errorObject(raw);
  const upstreamMessage = typeof error?.message === 'string' && error.message.length > 0 ? error.message : undefined;
  const metadata: Record<string, unknown> = { provider_name: endpoint.provider.id, raw, upstream_status: status };
  const retryAfter = retryDelaySeconds(error?.details) ?? retryAfterHeader(headers['retry-after']);
  if (retryAfter !== undefined) metadata.retry_after_seconds = retryAfter;

  if (isRejection(status) && !isGatewaysOwn(error)) {
    return new GatewayError('upstream_rejected_request', upstreamMessage ?? `${endpoint.provider.name} rejected the request (HTTP ${status})`, { metadata });
  }
  // About the gateway's credentials or location: not for the caller's eyes.
  const hide = status === 401 || status === 403 || isGatewaysOwn(error) || upstreamMessage === undefined;
  const message = hide ? `${endpoint.provider.name} returned HTTP ${status}` : `${endpoint.provider.name} returned HTTP ${status}: ${upstreamMessage}`;
  return new GatewayError('provider_error', message, { metadata, retryable: isRetryable(status) || isGatewaysOwn(error) });
}

/** An answer that arrived but is unusable: a bad body, or an error inside the stream. */
export function geminiProviderError(endpoint: Endpoint, message: string, raw: unknown): GatewayError {
  return new GatewayError('provider_error', `${endpoint.provider.name}: ${message}`, {
    metadata: { provider_name: endpoint.provider.id, raw },
  });
}

/** The message of an `{error: {...}}` object, for errors that arrive in a 200 body or a stream. */
export function geminiErrorMessage(raw: unknown): string | undefined {
  const m = errorObject(raw)?.message;
  return typeof m === 'string' && m.length > 0 ? m : undefined;
}

function isRejection(status: number): boolean {
  return status === 400 || status === 404 || status === 413 || status === 422;
}

function isRetryable(status: number): boolean {
  return status >= 500 || status === 401 || status === 402 || status === 403 || status === 408 || status === 409 || status === 429;
}

function isGatewaysOwn(error: GeminiErrorWire | undefined): boolean {
  if (error === undefined) return false;
  if (error.status === 'FAILED_PRECONDITION') return true;
  if (!Array.isArray(error.details)) return false;
  for (const d of error.details) {
    const reason = (d as { reason?: unknown } | null)?.reason;
    if (reason === 'API_KEY_INVALID' || reason === 'API_KEY_EXPIRED') return true;
  }
  return false;
}

function errorObject(raw: unknown): GeminiErrorWire | undefined {
  // Some Google front ends wrap the error in a one-element array.
  const value = Array.isArray(raw) ? raw[0] : raw;
  const err = (value as { error?: unknown } | null)?.error;
  return typeof err === 'object' && err !== null ? (err as GeminiErrorWire) : undefined;
}

/** `google.rpc.RetryInfo`'s `retryDelay` ("34.4s"), rounded up to whole seconds. */
function retryDelaySeconds(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const delay = (d as { retryDelay?: unknown } | null)?.retryDelay;
    if (typeof delay === 'string' && delay.endsWith('s')) {
      const seconds = Number(delay.slice(0, -1));
      if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
    }
  }
  return undefined;
}

function retryAfterHeader(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  const seconds = Number(v);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : undefined;
}

export function parseRaw(text: string): unknown {
  if (text.length > 0) {
    const c = text.charCodeAt(0);
    if (c === 123 /* { */ || c === 91 /* [ */) {
      try {
        return JSON.parse(text);
      } catch {
        // not JSON after all
      }
    }
  }
  return text.length > RAW_TEXT_LIMIT ? text.slice(0, RAW_TEXT_LIMIT) : text;
}
