import type { Endpoint } from '../../catalog/types.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import { parseRetryAfter } from '../http/parse-retry-after.ts';
import { httpErrorMetadata, isAboutCredentials, parseRawBody, upstreamStatusError } from '../http/upstream-error.ts';

// Anthropic's error envelope is `{type:"error", error:{type, message}, request_id}`, with the
// HTTP status following the error type (reference §2, Errors).

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

export function decodeAnthropicError(
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined>,
  endpoint: Endpoint,
): GatewayError {
  const raw = parseRawBody(body);
  const metadata = httpErrorMetadata(endpoint, status, raw, parseRetryAfter(headers['retry-after']));
  return upstreamStatusError(status, anthropicErrorMessage(raw), metadata, endpoint);
}

/** An `error` event in a stream, or an error envelope in a 200 body: classified by its type. */
export function anthropicEventError(endpoint: Endpoint, raw: unknown): GatewayError {
  const type = errorTypeOf(raw);
  const status = (type !== undefined ? STATUS_BY_ERROR_TYPE[type] : undefined) ?? 500;
  const metadata: Record<string, unknown> = { provider_name: endpoint.provider.id };
  if (!isAboutCredentials(status)) metadata.raw = raw; // about our credentials: not repeated
  return upstreamStatusError(status, anthropicErrorMessage(raw), metadata, endpoint);
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
