import { setTimeout as pause } from 'node:timers/promises';
import type { GatewayConfig } from '../config/types.ts';
import type { AccountRecord } from '../store/account-records.ts';
import type { PruneCutoff, PruneStep } from '../store/record-pruning.ts';

// Generation records past their retention are deleted by this job, off the request path: a
// pass every `records.prune_interval_minutes`, and on demand (POST /admin/generations/prune).
// An account's retention is its own (`retention_days`, admin API), else its tier's
// (`tiers.<id>.retention_days`), else `records.retention_days`; none of them: kept forever.
// What billing and the charts read is not touched: the ledger, the balances and the daily
// rollups (usage_daily*) are tables of their own, never derived from records afterwards.
//
// A pass runs in small steps (record-pruner.ts), each one short transaction; between steps
// the settlements have the database. The step's size adapts so that a step holds the write
// lock about STEP_TARGET_MS: halved when a step took longer, doubled when it took under half.

const DAY_MS = 86_400_000;
const MAX_STEP_ROWS = 1000;
const MIN_STEP_ROWS = 25;
const STEP_TARGET_MS = 1;
const PAUSE_MS = 2;
/** The first step's rows: small, since a step of 1,000 takes some 30 ms on a busy 2-core machine. */
const FIRST_STEP_ROWS = 100;

export interface RetentionDeps {
  listAccounts(): Promise<AccountRecord[]>;
  /** One step (SQLite: on the writer thread). */
  step(cutoffs: readonly PruneCutoff[], start: number, limit: number): Promise<PruneStep>;
  config(): GatewayConfig;
  now(): number;
  log(message: string): void;
}

export interface PruneResult {
  /** Records deleted. */
  deleted: number;
  /** Accounts with a retention (their records older than it looked for). */
  accounts: number;
  /** Steps (transactions) the pass took, and the longest one's and all of them together's write lock, ms. */
  steps: number;
  maxStepMs: number;
  totalStepMs: number;
}

/** The days an account's records are kept, or null for forever. */
export function retentionDaysOf(
  account: Pick<AccountRecord, 'tier' | 'retentionDays'>,
  config: Pick<GatewayConfig, 'tiers' | 'records'>,
): number | null {
  if (account.retentionDays !== null) return account.retentionDays;
  const tier = config.tiers.find((t) => t.id === account.tier);
  return tier?.retentionDays ?? config.records.retentionDays;
}

export function retentionCutoffs(
  accounts: readonly AccountRecord[],
  config: Pick<GatewayConfig, 'tiers' | 'records'>,
  nowMs: number,
): PruneCutoff[] {
  const out: PruneCutoff[] = [];
  for (const a of accounts) {
    const days = retentionDaysOf(a, config);
    if (days !== null) out.push({ accountId: a.id, beforeMs: nowMs - days * DAY_MS });
  }
  return out;
}

export class RecordsRetention {
  private readonly deps: RetentionDeps;
  private running: Promise<PruneResult> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private stepRows = FIRST_STEP_ROWS;

  constructor(deps: RetentionDeps) {
    this.deps = deps;
  }

  /** Passes every `intervalMs` from now on (the first after one interval). */
  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      if (this.running === null) this.runOnce().catch((err: unknown) => this.deps.log(`records pruning failed: ${(err as Error).message}`));
    }, intervalMs);
    this.timer.unref();
  }

  /** One whole pass (a pass already running: its result). */
  runOnce(): Promise<PruneResult> {
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** No new step starts; resolves once the step in progress ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    await this.running?.catch(() => {});
  }

  private async pass(): Promise<PruneResult> {
    const cutoffs = retentionCutoffs(await this.deps.listAccounts(), this.deps.config(), this.deps.now());
    const result: PruneResult = { deleted: 0, accounts: cutoffs.length, steps: 0, maxStepMs: 0, totalStepMs: 0 };
    let next = 0;
    while (next < cutoffs.length && !this.stopped) {
      const step = await this.deps.step(cutoffs, next, this.stepRows);
      next = step.next;
      result.deleted += step.deleted;
      result.steps += 1;
      result.maxStepMs = Math.max(result.maxStepMs, step.ms);
      result.totalStepMs += step.ms;
      if (step.ms > STEP_TARGET_MS) this.stepRows = Math.max(MIN_STEP_ROWS, Math.floor(this.stepRows / 2));
      else if (step.ms < STEP_TARGET_MS / 2) this.stepRows = Math.min(MAX_STEP_ROWS, this.stepRows * 2);
      if (next < cutoffs.length) await pause(PAUSE_MS);
    }
    if (result.deleted > 0)
      this.deps.log(`records pruning: ${result.deleted} generation record(s) past their retention deleted in ${result.steps} step(s)`);
    return result;
  }
}
