import { isStorageFailure, storageUnavailable } from '../billing/settlement-queue.ts';
import { GatewayError, toGatewayError } from '../errors/gateway-error.ts';
import { SharedStateUnavailable, sharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import { logSafely } from '../providers/http/scrub-secrets.ts';

/** Any error reaching a route's handler (ours, Fastify's, a bug) as a catalogue error; `bodyLimit` is the route's, in bytes. */
export function normalizeError(error: unknown, bodyLimit?: number): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: string } | null)?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = bodyLimit === undefined ? 'the limit of this gateway' : `${bodyLimit} bytes`;
    return new GatewayError('request_too_large', `The request body exceeds ${limit}.`);
  }
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new GatewayError('invalid_json', 'The request body is not valid JSON.');
  }
  const status = (error as { statusCode?: number } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new GatewayError('invalid_parameter', (error as Error).message);
  }
  // A fleet's shared state (Redis, Postgres) cannot answer: fail closed, the client may retry.
  if (error instanceof SharedStateUnavailable) return sharedStateUnavailable(error);
  // The database refused a write (read-only, disk full): the client may retry later.
  if (isStorageFailure(error)) {
    logSafely(`database write failed: ${(error as Error).message}`);
    return storageUnavailable();
  }
  // A bug: say nothing of it to the client, everything but credentials to the operator.
  logSafely(`internal error: ${(error as Error)?.stack ?? String(error)}`);
  return toGatewayError(error);
}
