import type { AuthContext } from '../auth/authenticate.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { SettlementRecord } from '../store/ledger-records.ts';
import type { InProcessHoldData, SpendState } from '../store/spend-state.ts';
import { budgetWindow } from './budgets.ts';
import type { Nanos } from '../money/money.ts';
import type { CreditHolds } from './credit-holds.ts';
import { clampZero, insufficient } from './insufficient-credits.ts';
import type { SettlementQueue } from './settlement-queue.ts';
import type { PromptTokenBound } from '../canonical/prompt-token-bound.ts';
import { periodDays, periodEnd, periodStart } from './key-limit-remaining.ts';
import { worstCaseCost } from './worst-case-cost.ts';

interface AccountSnapshot {
  balanceNanos: bigint;
  active: boolean;
  /** The account's budget and what it spent in the window [periodStart, periodEnd) (budgets.ts); null: none. */
  budget: BudgetSnapshot | null;
}

/** A budget and what its subject spent in the window [periodStart, periodEnd) (budgets.ts). */
interface BudgetSnapshot {
  amountNanos: bigint;
  usageNanos: bigint;
  periodStart: number;
  periodEnd: number;
}

interface KeySnapshot {
  accountId: string;
  /** The member the key belongs to (their budget is checked beside the account's); null: none. */
  memberId: string | null;
  /** The usage the limit caps: all of it, or (a resetting limit) since `periodStart`. */
  usageNanos: bigint;
  /** Epoch ms: the period the usage was read for ([-Infinity, +Infinity] without a reset); past its end, it is read again. */
  periodStart: number;
  periodEnd: number;
  limitNanos: bigint | null;
  active: boolean;
  /** Epoch ms; +Infinity when the key does not expire. */
  expiresAt: number;
}

/** Money an account or a key has committed but the database does not show yet. */
interface InFlight {
  /** Worst cases held for requests still running. */
  held: bigint;
  /** Charges of finished requests whose settlement has not committed yet. */
  settling: bigint;
  /** A key's entry: the member its money counts for (as the key belonged when the entry began); null: none. */
  member?: string | null;
}

/**
 * Reserve, then settle. Before the upstream call, the request's worst case is held against
 * the account balance and the key's limit; settlement charges the actual cost and releases
 * the hold. The check uses the database's balance, key usage and active flags, kept in
 * memory and moved in step with this process's own commits, minus what is in flight here;
 * JavaScript runs the check and the hold without interleaving, so parallel requests can
 * never together hold more than is there. Changes made in this process, and those another
 * connection makes (the operator CLI, noticed through SQLite's data_version), call
 * `forget`. Only one gateway process serves a database (serve-lock.ts). Hold rows are written in the settlement
 * batches, so a hold left by a process that died is found and released at the next start
 * (`releaseStale`).
 */
export class CreditReservations implements CreditHolds {
  readonly holdRows = true;
  private readonly store: InProcessHoldData;
  private readonly queue: SettlementQueue;
  private readonly holdMs: number;
  private readonly now: () => number;
  private readonly accounts = new Map<string, InFlight>();
  private readonly keys = new Map<string, InFlight>();
  /** Members' in-flight money: every key of theirs (a member's budget counts it). */
  private readonly members = new Map<string, InFlight>();
  /** The database's state as of the last read plus this process's commits since. */
  private readonly accountSnapshots = new Map<string, AccountSnapshot>();
  private readonly keySnapshots = new Map<string, KeySnapshot>();
  /** Members' budgets (null: the member has none), read with a key of theirs. */
  private readonly memberSnapshots = new Map<string, BudgetSnapshot | null>();
  private held = 0;
  /** Keys whose snapshot was read while a settlement write was in doubt (it may or may not include it). */
  private readonly readInDoubt = new Set<string>();

  constructor(store: InProcessHoldData, queue: SettlementQueue, opts: { holdMs: number; now?: () => number }) {
    this.store = store;
    this.queue = queue;
    this.holdMs = opts.holdMs;
    this.now = opts.now ?? Date.now;
    queue.onCommitted((batch) => {
      // The writes commit on another connection (the writer thread) and are heard of here
      // a moment later: a snapshot read in between may already include them, so it is not
      // moved by them but read afresh.
      for (const keyHash of this.readInDoubt) this.forget(keyHash);
      this.readInDoubt.clear();
      for (const r of batch) this.committed(r);
    });
    // A charge that can never be written stops counting as in flight (the database never saw it).
    queue.onDropped((r) => {
      drop(this.accounts, r.accountId, r.costNanos);
      this.dropKey(r.keyHash, r.costNanos);
    });
  }

  /** Holds the request's worst-case cost; returns the amount held, or throws 402 (or 401). */
  reserve(id: string, auth: AuthContext, req: CanonicalRequest, plan: readonly PlannedAttempt[], prompt: PromptTokenBound): Nanos {
    let amount = worstCaseCost(req, plan, prompt.cheap);
    const now = this.now();
    const snap = this.snapshot(auth.key.hash, auth.account.id);
    if (snap === undefined || !snap.key.active || !snap.account.active || snap.key.expiresAt <= now) {
      throw new GatewayError('authentication_required', 'Authentication required: this API key or its account is no longer active.');
    }
    const account = inFlight(this.accounts, auth.account.id);
    const key = inFlight(this.keys, auth.key.hash);
    key.member ??= snap.key.memberId;
    const member = key.member === null ? null : inFlight(this.members, key.member);
    const balance = snap.account.balanceNanos - account.settling;
    const accountAvailable = balance - account.held;
    const keyRoom = snap.key.limitNanos === null ? null : snap.key.limitNanos - snap.key.usageNanos - key.settling - key.held;
    const budget = snap.account.budget;
    // The account's budget counts every key's holds and charges: the account's in-flight money.
    const budgetRoom = budget === null ? null : budget.amountNanos - budget.usageNanos - account.settling - account.held;
    // The member's budget counts every key of theirs.
    const memberBudget = snap.member;
    const memberRoom =
      memberBudget === null || member === null ? null : memberBudget.amountNanos - memberBudget.usageNanos - member.settling - member.held;
    // The cheap prompt bound (bytes) when its hold fits; the tokenizer's when it matters
    // (not when nothing is left: a used-up balance is refused without tokenizing).
    let room = keyRoom !== null && keyRoom < accountAvailable ? keyRoom : accountAvailable;
    if (budgetRoom !== null && budgetRoom < room) room = budgetRoom;
    if (memberRoom !== null && memberRoom < room) room = memberRoom;
    if (amount > room && room > 0n) amount = worstCaseCost(req, plan, prompt.tight());
    // A zero or negative balance refuses every request, free models included (spec).
    if (balance <= 0n || accountAvailable < amount) {
      throw insufficient('balance', clampZero(accountAvailable), amount, req, plan, prompt);
    }
    if (keyRoom !== null && (keyRoom <= 0n || keyRoom < amount)) {
      throw insufficient('key_limit', clampZero(keyRoom < accountAvailable ? keyRoom : accountAvailable), amount, req, plan, prompt);
    }
    if (budgetRoom !== null && (budgetRoom <= 0n || budgetRoom < amount)) {
      throw insufficient('budget', clampZero(budgetRoom < accountAvailable ? budgetRoom : accountAvailable), amount, req, plan, prompt);
    }
    if (memberRoom !== null && (memberRoom <= 0n || memberRoom < amount)) {
      throw insufficient(
        'member_budget',
        clampZero(memberRoom < accountAvailable ? memberRoom : accountAvailable),
        amount,
        req,
        plan,
        prompt,
      );
    }
    if (amount === 0n) return 0n; // a free model: checked, nothing to hold
    account.held += amount;
    key.held += amount;
    if (member !== null) member.held += amount;
    this.held += 1;
    this.queue.pushHold({
      id,
      accountId: auth.account.id,
      keyHash: auth.key.hash,
      amountNanos: amount,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.holdMs).toISOString(),
    });
    return amount;
  }

  /**
   * The overshoot rule: what to charge an answer that cost `costNanos` against its hold of
   * `heldNanos`. Within the hold, the cost. Beyond it, the cost when the account balance
   * and the key's limit have room for it beside what other requests hold and are settling;
   * otherwise its hold plus what is left, never below zero (the rest is written off, the
   * gateway's loss). So no number of concurrent answers can take a balance or a key's
   * limit below zero. Call right before `settling`, in the same tick.
   */
  chargeable(accountId: string, keyHash: string, heldNanos: bigint, costNanos: bigint): bigint {
    if (costNanos <= heldNanos) return costNanos;
    const snap = this.snapshot(keyHash, accountId);
    if (snap === undefined) return heldNanos;
    const account = inFlight(this.accounts, accountId);
    const key = inFlight(this.keys, keyHash);
    let room = snap.account.balanceNanos - account.settling - (account.held - heldNanos);
    if (snap.key.limitNanos !== null) {
      const keyRoom = snap.key.limitNanos - snap.key.usageNanos - key.settling - (key.held - heldNanos);
      if (keyRoom < room) room = keyRoom;
    }
    const budget = snap.account.budget;
    if (budget !== null) {
      const budgetRoom = budget.amountNanos - budget.usageNanos - account.settling - (account.held - heldNanos);
      if (budgetRoom < room) room = budgetRoom;
    }
    const memberId = key.member ?? null;
    const memberBudget = snap.member;
    const member = memberId === null ? undefined : this.members.get(memberId);
    if (memberBudget !== null && member !== undefined) {
      const memberRoom = memberBudget.amountNanos - memberBudget.usageNanos - member.settling - (member.held - heldNanos);
      if (memberRoom < room) room = memberRoom;
    }
    // What was held was reserved for this answer: it is always chargeable.
    if (room < heldNanos) room = heldNanos;
    return costNanos < room ? costNanos : room;
  }

  /** `chargeable` then `settling`, in one step (CreditHolds). */
  finish(_id: string, accountId: string, keyHash: string, heldNanos: bigint, costNanos: bigint): bigint {
    const charge = this.chargeable(accountId, keyHash, heldNanos, costNanos);
    this.settling(accountId, keyHash, heldNanos, charge);
    if (heldNanos !== 0n) this.held -= 1;
    return charge;
  }

  get outstanding(): number {
    return this.held;
  }

  /** The request finished: its hold becomes its actual charge until the charge commits. */
  settling(accountId: string, keyHash: string, heldNanos: bigint, costNanos: bigint): void {
    const key = inFlight(this.keys, keyHash);
    const member = key.member === undefined || key.member === null ? [] : [inFlight(this.members, key.member)];
    for (const f of [inFlight(this.accounts, accountId), key, ...member]) {
      f.held -= heldNanos;
      f.settling += costNanos;
    }
  }

  /** Something about this key or its account changed in this process: read it afresh next time. */
  forget(keyHash?: string): void {
    if (keyHash === undefined) {
      this.accountSnapshots.clear();
      this.keySnapshots.clear();
      this.memberSnapshots.clear();
    } else {
      const key = this.keySnapshots.get(keyHash);
      this.keySnapshots.delete(keyHash);
      if (key !== undefined) this.accountSnapshots.delete(key.accountId);
      if (key?.memberId !== null && key?.memberId !== undefined) this.memberSnapshots.delete(key.memberId);
    }
  }

  /** Releases hold rows whose requests can no longer settle. `all` at the start of the only process. */
  releaseStale(all: boolean): number {
    const nowIso = new Date(this.now()).toISOString();
    return this.store.releaseStale(all ? null : nowIso, nowIso).length;
  }

  /** What this process holds for an account right now (for the key status record). */
  heldFor(accountId: string): bigint {
    const f = this.accounts.get(accountId);
    return f === undefined ? 0n : f.held + f.settling;
  }

  private snapshot(
    keyHash: string,
    accountId: string,
  ): { key: KeySnapshot; account: AccountSnapshot; member: BudgetSnapshot | null } | undefined {
    let key = this.keySnapshots.get(keyHash);
    let account = this.accountSnapshots.get(accountId);
    let member = key?.memberId === null || key?.memberId === undefined ? null : this.memberSnapshots.get(key.memberId);
    const now = this.now();
    if (
      key === undefined ||
      account === undefined ||
      member === undefined ||
      now >= key.periodEnd ||
      (account.budget !== null && now >= account.budget.periodEnd) ||
      (member !== null && now >= member.periodEnd)
    ) {
      const state = this.store.spendState(keyHash);
      if (state === undefined) return undefined;
      const reset = state.limitReset ?? null;
      key = {
        accountId,
        memberId: state.memberId ?? null,
        usageNanos: reset === null ? state.usageNanos : this.store.keyCostOnDays(accountId, keyHash, periodDays(reset, now)),
        periodStart: reset === null ? Number.NEGATIVE_INFINITY : periodStart(reset, now),
        periodEnd: reset === null ? Number.POSITIVE_INFINITY : periodEnd(reset, now),
        limitNanos: state.limitNanos,
        active: state.keyActive,
        expiresAt: state.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(state.expiresAt),
      };
      account = { balanceNanos: state.balanceNanos, active: state.accountActive, budget: this.budgetOf(accountId, state, now) };
      member = this.memberBudgetOf(state, now);
      this.keySnapshots.set(keyHash, key);
      this.accountSnapshots.set(accountId, account);
      if (key.memberId !== null) this.memberSnapshots.set(key.memberId, member);
      if (this.queue.inDoubt) this.readInDoubt.add(keyHash);
    }
    return { key, account, member };
  }

  private memberBudgetOf(state: SpendState, now: number): BudgetSnapshot | null {
    const memberId = state.memberId ?? null;
    const amount = state.memberBudgetNanos ?? null;
    if (memberId === null || amount === null) return null;
    const reset = state.memberBudgetReset ?? null;
    const [start, end] = budgetWindow(reset, now);
    return {
      amountNanos: amount,
      usageNanos: this.store.memberCostOnDays(memberId, reset === null ? null : periodDays(reset, now)),
      periodStart: start,
      periodEnd: end,
    };
  }

  private budgetOf(accountId: string, state: SpendState, now: number): AccountSnapshot['budget'] {
    const amount = state.budgetNanos ?? null;
    if (amount === null) return null;
    const reset = state.budgetReset ?? null;
    const [start, end] = budgetWindow(reset, now);
    return {
      amountNanos: amount,
      usageNanos: this.store.accountCostOnDays(accountId, reset === null ? null : periodDays(reset, now)),
      periodStart: start,
      periodEnd: end,
    };
  }

  private committed(r: SettlementRecord): void {
    drop(this.accounts, r.accountId, r.costNanos);
    const memberId = this.dropKey(r.keyHash, r.costNanos);
    if (r.costNanos === 0n) return;
    const member = memberId === null ? undefined : this.memberSnapshots.get(memberId);
    if (member !== undefined && member !== null && Date.parse(r.createdAt) >= member.periodStart) member.usageNanos += r.costNanos;
    const key = this.keySnapshots.get(r.keyHash);
    // A charge of a request begun before the period does not count in it (the rollup puts it on its own day).
    if (key !== undefined && Date.parse(r.createdAt) >= key.periodStart) key.usageNanos += r.costNanos;
    const account = this.accountSnapshots.get(r.accountId);
    if (account !== undefined) {
      account.balanceNanos -= r.costNanos;
      if (account.budget !== null && Date.parse(r.createdAt) >= account.budget.periodStart) account.budget.usageNanos += r.costNanos;
    }
  }

  /** A key's charge is in the database now (or never will be): it stops counting for the key and its member. Returns the member. */
  private dropKey(keyHash: string, cost: bigint): string | null {
    const member = this.keys.get(keyHash)?.member ?? null;
    drop(this.keys, keyHash, cost);
    if (member !== null) drop(this.members, member, cost);
    return member;
  }
}

function inFlight(map: Map<string, InFlight>, id: string): InFlight {
  let f = map.get(id);
  if (f === undefined) {
    f = { held: 0n, settling: 0n };
    map.set(id, f);
  }
  return f;
}

/** The charge is in the database now (or never will be); forget entries that carry nothing. */
function drop(map: Map<string, InFlight>, id: string, cost: bigint): void {
  const f = map.get(id);
  if (f === undefined) return;
  f.settling -= cost;
  if (f.held === 0n && f.settling === 0n) map.delete(id);
}
