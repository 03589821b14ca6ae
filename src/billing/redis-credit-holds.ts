import type { LoadedSpendState, PeriodDays } from '../store/spend-state.ts';
import type { RedisConnection } from '../shared/redis/redis-connection.ts';
import { SharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import type { Nanos } from '../money/money.ts';
import { periodDays, periodEnd, periodStart } from './key-limit-remaining.ts';
import { CHARGEABLE, FINISH, FORGET, INDEX_AFTER_RECONCILE, LOAD, RECONCILE, RESERVE, SETTLED } from './redis-credit-hold-scripts.ts';

export type { LoadedSpendState, PeriodDays };

/**
 * Reads a key's spend state and, in the same database snapshot, the usage its limit caps
 * (with a reset: over the days `periodDays` gives for it, the period in force by the holds'
 * clock) and which of `settlingIds` are already charged in the ledger (Postgres: one
 * REPEATABLE READ transaction). Undefined: no such key.
 */
export type SpendStateLoader = (
  accountId: string,
  keyHash: string,
  settlingIds: readonly string[],
  periodDays: PeriodDays,
) => Promise<LoadedSpendState | undefined>;

/** A settlement that committed: its generation id and when its request began (ISO; the day its charge counts on). */
export interface CommittedCharge {
  id: string;
  createdAt: string;
}

export type ReserveResult =
  | { ok: true; heldNanos: Nanos }
  | { ok: false; reason: 'balance' | 'key_limit' | 'budget' | 'member_budget'; availableNanos: Nanos }
  | { ok: false; reason: 'inactive' };

export interface RedisCreditHoldsOptions {
  loader: SpendStateLoader;
  /** This instance's id, written on its holds (which instance a hold belongs to). */
  instanceId: string;
  /** A hold not finished within this long is abandoned (its instance died) and released by `reconcile`. */
  holdMs: number;
  /** A finished charge not committed within this long is dropped and the balance re-read from the database. */
  settleMs: number;
  /** A snapshot older than this is re-read from the database even without a `forget`. Default 60 s. */
  maxSnapshotAgeMs?: number;
  /** The caller's clock (tests); by default Redis's TIME, one clock for every instance. */
  now?: () => number;
  prefix?: string;
}

/** Lua works in doubles: figures past 2^53 nano-USD (about $9M) would round, so they are refused. */
const EXACT = 2n ** 53n;
const MAX_LOAD_ATTEMPTS = 8;

/**
 * Credit holds shared by every gateway instance: CreditReservations' rules (the worst case
 * held against the balance and the key's limit; finished charges counted as settling until
 * their database write commits; the overshoot rule) with the in-flight money in Redis, each
 * step one Lua script, so N concurrent requests spread over any number of instances never
 * together hold more than the balance. The database's balance, key usage and flags are
 * cached in Redis as a snapshot that commits move; a missing or stale snapshot makes the
 * caller load it through `loader` and retry. Holds of an instance that died expire and
 * `reconcile` releases them. Every call rejects with SharedStateUnavailable when Redis cannot
 * answer: the caller fails closed.
 */
export class RedisCreditHolds {
  private readonly conn: RedisConnection;
  private readonly opts: RedisCreditHoldsOptions;
  private readonly prefix: string;

  constructor(conn: RedisConnection, opts: RedisCreditHoldsOptions) {
    this.conn = conn;
    this.opts = opts;
    this.prefix = opts.prefix ?? 'sy:ch';
  }

  /**
   * Holds `amount` for request `id`. `tighter`: a smaller worst case to try when `amount`
   * does not fit but something is left (the tokenizer's prompt bound, as CreditReservations does).
   */
  async reserve(id: string, accountId: string, keyHash: string, amount: Nanos, tighter?: () => Nanos): Promise<ReserveResult> {
    const first = await this.reserveOnce(id, accountId, keyHash, amount);
    if (first.ok || first.reason === 'inactive' || first.availableNanos <= 0n || tighter === undefined) return first;
    const tight = tighter();
    return tight < amount ? this.reserveOnce(id, accountId, keyHash, tight) : first;
  }

  /** The overshoot rule, read only (`finish` applies it atomically with the release). */
  async chargeable(accountId: string, keyHash: string, heldNanos: Nanos, costNanos: Nanos): Promise<Nanos> {
    return BigInt(await CHARGEABLE.run<string>(this.conn, this.keys(accountId), [keyHash, String(heldNanos), String(costNanos)]));
  }

  /**
   * The request ended with cost `costNanos`: its hold is released and what it may be charged
   * (the overshoot rule) counts as settling until `committed`. Returns the amount to charge.
   * A cost of 0 releases the hold (a failed request).
   */
  async finish(id: string, accountId: string, keyHash: string, costNanos: Nanos): Promise<Nanos> {
    const args = [this.nowArg(), id, keyHash, String(costNanos), this.opts.instanceId, String(this.opts.settleMs)];
    return BigInt(await FINISH.run<string>(this.conn, this.keys(accountId), args));
  }

  /** Releases a hold without charging (the request failed before any cost). */
  async release(id: string, accountId: string, keyHash: string): Promise<void> {
    await this.finish(id, accountId, keyHash, 0n);
  }

  /**
   * These settlements committed to the database: the snapshot's balance moves, and its key
   * usage when the request began within the snapshot's reset period (a charge counts on the
   * day its request began, as the rollups put it); the settling amounts go.
   */
  async committed(accountId: string, charges: readonly CommittedCharge[]): Promise<void> {
    await SETTLED.run<string>(this.conn, this.keys(accountId), [
      'commit',
      ...charges.flatMap((c) => [c.id, String(Date.parse(c.createdAt))]),
    ]);
  }

  /** These settlements can never be written: they stop counting, the balance does not move. */
  async dropped(accountId: string, ids: readonly string[]): Promise<void> {
    await SETTLED.run<string>(this.conn, this.keys(accountId), ['drop', ...ids.flatMap((id) => [id, ''])]);
  }

  /** The database changed for this account (or one of its keys): every instance reads it afresh. */
  async forget(accountId: string, keyHash?: string): Promise<void> {
    await FORGET.run<string>(this.conn, this.keys(accountId), [keyHash ?? '']);
  }

  /** Held plus settling for an account, across every instance. */
  async heldFor(accountId: string): Promise<Nanos> {
    const [held, settling] = await this.conn.send<Array<string | null>>(['HMGET', this.keys(accountId)[0]!, 'held', 'settling']);
    return BigInt(held ?? '0') + BigInt(settling ?? '0');
  }

  /**
   * Releases the entries of instances that died (expired), for every account due; returns
   * how many. Run by every instance on a timer: each step is atomic, so running twice is harmless.
   */
  async reconcile(): Promise<number> {
    const now = this.opts.now === undefined ? await this.redisNow() : String(this.opts.now());
    const due = await this.conn.send<string[]>(['ZRANGEBYSCORE', this.indexKey(), '-inf', now, 'LIMIT', '0', '500']);
    let released = 0;
    for (const accountId of due) {
      const [count, next] = await RECONCILE.run<[string, string]>(this.conn, this.keys(accountId), [now]);
      released += Number(count);
      await INDEX_AFTER_RECONCILE.run<number>(this.conn, [this.indexKey()], [now, accountId, next]);
    }
    return released;
  }

  private async reserveOnce(id: string, accountId: string, keyHash: string, amount: Nanos): Promise<ReserveResult> {
    const keys = this.keys(accountId);
    for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt++) {
      const now = this.nowArg();
      // Indexed before the hold exists, so a hold is never left where reconciliation cannot
      // find it: the ZADD and the script go out together (one round trip), and Redis runs a
      // connection's commands in the order they were sent.
      const dueAt = (now === '' ? Date.now() : Number(now)) + this.opts.holdMs;
      const args = [
        now,
        id,
        keyHash,
        String(amount),
        this.opts.instanceId,
        String(this.opts.holdMs),
        String(this.opts.maxSnapshotAgeMs ?? 60_000),
      ];
      const [indexed, reserved] = await Promise.allSettled([
        this.conn.send(['ZADD', this.indexKey(), 'LT', String(dueAt), accountId]),
        RESERVE.run<string[]>(this.conn, keys, args),
      ]);
      if (indexed.status === 'rejected') {
        // Not indexed: a hold the script took anyway is released now. (If Redis fails that too,
        // the account's next reserve indexes it again and reconciliation finds the hold then.)
        if (reserved.status === 'fulfilled' && reserved.value[0] === 'ok') await this.finish(id, accountId, keyHash, 0n).catch(() => {});
        throw indexed.reason;
      }
      if (reserved.status === 'rejected') throw reserved.reason;
      const reply = reserved.value;
      switch (reply[0]) {
        case 'ok':
          return { ok: true, heldNanos: BigInt(reply[1]!) };
        case 'inactive':
          return { ok: false, reason: 'inactive' };
        case 'balance':
        case 'key_limit':
        case 'budget':
        case 'member_budget':
          return { ok: false, reason: reply[0], availableNanos: BigInt(reply[1]!) };
        case 'load': {
          // The script's clock decides the period the snapshot is loaded for.
          const at = Number(reply[2]);
          const state = await this.opts.loader(accountId, keyHash, reply.slice(3), (reset) => periodDays(reset, at));
          if (state === undefined) return { ok: false, reason: 'inactive' };
          await this.load(keys, reply[1]!, keyHash, state, at);
          continue;
        }
        default:
          throw new Error(`unexpected reply from the reserve script: ${reply[0]}`);
      }
    }
    throw new SharedStateUnavailable('redis', `the credit snapshot of account ${accountId} kept changing while it was loaded`);
  }

  /** Stores the loaded state; `at` (epoch ms) is the clock reading its reset period was read for. */
  private async load(keys: string[], seq: string, keyHash: string, s: LoadedSpendState, at: number): Promise<void> {
    const budget = s.budgetNanos ?? null;
    const budgetReset = s.budgetReset ?? null;
    const memberId = s.memberId ?? null;
    const memberBudget = memberId === null ? null : (s.memberBudgetNanos ?? null);
    const memberReset = s.memberBudgetReset ?? null;
    for (const v of [
      s.balanceNanos,
      s.limitUsageNanos,
      s.limitNanos ?? 0n,
      budget ?? 0n,
      s.budgetUsageNanos ?? 0n,
      memberBudget ?? 0n,
      s.memberBudgetUsageNanos ?? 0n,
    ]) {
      if (v >= EXACT || v <= -EXACT)
        throw new RangeError(`a balance, usage or limit of ${v} nano-USD is beyond what the shared credit holds count exactly (2^53)`);
    }
    const expires = s.expiresAt === null ? '' : String(Date.parse(s.expiresAt));
    const reset = s.limitReset;
    await LOAD.run<string>(this.conn, keys, [
      seq,
      this.nowArg(),
      keyHash,
      String(s.balanceNanos),
      s.accountActive ? '1' : '0',
      String(s.limitUsageNanos),
      s.limitNanos === null ? '' : String(s.limitNanos),
      s.keyActive ? '1' : '0',
      expires,
      reset === null ? '' : String(periodStart(reset, at)),
      reset === null ? '' : String(periodEnd(reset, at)),
      budget === null ? '' : String(budget),
      String(s.budgetUsageNanos ?? 0n),
      budget === null || budgetReset === null ? '' : String(periodStart(budgetReset, at)),
      budget === null || budgetReset === null ? '' : String(periodEnd(budgetReset, at)),
      memberId ?? '',
      memberBudget === null ? '' : String(memberBudget),
      String(s.memberBudgetUsageNanos ?? 0n),
      memberBudget === null || memberReset === null ? '' : String(periodStart(memberReset, at)),
      memberBudget === null || memberReset === null ? '' : String(periodEnd(memberReset, at)),
      ...s.committedIds,
    ]);
  }

  private async redisNow(): Promise<string> {
    const [sec, micro] = await this.conn.send<[string, string]>(['TIME']);
    return String(Number(sec) * 1000 + Math.floor(Number(micro) / 1000));
  }

  private nowArg(): string {
    return this.opts.now === undefined ? '' : String(this.opts.now());
  }

  private keys(accountId: string): string[] {
    const tag = `${this.prefix}:{${accountId}}`;
    return [`${tag}:account`, `${tag}:entries`, `${tag}:expiry`];
  }

  private indexKey(): string {
    return `${this.prefix}:index`;
  }
}
