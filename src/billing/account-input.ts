import { GatewayError } from '../errors/gateway-error.ts';

// The bounds of what an operator or an account names and dates: checked by the account
// service (so the CLI and the admin API refuse alike) and by the routes that rename
// without it. A refusal is a 400 `invalid_parameter` naming the field (the CLI prints its
// message and exits 1).

/** Characters of an account's or a key's name (JavaScript string length). */
export const MAX_NAME_CHARS = 256;
/** Characters of an expiry as given (an ISO 8601 date-time is at most about 30). */
export const MAX_DATE_CHARS = 64;

/** A non-empty name of at most MAX_NAME_CHARS characters; `field` names it in the refusal. */
export function checkName(name: string, field = 'name'): string {
  if (name.trim().length === 0) throw new GatewayError('invalid_parameter', `"${field}" must be a non-empty string.`, { param: field });
  if (name.length > MAX_NAME_CHARS) {
    throw new GatewayError('invalid_parameter', `"${field}" must be at most ${MAX_NAME_CHARS} characters (got ${name.length}).`, {
      param: field,
    });
  }
  return name;
}

/** A key's expiry: an ISO 8601 date-time after `now`, as stored (UTC ISO text). A key born expired is refused. */
export function checkExpiry(value: string, now: Date, field = 'expires_at'): string {
  const at = Date.parse(value);
  if (value.length > MAX_DATE_CHARS || Number.isNaN(at)) {
    throw new GatewayError('invalid_parameter', `"${field}" must be an ISO 8601 date-time (e.g. 2026-12-31T18:00:00Z).`, { param: field });
  }
  if (at <= now.getTime()) {
    throw new GatewayError(
      'invalid_parameter',
      `"${field}" (${new Date(at).toISOString()}) is in the past: a key's expiry must be a future date-time.`,
      { param: field },
    );
  }
  return new Date(at).toISOString();
}
