import { setTimeout as pause } from 'node:timers/promises';
import type { RetentionConfig } from '../config/parse-retention.ts';
import type { Stores } from '../store/store-contract.ts';

// The governance tables past their retention (`retention:`, docs/operations.md#governance-tables):
// webhook deliveries (once delivered or given up) with their attempts, MCP tool calls and
// budget alerts whose window has ended are deleted by this job, off the request path: a pass
// every `retention.prune_interval_minutes`. As the records' pruning (records-retention.ts), a
// pass runs in small steps, each one short transaction of at most STEP_ROWS rows, with a pause
// between steps so the requests' writes have the database; on Postgres each instance of a
// fleet runs it (a step deletes what it selected: two instances at once only share the work).

const DAY_MS = 86_400_000;
const STEP_ROWS = 200;
const PAUSE_MS = 2;
/** A budget window lasts at most a month: one begun longer ago than this has ended. */
const LONGEST_WINDOW_MS = 32 * DAY_MS;

export interface GovernancePruneResult {
  webhookDeliveries: number;
  mcpToolCalls: number;
  budgetAlerts: number;
  steps: number;
}

export interface GovernanceRetentionDeps {
  stores: Stores;
  config(): RetentionConfig;
  now(): number;
  log(message: string): void;
}

export class GovernanceRetention {
  private readonly deps: GovernanceRetentionDeps;
  private running: Promise<GovernancePruneResult> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(deps: GovernanceRetentionDeps) {
    this.deps = deps;
  }

  /** Passes every `intervalMs` from now on (the first after one interval). */
  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      if (this.running === null)
        this.runOnce().catch((err: unknown) => this.deps.log(`governance tables pruning failed: ${(err as Error).message}`));
    }, intervalMs);
    this.timer.unref();
  }

  /** One whole pass (a pass already running: its result). */
  runOnce(): Promise<GovernancePruneResult> {
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

  private async pass(): Promise<GovernancePruneResult> {
    const c = this.deps.config();
    const now = this.deps.now();
    const before = (days: number): string => new Date(now - days * DAY_MS).toISOString();
    const result: GovernancePruneResult = { webhookDeliveries: 0, mcpToolCalls: 0, budgetAlerts: 0, steps: 0 };
    const windowEnded = new Date(now - LONGEST_WINDOW_MS).toISOString();
    const tables: Array<[keyof Omit<GovernancePruneResult, 'steps'>, number | null, (s: Stores, cutoff: string) => Promise<number>]> = [
      ['webhookDeliveries', c.webhookDeliveriesDays, (s, cutoff) => s.governancePruner.webhookDeliveries(cutoff, STEP_ROWS)],
      ['mcpToolCalls', c.mcpToolCallsDays, (s, cutoff) => s.governancePruner.mcpToolCalls(cutoff, STEP_ROWS)],
      ['budgetAlerts', c.budgetAlertsDays, (s, cutoff) => s.governancePruner.budgetAlerts(cutoff, windowEnded, STEP_ROWS)],
    ];
    for (const [name, days, step] of tables) {
      if (days === null) continue;
      const cutoff = before(days);
      while (!this.stopped) {
        const n = await this.deps.stores.transaction((tx) => step(tx, cutoff));
        result[name] += n;
        result.steps += 1;
        if (n < STEP_ROWS) break;
        await pause(PAUSE_MS);
      }
    }
    const total = result.webhookDeliveries + result.mcpToolCalls + result.budgetAlerts;
    if (total > 0) {
      this.deps.log(
        `governance tables pruning: ${result.webhookDeliveries} webhook deliveries, ${result.mcpToolCalls} MCP tool calls, ${result.budgetAlerts} budget alerts past their retention deleted in ${result.steps} step(s)`,
      );
    }
    return result;
  }
}
