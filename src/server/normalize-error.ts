import { GatewayError, toGatewayError } from '../errors/gateway-error.ts';

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
  // A bug: say nothing of it to the client, everything to the operator.
  process.stderr.write(`internal error: ${(error as Error)?.stack ?? String(error)}\n`);
  return toGatewayError(error);
}
