import type { CredentialPool, PickedCredential } from '../catalog/credential-pool.ts';
import type { Endpoint } from '../catalog/types.ts';
import type { AttemptRun } from './attempt-run.ts';

/**
 * What one attempt taught of the pooled credential it carried: the upstream's rate-limit
 * headers and the tokens used update its headroom; a 429 (rate or quota) cools it down for
 * the upstream's `retry-after` (bounded, credential-pool.ts); a 401/403 takes it out until
 * the next reload, with an alert line that names its label (never the key). True when the
 * failure was the credential's, not the endpoint's: another credential may succeed.
 */
export function settleCredential(
  pool: CredentialPool,
  credential: PickedCredential,
  run: AttemptRun,
  endpoint: Endpoint,
  now: number,
  log: (message: string) => void,
): boolean {
  if (run.upstreamHeaders !== undefined) pool.observeHeaders(credential.label, run.upstreamHeaders, now);
  if (run.totalTokens > 0) pool.addTokens(credential.label, run.totalTokens, now);
  if (run.error === null) return false;
  const where = `credential "${credential.label}" of provider "${endpoint.provider.id}"`;
  if (run.status === 429) {
    const seconds = run.error.metadata?.retry_after_seconds;
    const ms = pool.coolDown(credential.label, typeof seconds === 'number' ? seconds * 1000 : undefined, now);
    log(`${where} was rate limited by the upstream (429): cooling down for ${Math.round(ms / 1000)} s`);
    return true;
  }
  if (run.status === 401 || run.status === 403) {
    pool.remove(credential.label, `upstream answered ${run.status}`);
    log(`ALERT: ${where} was refused by the upstream (${run.status}): taken out until the next reload; check or replace it`);
    return true;
  }
  return false;
}
