import { createHmac } from 'node:crypto';

/** The header each delivery carries (docs/webhooks.md shows how to check it). */
export const SIGNATURE_HEADER = 'X-Switchyard-Signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>`. */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
