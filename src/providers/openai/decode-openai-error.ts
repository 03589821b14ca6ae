import type { Endpoint } from '../../catalog/types.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import { parseRetryAfter, parseRetryAfterMs } from '../http/parse-retry-after.ts';
import { httpErrorMetadata, parseRawBody, upstreamStatusError } from '../http/upstream-error.ts';

export function decodeOpenAIError(
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined>,
  endpoint: Endpoint,
): GatewayError {
  const raw = parseRawBody(body);
  const retryAfter = parseRetryAfterMs(headers['retry-after-ms']) ?? parseRetryAfter(headers['retry-after']);
  return upstreamStatusError(status, upstreamErrorMessage(raw), httpErrorMetadata(endpoint, status, raw, retryAfter), endpoint);
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
