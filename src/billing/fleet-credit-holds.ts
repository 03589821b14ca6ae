import type { AuthContext } from '../auth/authenticate.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { PromptTokenBound } from '../canonical/prompt-token-bound.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Nanos } from '../money/money.ts';
import { SharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import type { Invalidation } from '../shared/invalidation-bus.ts';
import type { HoldRecord, SettlementRecord } from '../store/ledger-records.ts';
import type { CreditHolds } from './credit-holds.ts';
import { clampZero, insufficient } from './insufficient-credits.ts';
import type { RedisCreditHolds } from './redis-credit-holds.ts';
import { worstCaseCost } from './worst-case-cost.ts';

/**
 * Durable rows of the holds (the fleet's database `reservations` table), so that the requests
 * of an instance that died are found and recorded as `interrupted`, as SQLite's start-up
 * sweep does for a single process.
 */
export interface DurableHoldRows {
  /** How long a hold lives (the request deadline plus a grace): its row expires then. */
  holdMs: number;
  /** Queues a hold's row (the settlement queue's group commit; never written when settled first). */
  write(hold: HoldRecord): void;
  /** Removes the rows expired before `beforeIso`, each leaving an `interrupted` record; returns how many. */
  releaseStale(beforeIso: string, nowIso: string): Promise<number>;
}

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
  /** The holds' durable rows; absent: none written (Redis alone knows the holds). */
  rows?: DurableHoldRows;
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
  private readonly holds: RedisCreditHolds;
  private readonly opts: FleetCreditHoldsOptions;
  private held = 0;
  /** Settlements whose finish did not reach Redis: their accounts are re-read after the commit. */
  private readonly unsynced = new Set<string>();
  /** Accounts whose shared snapshot must be forgotten once Redis answers. */
  private readonly stale = new Set<string>();

  /** On Postgres the holds have durable rows too (an instance that dies leaves interrupted records); else Redis alone knows them. */
  readonly holdRows: boolean;

  constructor(holds: RedisCreditHolds, settlements: SettlementEvents, opts: FleetCreditHoldsOptions) {
    this.holds = holds;
    this.opts = opts;
    this.holdRows = opts.rows !== undefined;
    settlements.onCommitted((batch) => void this.settled(batch, 'commit'));
    settlements.onDropped((record) => void this.settled([record], 'drop'));
  }

  async reserve(
    id: string,
    auth: AuthContext,
    req: CanonicalRequest,
    plan: readonly PlannedAttempt[],
    prompt: PromptTokenBound,
  ): Promise<Nanos> {
    const amount = worstCaseCost(req, plan, prompt.cheap);
    let tried = amount;
    const result = await this.holds.reserve(
      id,
      auth.account.id,
      auth.key.hash,
      amount,
      () => (tried = worstCaseCost(req, plan, prompt.tight())),
    );
    if (result.ok) {
      if (result.heldNanos !== 0n) {
        this.held += 1;
        const rows = this.opts.rows;
        if (rows !== undefined) {
          const now = Date.now();
          rows.write({
            id,
            accountId: auth.account.id,
            keyHash: auth.key.hash,
            amountNanos: result.heldNanos,
            createdAt: new Date(now).toISOString(),
            expiresAt: new Date(now + rows.holdMs).toISOString(),
          });
        }
      }
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
    void this.forgetShared(keyHash, accountId).catch((err: unknown) =>
      this.opts.log(`invalidation not published: ${(err as Error).message}`),
    );
  }

  /**
   * Releases the holds of instances that died (expired); run on a timer by every instance.
   * Their durable rows go too, each request recorded as `interrupted` (logged here; the
   * count returned is of the Redis holds released).
   */
  async releaseStale(): Promise<number> {
    await this.repair();
    const released = await this.holds.reconcile();
    if (this.opts.rows !== undefined) {
      const nowIso = new Date().toISOString();
      const recorded = await this.opts.rows.releaseStale(nowIso, nowIso);
      if (recorded > 0)
        this.opts.log(
          `recorded ${recorded} request(s) of a stopped gateway instance as interrupted (their holds expired; nothing charged)`,
        );
    }
    return released;
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
    const byAccount = new Map<string, SettlementRecord[]>();
    for (const r of batch) {
      if (this.unsynced.delete(r.id) && how === 'commit' && r.costNanos !== 0n) this.stale.add(r.accountId);
      if (r.costNanos === 0n) continue;
      const records = byAccount.get(r.accountId);
      if (records === undefined) byAccount.set(r.accountId, [r]);
      else records.push(r);
    }
    // Every account's report at once: one Redis round trip for the batch, not one per account.
    await Promise.all(
      [...byAccount].map(async ([accountId, records]) => {
        try {
          // Each charge with when its request began: it counts in a key's period only if begun within it.
          if (how === 'commit') await this.holds.committed(accountId, records);
          else
            await this.holds.dropped(
              accountId,
              records.map((r) => r.id),
            );
        } catch (err) {
          // The settling entries stay in Redis until they expire; the snapshot is read afresh then.
          this.stale.add(accountId);
          this.opts.log(`settlements of ${accountId} committed but not reported to Redis: ${(err as Error).message}`);
        }
      }),
    );
    if (this.stale.size > 0) await this.repair().catch(() => {});
  }
}
