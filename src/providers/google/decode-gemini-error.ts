import type { Endpoint } from '../../catalog/types.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import { parseRetryAfter } from '../http/parse-retry-after.ts';
import { httpErrorMetadata, parseRawBody, upstreamStatusError } from '../http/upstream-error.ts';

// Gemini's errors: `{"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT",
// "details": [...]}}`. A request Gemini judges invalid is the client's (another endpoint
// would judge it alike); everything else is this provider's failure, and routing may try
// another. Two 400s are the gateway's, not the client's: a bad API key (Gemini says 400
// API_KEY_INVALID, not 401) and an unsupported location (FAILED_PRECONDITION).

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
  const raw = parseRawBody(body);
  const error = errorObject(raw);
  const upstreamMessage = typeof error?.message === 'string' && error.message.length > 0 ? error.message : undefined;
  const retryAfter = retryDelaySeconds(error?.details) ?? parseRetryAfter(headers['retry-after']);
  // A bad key or location is the gateway's own: hidden from the caller, and another endpoint may do.
  const gatewaysOwn = isGatewaysOwn(error);
  const metadata = httpErrorMetadata(endpoint, status, raw, retryAfter, gatewaysOwn);
  return upstreamStatusError(status, upstreamMessage, metadata, endpoint, gatewaysOwn);
}

/** The message of an `{error: {...}}` object, for errors that arrive in a 200 body or a stream. */
export function geminiErrorMessage(raw: unknown): string | undefined {
  const m = errorObject(raw)?.message;
  return typeof m === 'string' && m.length > 0 ? m : undefined;
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
  const value: unknown = Array.isArray(raw) ? raw[0] : raw;
  const err = (value as { error?: unknown } | null)?.error;
  return typeof err === 'object' && err !== null ? err : undefined;
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
