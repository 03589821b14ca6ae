import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { limitUsageNanos, periodDays, periodStart } from '../../billing/key-limit-remaining.ts';
import { usdToNanos } from '../../money/money.ts';
import { memberBudgetReset } from '../../store/spend-state.ts';
import { requestAuth } from '../route-access.ts';
import { BudgetAlerts } from './budget-alerts.ts';
import { keyEvent } from './webhook-events.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { WebhookDispatcher } from './webhook-dispatcher.ts';

/** What spend-events.ts uses of the services (handed out by build-app.ts). */
export interface SpendEventsDeps {
  stores: Pick<Stores, 'accounts' | 'budgetAlerts' | 'keyUsage' | 'members'>;
  inForce: Pick<InForce, 'config'>;
  webhooks: WebhookDispatcher;
  now: () => number;
}

// key.limit_reached, balance.low and budget.threshold, looked for after a model request's
// answer was sent (onResponse: the request never waits for it), at most once per key and
// account every CHECK_MS (always after a refusal). key.limit_reached fires once per
// condition in this process (a key's limit once per limit period). budget.threshold (a key's
// limit and an account's budget, budget-alerts.ts) and balance.low fire once across a fleet:
// the instance whose insert of the alert's row wins sends it. A low balance fires once until
// the balance is above the threshold again (an instance that saw it low then re-arms it).

const CHECK_MS = 5_000;
const MAX_REMEMBERED = 100_000;

export function installSpendEvents(app: FastifyInstance, deps: SpendEventsDeps): void {
  const lastCheck = new Map<string, number>();
  const limitFired = new Set<string>();
  const lowBalance = new Set<string>();
  const alerts = new BudgetAlerts(deps);
  const due = (id: string, now: number, force: boolean): boolean => {
    if (!force && now - (lastCheck.get(id) ?? -Infinity) < CHECK_MS) return false;
    if (lastCheck.size >= MAX_REMEMBERED) lastCheck.clear();
    lastCheck.set(id, now);
    return true;
  };

  const check = async (
    accountId: string,
    keyHash: string,
    hasLimit: boolean,
    hasBudget: boolean,
    memberId: string | null,
    refused: boolean,
  ): Promise<void> => {
    const now = deps.now();
    if (memberId !== null && due(`m:${memberId}`, now, refused)) await checkMember(accountId, memberId, now);
    if (hasLimit && due(`k:${keyHash}`, now, refused)) {
      const key = await deps.stores.accounts.getKey(keyHash);
      if (key !== undefined && key.limitNanos !== null) {
        const used = await limitUsageNanos(key, now, (a, h, days) => deps.stores.keyUsage.costOnDays(a, h, days));
        await alerts.check(
          { scope: 'key', id: key.hash, accountId, amountNanos: key.limitNanos, reset: key.limitReset, alertThresholds: null },
          used,
          now,
        );
        const period = key.limitReset === null ? 'all' : String(periodStart(key.limitReset, now));
        const mark = `${key.hash}:${key.limitNanos}:${period}`;
        if (used >= key.limitNanos && !limitFired.has(mark)) {
          if (limitFired.size >= MAX_REMEMBERED) limitFired.clear();
          limitFired.add(mark);
          await deps.webhooks.emit(accountId, 'key.limit_reached', {
            ...keyEvent(key, 'account'),
            limit: String(key.limitNanos),
            used: String(used),
            limit_reset: key.limitReset,
          });
        }
      }
    }
    const threshold = deps.inForce.config.webhooks.balanceLowUsd;
    // Nothing to look for without a low-balance threshold or a budget (as the request's auth saw the account).
    if ((threshold === null && !hasBudget) || !due(`a:${accountId}`, now, refused)) return;
    const account = await deps.stores.accounts.getAccount(accountId);
    if (account === undefined) return;
    const budget = account.budget;
    if (budget !== null) {
      const spent = await deps.stores.budgetAlerts.accountCost(accountId, budget.reset === null ? null : periodDays(budget.reset, now));
      await alerts.check(
        {
          scope: 'account',
          id: accountId,
          accountId,
          amountNanos: budget.amountNanos,
          reset: budget.reset,
          alertThresholds: budget.alertThresholds,
        },
        spent,
        now,
      );
    }
    if (threshold === null) return;
    const below = account.balanceNanos < usdToNanos(threshold);
    if (below && !lowBalance.has(accountId)) {
      if (lowBalance.size >= MAX_REMEMBERED) lowBalance.clear();
      lowBalance.add(accountId);
      const mine = await deps.stores.budgetAlerts.claim({
        scope: 'balance',
        subjectId: accountId,
        windowStart: '',
        threshold: 0,
        accountId,
        createdAt: new Date(now).toISOString(),
      });
      if (mine)
        await deps.webhooks.emit(accountId, 'balance.low', { account_id: accountId, balance: String(account.balanceNanos), threshold });
    } else if (!below && lowBalance.delete(accountId)) {
      await deps.stores.budgetAlerts.rearm('balance', accountId);
    }
  };

  // A member's budget (read afresh: the request's auth may be a few seconds old).
  const checkMember = async (accountId: string, memberId: string, now: number): Promise<void> => {
    const member = await deps.stores.members.get(memberId);
    if (member === undefined || member.budget === null || member.accountId !== accountId) return;
    const reset = memberBudgetReset(member.budget.reset);
    const spent = await deps.stores.budgetAlerts.memberCost(member.id, reset === null ? null : periodDays(reset, now));
    await alerts.check(
      { scope: 'member', id: member.id, accountId, amountNanos: member.budget.amountNanos, reset, alertThresholds: null },
      spent,
      now,
    );
  };

  // A callback hook: every request passes here, and none waits for it.
  app.addHook('onResponse', (request, reply, done) => {
    try {
      afterModelResponse(request, reply);
    } finally {
      done();
    }
  });

  function afterModelResponse(request: FastifyRequest, reply: FastifyReply): void {
    if (request.routeOptions.config?.access?.auth !== 'model-key') return;
    let auth;
    try {
      auth = requestAuth(request);
    } catch {
      return; // refused before authentication
    }
    const refused = reply.statusCode === 402 || reply.statusCode === 403;
    const member = auth.member ?? null;
    const memberId = member !== null && member.budget !== null ? member.id : null;
    void check(auth.account.id, auth.key.hash, auth.key.limitNanos !== null, auth.account.budget !== null, memberId, refused).catch(
      (err: unknown) => deps.webhooks.log(`webhooks: spend events: ${(err as Error).message}`),
    );
  }
}
