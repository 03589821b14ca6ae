import { ByokKeys } from '../auth/byok-keys.ts';
import { MasterKey } from '../auth/byok-cipher.ts';
import { ConfigError } from '../config/config-error.ts';
import { resolveSecretRef } from '../config/secret-ref.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { Stores } from '../store/store-contract.ts';

/**
 * The master key `byok.master_key` names, read once at start (a change takes
 * `switchyard byok rotate-master-key`, then a restart); null when none is configured. A
 * reference that does not resolve, or to something that is not 32 bytes, stops the start.
 */
export function masterKeyFromRef(ref: string | null, env: Record<string, string | undefined>, path = 'byok.master_key'): MasterKey | null {
  if (ref === null) return null;
  const key = MasterKey.parse(resolveSecretRef(ref, path, env));
  if (key === null)
    throw new ConfigError(
      path,
      `${ref} does not hold a 256-bit key: give 32 random bytes as 64 hex digits or base64 (e.g. openssl rand -base64 32)`,
    );
  return key;
}

/** `config` is read per request (a reload may change the fee). */
export function buildByok(
  master: MasterKey | null,
  config: () => GatewayConfig,
  stores: Stores,
  opts: { now?: () => number; log: (m: string) => void; emit: (accountId: string, data: Record<string, unknown>) => void },
): ByokKeys {
  return new ByokKeys(stores, master, () => config().byok.feeBasisPoints, {
    ...(opts.now === undefined ? {} : { now: opts.now }),
    log: opts.log,
    onRejected: (accountId, provider, status, at) => opts.emit(accountId, { account_id: accountId, provider, upstream_status: status, at }),
  });
}
