import { GatewayError } from '../../../errors/gateway-error.ts';

/**
 * The account service reports bad input (an unknown tier, a malformed amount, no such
 * account) as plain errors: through the API they are 400 invalid_parameter (404 for a
 * missing account). Database errors (they carry a `code`) pass unchanged.
 */
export async function asBadRequest<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof GatewayError || !(err instanceof Error) || 'code' in err) throw err;
    if (/^no account /.test(err.message)) throw new GatewayError('not_found', `No account: ${err.message.slice('no account '.length)}.`);
    throw new GatewayError('invalid_parameter', err.message);
  }
}
