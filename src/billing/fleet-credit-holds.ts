import type { AuthContext } from '../auth/authenticate.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { PromptTokenBound } from '../canonical/prompt-token-bound.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Nanos } from '../money/money.ts';
import { SharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import type { Invalidation } from '../shared/invalidation-bus.ts';
import type { SettlementRecord } from '../store/ledger-store.ts';
import type { CreditHolds } from './credit-holds.ts';
import { clampZero, insufficient } from './insufficient-credits.ts';
import type { RedisCreditHolds } from './redis-credit-holds.ts';
import { worstCaseCost } from './worst-case-cost.ts';

/** What the holds hear of the settlement queue: commits move the shared snapshot, drops stop counting. */
export interface SettlementEvents {
  onCommitted(listener: (batch: readonly SettlementRecord[]) => void): void;
  onDropped(listener: (record: SettlementRecord) => void): void;
}

export interface FleetCreditHoldsOptions {
  /** The account a key belongs to (the shared snapshot is kept per account); undefined when no such key. */
  accountOf: (keyHash: string) => string | undefined | Promise<string | undefined>;
  /** Tells every instance (this one included) that cached state of a key or account is stale. */
  publish: (message: Invalidation) => Promise<void>;
  /** Operator log: outages met outside a request (a commit that could not reach Redis). */
  log: (message: string) => void;
}

/**
 * CreditHolds for a fleet: RedisCreditHolds (one Lua script per step, shared by every
 * instance) behind the pipeline's contract. A reserve that cannot reach Redis (or the
 * database behind the snapshot) rejects with SharedStateUnavailable: the request is
 * refused (503), never served unmetered. An answer already produced when Redis fails is
 * still charged — at most its hold, which was reserved for it — and its account's shared
 * snapshot is re-read from the database once Redis answers again (`repair`), so the
 * charge that Redis did not see is not spent twice.
 */
export class FleetCreditHolds implements CreditHolds {
  readonly holdRows = false;
  private readonly holds: RedisCreditHolds;
  private readonly opts: FleetCreditHoldsOptions;
  private held = 0;
  /** Settlements whose finish did not reach Redis: their accounts are re-read after the commit. */
  private readonly unsynced = new Set<string>();
  /** Accounts whose shared snapshot must be forgotten once Redis answers. */
  private readonly stale = new Set<string>();

  constructor(holds: RedisCreditHolds, settlements: SettlementEvents, opts: FleetCreditHoldsOptions) {
    this.holds = holds;
    this.opts = opts;
    settlements.onCommitted((batch) => void this.settled(batch, 'commit'));
    settlements.onDropped((record) => void this.settled([record], 'drop'));
  }

  async reserve(id: string, auth: AuthContext, req: CanonicalRequest, plan: readonly PlannedAttempt[], prompt: PromptTokenBound): Promise<Nanos> {
    const amount = worstCaseCost(req, plan, prompt.cheap);
    let tried = amount;
    const result = await this.holds.reserve(id, auth.account.id, auth.key.hash, amount, () => (tried = worstCaseCost(req, plan, prompt.tight())));
    if (result.ok) {
      if (result.heldNanos !== 0n) this.held += 1;
      return result.heldNanos;
    }
    if (result.reason === 'inactive') {
      throw new GatewayError('authentication_required', 'Authentication required: this API key or its account is no longer active.');
    }
    const needed = tried < amount ? tried : amount;
    throw insufficient(result.reason, clampZero(result.availableNanos), needed, req, plan, prompt);
  }

  async finish(id: string, accountId: string, keyHash: string, heldNanos: Nanos, costNanos: Nanos): Promise<Nanos> {
    if (heldNanos !== 0n) this.held -= 1;
    if (heldNanos === 0n && costNanos === 0n) return 0n;
    try {
      return await this.holds.finish(id, accountId, keyHash, costNanos);
    } catch (err) {
      if (!(err instanceof SharedStateUnavailable)) throw err;
      // The answer exists: charge what was reserved for it at most; the hold left in Redis
      // expires and reconciliation releases it.
      this.unsynced.add(id);
      this.opts.log(`credit hold ${id} could not be finished in Redis (${err.message}); charging at most its hold`);
      return costNanos < heldNanos ? costNanos : heldNanos;
    }
  }

  forget(keyHash?: string, accountId?: string): void {
    void this.forgetShared(keyHash, accountId).catch((err: unknown) => this.opts.log(`invalidation not published: ${(err as Error).message}`));
  }

  /** Releases the holds of instances that died (expired); run on a timer by every instance. */
  async releaseStale(): Promise<number> {
    await this.repair();
    return this.holds.reconcile();
  }

  heldFor(accountId: string): Promise<Nanos> {
    return this.holds.heldFor(accountId);
  }

  get outstanding(): number {
    return this.held;
  }

  /** Forgets the snapshots of accounts that a charge unseen by Redis moved (when Redis answers again). */
  async repair(): Promise<void> {
    for (const accountId of [...this.stale]) {
      await this.holds.forget(accountId);
      this.stale.delete(accountId);
    }
  }

  /**
   * The shared snapshot first (Redis: every instance's next reserve reads the database),
   * then the message that drops each instance's auth cache.
   */
  async forgetShared(keyHash: string | undefined, knownAccountId?: string): Promise<void> {
    if (keyHash === undefined && knownAccountId === undefined) {
      await this.opts.publish({ kind: 'all' });
      return;
    }
    const accountId = knownAccountId ?? (keyHash === undefined ? undefined : await this.opts.accountOf(keyHash));
    if (accountId !== undefined) await this.holds.forget(accountId, keyHash);
    if (keyHash === undefined) await this.opts.publish({ kind: 'account', accountId: accountId! });
    else await this.opts.publish(accountId === undefined ? { kind: 'key', keyHash } : { kind: 'key', keyHash, accountId });
  }

  private async settled(batch: readonly SettlementRecord[], how: 'commit' | 'drop'): Promise<void> {
    const byAccount = new Map<string, string[]>();
    for (const r of batch) {
      if (this.unsynced.delete(r.id) && how === 'commit' && r.costNanos !== 0n) this.stale.add(r.accountId);
      if (r.costNanos === 0n) continue;
      const ids = byAccount.get(r.accountId);
      if (ids === undefined) byAccount.set(r.accountId, [r.id]);
      else ids.push(r.id);
    }
    // Every account's report at once: one Redis round trip for the batch, not one per account.
    await Promise.all([...byAccount].map(async ([accountId, ids]) => {
      try {
        if (how === 'commit') await this.holds.committed(accountId, ids);
        else await this.holds.dropped(accountId, ids);
      } catch (err) {
        // The settling entries stay in Redis until they expire; the snapshot is read afresh then.
        this.stale.add(accountId);
        this.opts.log(`settlements of ${accountId} committed but not reported to Redis: ${(err as Error).message}`);
      }
    }));
    if (this.stale.size > 0) await this.repair().catch(() => {});
  }
}
