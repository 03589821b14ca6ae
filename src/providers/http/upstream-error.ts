import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

// What every adapter does alike with an upstream's error: keep the body (JSON, or bounded
// text) for the record, and classify the status. A status where the provider judged the
// request itself is the client's error, since another endpoint would judge it alike;
// anything else is this provider's failure, and routing may try another.

const RAW_TEXT_LIMIT = 2000;

/** A body as JSON when it is JSON, else its text, bounded: the `raw` of an error's metadata. */
export function parseRawBody(text: string): unknown {
  const c = text.charCodeAt(0);
  if (c === 123 /* { */ || c === 91 /* [ */) {
    try {
      return JSON.parse(text);
    } catch {
      // not JSON after all: keep the text
    }
  }
  return truncateRaw(text);
}

/** Text bounded for an error's metadata. */
export function truncateRaw(text: string): string {
  return text.length > RAW_TEXT_LIMIT ? text.slice(0, RAW_TEXT_LIMIT) : text;
}

/**
 * The metadata of an HTTP error answer: who answered, with what, and how long it asked to
 * wait. A 401 or 403 is about the gateway's own credentials: its body (which may repeat
 * them) is not kept; nor is the body of any answer `gatewaysOwn` (a bad key answered with
 * another status).
 */
export function httpErrorMetadata(
  endpoint: Endpoint,
  status: number,
  raw: unknown,
  retryAfterSeconds: number | undefined,
  gatewaysOwn = false,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = { provider_name: endpoint.provider.id, upstream_status: status };
  if (!isAboutCredentials(status) && !gatewaysOwn) metadata.raw = raw;
  if (retryAfterSeconds !== undefined) metadata.retry_after_seconds = retryAfterSeconds;
  return metadata;
}

/**
 * An upstream's error with this status → the gateway's error. `gatewaysOwn`: whatever the
 * status, the fault is the gateway's own setup (a bad API key that Gemini answers with 400),
 * so the upstream's words are hidden and another endpoint may succeed.
 */
export function upstreamStatusError(
  status: number,
  upstreamMessage: string | undefined,
  metadata: Record<string, unknown>,
  endpoint: Endpoint,
  gatewaysOwn = false,
): GatewayError {
  const name = endpoint.provider.name;
  if (isRejection(status) && !gatewaysOwn) {
    return new GatewayError('upstream_rejected_request', upstreamMessage ?? `${name} rejected the request (HTTP ${status})`, { metadata });
  }
  // The upstream's words on 401/403 are about the gateway's credentials, not the caller's.
  const hide = isAboutCredentials(status) || gatewaysOwn || upstreamMessage === undefined;
  const message = hide ? `${name} returned HTTP ${status}` : `${name} returned HTTP ${status}: ${upstreamMessage}`;
  return new GatewayError('provider_error', message, { metadata, retryable: isRetryable(status) || gatewaysOwn });
}

/** A provider_error for an answer that arrived but is unusable (a bad body, an error in the stream). */
export function unusableAnswerError(endpoint: Endpoint, message: string, raw: unknown): GatewayError {
  return new GatewayError('provider_error', `${endpoint.provider.name}: ${message}`, {
    metadata: { provider_name: endpoint.provider.id, raw },
  });
}

/**
 * The upstream's stream held an event over the parser's cap: the answer is dropped (with its
 * connection). Another endpoint may serve; this one is not asked again (`upstream_status`
 * is the 200 it answered with, which the retry policy does not take for a transient failure).
 */
export function oversizedEventError(endpoint: Endpoint, limit: number, status: number): GatewayError {
  return new GatewayError(
    'provider_error',
    `${endpoint.provider.name} sent a stream event larger than ${limit} characters; the answer was dropped.`,
    {
      metadata: { provider_name: endpoint.provider.id, raw: null, upstream_status: status },
    },
  );
}

/** 401 and 403: the upstream judged the gateway's credentials. */
export function isAboutCredentials(status: number): boolean {
  return status === 401 || status === 403;
}

/** Statuses where the provider judged the request itself: another endpoint would too. */
function isRejection(status: number): boolean {
  return status === 400 || status === 404 || status === 413 || status === 422;
}

/**
 * Failures of this provider rather than of the request, so another endpoint may succeed:
 * the gateway's own credentials or upstream balance (401, 402, 403; an operator's exhausted
 * balance says nothing about other providers), rate limits, overload and server trouble.
 */
function isRetryable(status: number): boolean {
  return status >= 500 || status === 401 || status === 402 || status === 403 || status === 408 || status === 409 || status === 429;
}

/** An error's text for the operator, with its system code (`ECONNREFUSED: ...`) when it has one. */
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const text = typeof code === 'string' ? `${code}: ${err.message}` : err.message;
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error && cause !== err ? `${text} (${errorText(cause)})` : text;
  }
  return String(err);
}

// A transport failure reaches the client as the provider's id and a reason from this list,
// never as the system error's text, which names the operator's network: addresses, ports,
// host names, file paths (`connect ECONNREFUSED 10.0.0.5:8443`). The text goes to the
// operator's request log as the error's `detail`.
const REASONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(ECONNREFUSED)$/, 'connection refused'],
  [/^(ETIMEDOUT|ESOCKETTIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/, 'timed out'],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NONAME|EAI_NODATA)$/, 'DNS lookup failed'],
  [/^(ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_SOCKET|UND_ERR_CLOSED)$/, 'connection reset'],
  [/^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|EADDRNOTAVAIL)$/, 'host unreachable'],
  [/^(EPROTO|ERR_TLS_.*|ERR_SSL_.*|CERT_.*|.*_CERT_.*|.*_CERT|UNABLE_TO_.*|SELF_SIGNED_.*|DEPTH_ZERO_.*|HOSTNAME_MISMATCH)$/, 'TLS error'],
  [/^(UND_ERR_ABORTED|ABORT_ERR)$/, 'cancelled'],
];

/** The reason a transport error gives a client: its system code's meaning (looked for in its causes too), never its text. */
export function transportReason(err: unknown, fallback = 'network error'): string {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      for (const [pattern, reason] of REASONS) if (pattern.test(code)) return reason;
    }
    const inner = (e as { errors?: unknown }).errors; // AggregateError: every address of a host refused
    if (Array.isArray(inner) && inner.length > 0) return transportReason(inner[0], fallback);
    e = (e as { cause?: unknown }).cause;
  }
  return fallback;
}

/** The request could not be sent, or its headers did not come in time. */
export function connectError(err: unknown, endpoint: Endpoint): GatewayError {
  const code = (err as { code?: unknown } | null)?.code;
  const id = endpoint.provider.id;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new GatewayError('timeout', `The provider ${id} did not answer in time.`, {
      metadata: { provider_name: id, reason: 'timed out' },
      detail: errorText(err),
    });
  }
  const reason = transportReason(err);
  return new GatewayError('provider_error', `Could not reach the provider ${id}: ${reason}.`, {
    metadata: { provider_name: id, reason },
    detail: errorText(err),
  });
}

/** The connection broke while the answer was being read. */
export function readFailedError(err: unknown, endpoint: Endpoint): GatewayError {
  const reason = transportReason(err);
  return new GatewayError(
    'provider_error',
    `The connection to the provider ${endpoint.provider.id} failed while reading its answer: ${reason}.`,
    {
      metadata: { provider_name: endpoint.provider.id, reason },
      detail: errorText(err),
    },
  );
}

/**
 * The provider's credentials could not be had (no AWS credentials in the chain, a token
 * endpoint that refused): the gateway's own setup, so another endpoint may serve. What
 * went wrong (a file's path, a token endpoint's address) is the operator's: `detail`.
 */
export function credentialsError(err: unknown, endpoint: Endpoint): GatewayError {
  return new GatewayError('provider_error', `Could not get credentials for the provider ${endpoint.provider.id}.`, {
    metadata: { provider_name: endpoint.provider.id, reason: 'credentials unavailable' },
    retryable: true,
    detail: errorText(err),
  });
}

/** The answer did not begin within the attempt's time limit. */
export function attemptTimeoutError(endpoint: Endpoint, ms: number): GatewayError {
  return new GatewayError('timeout', `The provider ${endpoint.provider.id} did not begin its answer within ${ms} ms.`, {
    metadata: { provider_name: endpoint.provider.id },
  });
}

/** What an adapter threw, as a GatewayError: its own when it threw one, else a provider_error. */
export function providerFailure(err: unknown, endpoint: Endpoint): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('provider_error', `The provider ${endpoint.provider.id} failed.`, {
    metadata: { provider_name: endpoint.provider.id, reason: transportReason(err, 'failed') },
    detail: errorText(err),
  });
}
