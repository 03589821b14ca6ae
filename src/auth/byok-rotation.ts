import type { Stores } from '../store/store-contract.ts';
import { rewrap, type MasterKey } from './byok-cipher.ts';

export interface RotationResult {
  /** Keys re-sealed under the new master key. */
  resealed: number;
  /** Keys already under the new master key (a rotation run again after it succeeded). */
  alreadyNew: number;
  /** What `also` re-sealed in the same transaction (webhook signing secrets). */
  also: number;
}

export class RotationRefused extends Error {}

/**
 * Every stored BYOK key's data key re-sealed from `previous` to `next`, in one transaction:
 * all or none. A key sealed by neither (or altered) stops the rotation, naming the account
 * and provider, and nothing is changed. The keys themselves are never decrypted to text.
 * `also` re-seals other secrets the master key seals (webhooks') in the same transaction,
 * throwing RotationRefused to undo everything; it returns how many it re-sealed.
 */
export async function rotateMasterKey(
  stores: Stores,
  previous: MasterKey,
  next: MasterKey,
  also?: (tx: Stores) => Promise<number>,
): Promise<RotationResult> {
  if (previous.id === next.id) throw new RotationRefused('the old and new master keys are the same key');
  return stores.transaction(async (tx) => {
    const rows = await tx.byok.all();
    const result: RotationResult = { resealed: 0, alreadyNew: 0, also: 0 };
    for (const row of rows) {
      if (row.masterKeyId === next.id) {
        result.alreadyNew++;
        continue;
      }
      let sealed;
      try {
        sealed = rewrap(previous, next, row, row.accountId, row.provider);
      } catch {
        throw new RotationRefused(
          `the key of account ${row.accountId} for provider "${row.provider}" does not open with the old master key (sealed by ${row.masterKeyId}); nothing was changed`,
        );
      }
      if (!(await tx.byok.reseal(row.accountId, row.provider, sealed.wrappedKey, sealed.masterKeyId))) {
        throw new RotationRefused(
          `the key of account ${row.accountId} for provider "${row.provider}" changed during the rotation; nothing was changed, run it again`,
        );
      }
      result.resealed++;
    }
    if (also !== undefined) result.also = await also(tx);
    return result;
  });
}
