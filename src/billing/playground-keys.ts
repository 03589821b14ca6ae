import type { KeyRecord } from '../store/account-records.ts';
import type { Stores } from '../store/store-contract.ts';
import type { AccountService } from './account-service.ts';

// The dashboard's playground calls models like any client, with an API key of the
// account: a key it makes for itself, marked as the playground's (`is_playground`),
// expiring within minutes and limited to a small amount, so none it leaves behind is
// worth anything. It removes only keys with that mark (expired ones, and the oldest beyond
// a few), never a key the account made, whatever its name.

export const PLAYGROUND_KEY_NAME = 'dashboard playground';
/** How long a playground key lives: the page asks for a new one when it has expired. */
export const PLAYGROUND_KEY_TTL_MS = 15 * 60_000;
/** What a playground key may spend at most (USD). */
export const PLAYGROUND_KEY_LIMIT_USD = '1';
/** Playground keys an account holds at most (several open pages each keep one). */
export const PLAYGROUND_KEYS_PER_ACCOUNT = 5;

export interface MintedPlaygroundKey {
  key: string;
  record: KeyRecord;
  /** The playground's own keys removed to make room: expired, or the oldest beyond the cap. */
  removed: KeyRecord[];
}

/** Makes a playground key for the account, in `tx` (one transaction with the removal of the old ones). */
export async function mintPlaygroundKey(service: AccountService, tx: Stores, accountId: string, now: Date): Promise<MintedPlaygroundKey> {
  const own = (await tx.accounts.listKeys(accountId)).filter((k) => k.isPlayground);
  const expired = own.filter((k) => k.expiresAt !== null && Date.parse(k.expiresAt) <= now.getTime());
  const live = own.filter((k) => !expired.includes(k));
  // listKeys is in creation order: the oldest live ones go first.
  const removed = [...expired, ...live.slice(0, Math.max(0, live.length - (PLAYGROUND_KEYS_PER_ACCOUNT - 1)))];
  for (const k of removed) await tx.accounts.deleteKey(k.hash);
  const { key, record } = await service.within(tx).createKey({
    accountId,
    name: PLAYGROUND_KEY_NAME,
    limitUsd: PLAYGROUND_KEY_LIMIT_USD,
    expiresAt: new Date(now.getTime() + PLAYGROUND_KEY_TTL_MS).toISOString(),
    playground: true,
  });
  return { key, record, removed };
}
