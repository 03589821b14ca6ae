import type { Endpoint } from '../../catalog/types.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import { parseRetryAfter } from '../http/parse-retry-after.ts';
import { httpErrorMetadata, isAboutCredentials, parseRawBody, upstreamStatusError } from '../http/upstream-error.ts';

// Bedrock's errors: `{"message": "..."}` with the error's type in the `x-amzn-errortype`
// header (`ValidationException:http://internal.amazon.com/coral/...`), or, inside a
// ConverseStream, an exception frame whose `:exception-type` names it (reference §5).

/**
 * How each error type is judged, as an HTTP status: mostly the status it comes with; a
 * model still loading and an exhausted quota are this provider's passing trouble (429),
 * whatever status they came with, so routing may try another endpoint.
 */
const STATUS_BY_TYPE: Readonly<Record<string, number>> = {
  validationexception: 400,
  accessdeniedexception: 403,
  unrecognizedclientexception: 403,
  invalidsignatureexception: 403,
  expiredtokenexception: 403,
  resourcenotfoundexception: 404,
  modeltimeoutexception: 408,
  throttlingexception: 429,
  modelnotreadyexception: 429,
  servicequotaexceededexception: 429,
  modelerrorexception: 500,
  modelstreamerrorexception: 500,
  internalserverexception: 500,
  serviceunavailableexception: 503,
};

export function decodeBedrockError(
  status: number,
  body: string,
  headers: Record<string, string | string[] | undefined>,
  endpoint: Endpoint,
): GatewayError {
  const raw = parseRawBody(body);
  const type = errorType(headers['x-amzn-errortype']) ?? typeField(raw);
  const judged = (type !== undefined ? STATUS_BY_TYPE[type.toLowerCase()] : undefined) ?? status;
  const metadata = httpErrorMetadata(endpoint, status, raw, parseRetryAfter(headers['retry-after']));
  if (type !== undefined) metadata.error_type = type;
  return upstreamStatusError(judged, bedrockMessage(raw), metadata, endpoint);
}

/** An exception frame of a ConverseStream: `type` is its `:exception-type` (camelCase there). */
export function bedrockStreamError(endpoint: Endpoint, type: string, payload: string): GatewayError {
  const raw = parseRawBody(payload);
  const status = STATUS_BY_TYPE[type.toLowerCase()] ?? 500;
  const metadata: Record<string, unknown> = { provider_name: endpoint.provider.id, error_type: type };
  if (!isAboutCredentials(status)) metadata.raw = raw;
  return upstreamStatusError(status, bedrockMessage(raw), metadata, endpoint);
}

/** `ValidationException:http://...` → `ValidationException`. */
function errorType(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.length === 0) return undefined;
  const colon = value.indexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

/** Some proxies put the type in the body (`__type`). */
function typeField(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const t = (raw as { __type?: unknown }).__type;
  if (typeof t !== 'string' || t.length === 0) return undefined;
  const hash = t.lastIndexOf('#');
  return hash === -1 ? t : t.slice(hash + 1);
}

function bedrockMessage(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as { message?: unknown; Message?: unknown };
  const m = r.message ?? r.Message;
  return typeof m === 'string' && m.length > 0 ? m : undefined;
}
