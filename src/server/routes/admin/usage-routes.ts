import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { USAGE_GROUPS, type UsageGroup } from '../../../store/usage-store.ts';
import type { Services } from '../../services.ts';
import { dayRange, figuresView, money, queryOf, requireAdmin, requireManager, type Query } from './admin-common.ts';
import { findAccount } from './accounts-routes.ts';
import type { AdminStores } from './admin-stores.ts';
import { RANGE_QUERY, routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';

const GROUP_QUERY = { group_by: `One of ${USAGE_GROUPS.join(', ')} (default day).` };

/**
 * Usage aggregates from the daily rollups: GET /admin/usage (all accounts, or `account=`)
 * and GET /usage (the caller's account, management key; `account` is not accepted there).
 */
export function registerUsageRoutes(app: FastifyInstance, services: Services, stores: AdminStores, prefix: string): void {
  app.get(`${prefix}/admin/usage`, { ...access('admin'),
    schema: routeSchema({
      summary: 'Usage aggregates (all accounts or one), per day, model, provider, key, app or account', tags: ['admin: usage'],
      query: { account: 'Only this account.', ...GROUP_QUERY, ...RANGE_QUERY }, response: '{data: [{group, requests, errors, tokens_*, cost, cost_usd, avg_latency_ms}], totals, group_by, from, to}',
    }),
  }, async (request) => {
    await requireAdmin(services, request);
    const q = queryOf(request);
    const account = q.account === undefined || q.account === '' ? null : (await findAccount(services, q.account)).id;
    return usage(stores, account, q);
  });

  app.get(`${prefix}/usage`, { ...access('management'),
    schema: routeSchema({
      summary: "The caller's account usage (management key): aggregates, balance", tags: ['account reports'],
      query: { ...GROUP_QUERY, ...RANGE_QUERY }, response: '{data: [...], totals, balance, balance_usd, group_by, from, to}',
    }),
  }, async (request) => {
    const auth = await requireManager(services, request);
    const q = queryOf(request);
    if (q.group_by === 'account') throw new GatewayError('invalid_parameter', '"group_by" account is for the admin API.', { param: 'group_by' });
    const balance = await services.accounts.balance(auth.account.id) ?? auth.account.balanceNanos;
    return { ...(await usage(stores, auth.account.id, q)), ...money('balance', balance) };
  });
}

async function usage(stores: AdminStores, accountId: string | null, q: Query): Promise<Record<string, unknown>> {
  const group = (q.group_by ?? 'day') as UsageGroup;
  if (!USAGE_GROUPS.includes(group)) throw new GatewayError('invalid_parameter', `"group_by" must be one of ${USAGE_GROUPS.join(', ')}.`, { param: 'group_by' });
  const { from, to } = dayRange(q);
  const rows = await stores.usage.aggregate(accountId, group, from, to);
  const totals = await stores.usage.totals(accountId, from, to);
  return { data: rows.map((r) => ({ group: r.group, ...figuresView(r) })), totals: figuresView(totals), group_by: group, from, to };
}
