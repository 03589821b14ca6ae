import { GatewayError } from '../errors/gateway-error.ts';

/** The refusal, carrying the answer's headers (its generation id, the rate-limit state) as well as its own. */
export function withHeaders(err: GatewayError, headers: Record<string, string>): GatewayError {
  const opts: ConstructorParameters<typeof GatewayError>[2] = {
    headers: { ...headers, ...err.headers },
    retryable: err.retryable,
    status: err.status,
  };
  if (err.metadata !== undefined) opts.metadata = err.metadata;
  if (err.param !== undefined) opts.param = err.param;
  if (err.detail !== undefined) opts.detail = err.detail;
  return new GatewayError(err.code, err.message, opts);
}
