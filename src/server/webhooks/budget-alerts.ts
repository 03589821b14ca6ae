import { budgetWindow, type Budget } from '../../billing/budgets.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { WebhookDispatcher } from './webhook-dispatcher.ts';

/** What budget-alerts.ts uses of the services (handed out by build-app.ts). */
export interface BudgetAlertsDeps {
  stores: Pick<Stores, 'budgetAlerts'>;
  inForce: Pick<InForce, 'config'>;
  webhooks: WebhookDispatcher;
}

// budget.threshold: a budget (an account's or a member's) or a key's limit has reached
// one of its alert thresholds (percent of the amount) in its window. Each fires once per
// (scope, id, window start, threshold) across a fleet: every instance that sees it tries to
// insert the alert's row (ON CONFLICT DO NOTHING) and only the one whose insert made it
// emits. Looked for off the request path (spend-events.ts); this process remembers what it
// already claimed or saw claimed, so a crossed threshold costs one insert per instance.

const MAX_REMEMBERED = 100_000;

export class BudgetAlerts {
  private readonly deps: BudgetAlertsDeps;
  private readonly seen = new Set<string>();

  constructor(deps: BudgetAlertsDeps) {
    this.deps = deps;
  }

  /** Fires the thresholds of `budget` that `spentNanos` (in the window in force at `now`) has reached. */
  async check(budget: Budget, spentNanos: bigint, now: number): Promise<void> {
    if (budget.amountNanos <= 0n) return; // a zero budget refuses everything: no percentages to warn at
    const thresholds = budget.alertThresholds ?? this.deps.inForce.config.alerts.thresholds;
    const [start] = budgetWindow(budget.reset, now);
    const windowStart = Number.isFinite(start) ? new Date(start).toISOString() : '';
    for (const threshold of thresholds) {
      if (spentNanos * 100n < budget.amountNanos * BigInt(threshold)) continue;
      const mark = `${budget.scope}|${budget.id}|${windowStart}|${threshold}`;
      if (this.seen.has(mark)) continue;
      const mine = await this.deps.stores.budgetAlerts.claim({
        scope: budget.scope,
        subjectId: budget.id,
        windowStart,
        threshold,
        accountId: budget.accountId,
        createdAt: new Date(now).toISOString(),
      });
      if (this.seen.size >= MAX_REMEMBERED) this.seen.clear();
      this.seen.add(mark);
      if (!mine) continue; // another instance (or an earlier run) sent it
      await this.deps.webhooks.emit(budget.accountId, 'budget.threshold', {
        scope: budget.scope,
        id: budget.id,
        account_id: budget.accountId,
        threshold,
        amount: String(budget.amountNanos),
        spent: String(spentNanos),
        window_start: windowStart === '' ? null : windowStart,
      });
    }
  }
}
