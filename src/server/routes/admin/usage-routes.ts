import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { usageCursorOf, USAGE_GROUPS, type UsageCursor, type UsageGroup } from '../../../store/usage-records.ts';
import {
  dayRange,
  decodeCursor,
  figuresView,
  money,
  page,
  pageSize,
  queryOf,
  requireAdmin,
  requireManager,
  type Query,
} from './admin-common.ts';
import { findAccount } from './accounts-routes.ts';
import { PAGE_QUERY, RANGE_QUERY, routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';
import { usageByKind } from './usage-by-kind.ts';
import { accountMemberFilter, adminMemberFilter, MEMBER_QUERY, type MemberFilterDeps } from './member-filter.ts';
import type { Catalog } from '../../../catalog/catalog.ts';
import type { Stores } from '../../../store/store-contract.ts';
import type { InForce } from '../../wiring/in-force.ts';

/** What usage-routes.ts uses of the services (handed out by build-app.ts). */
export type UsageRoutesDeps = MemberFilterDeps & {
  stores: Pick<Stores, 'accounts' | 'usage'>;
  inForce: Pick<InForce, 'catalog'>;
};

/** The groupings: the rollups' own, and `kind` (the models' sums folded by their kind: usage-by-kind.ts). */
const GROUPS: readonly string[] = [...USAGE_GROUPS, 'kind'];

const GROUP_QUERY = { group_by: `One of ${GROUPS.join(', ')} (default day).` };

/**
 * Usage aggregates from the daily rollups: GET /admin/usage (all accounts, or `account=`)
 * and GET /usage (the caller's account, management key; `account` is not accepted there).
 */
export function registerUsageRoutes(app: FastifyInstance, deps: UsageRoutesDeps, prefix: string): void {
  const { stores } = deps;
  app.get(
    `${prefix}/admin/usage`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Usage aggregates (all accounts or one), per day, model, kind, provider, key, app or account',
        tags: ['admin: usage'],
        query: { account: 'Only this account.', ...MEMBER_QUERY, ...GROUP_QUERY, ...RANGE_QUERY, ...PAGE_QUERY },
        response: '{data: [{group, requests, errors, tokens_*, cost, cost_usd, avg_latency_ms}], next_cursor, totals, group_by, from, to}',
        answers: 'UsageReport',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const q = queryOf(request);
      const member = await adminMemberFilter(deps, q);
      if (member !== undefined) {
        if (q.group_by === 'account')
          throw new GatewayError('invalid_parameter', '"group_by" account with "member": a member is of one account.', {
            param: 'group_by',
          });
        return usage(stores, deps.inForce.catalog, member.accountId, q, member.id);
      }
      const account = q.account === undefined || q.account === '' ? null : (await findAccount(deps, q.account)).id;
      return usage(stores, deps.inForce.catalog, account, q);
    },
  );

  app.get(
    `${prefix}/usage`,
    {
      ...access('management', { role: 'viewer' }),
      schema: routeSchema({
        summary: "The caller's account usage (management key): aggregates, balance",
        tags: ['account reports'],
        query: { ...MEMBER_QUERY, ...GROUP_QUERY, ...RANGE_QUERY, ...PAGE_QUERY },
        response: '{data: [...], next_cursor, totals, balance, balance_usd, group_by, from, to}',
        answers: 'UsageReport',
      }),
    },
    async (request) => {
      const auth = await requireManager(request);
      const q = queryOf(request);
      if (q.group_by === 'account')
        throw new GatewayError('invalid_parameter', '"group_by" account is for the admin API.', { param: 'group_by' });
      const memberId = await accountMemberFilter(deps, auth, q);
      const balance = (await deps.stores.accounts.balance(auth.account.id)) ?? auth.account.balanceNanos;
      return { ...(await usage(stores, deps.inForce.catalog, auth.account.id, q, memberId)), ...money('balance', balance) };
    },
  );
}

/**
 * One page of groups (`limit`, `cursor`: admin-common.ts), and the totals over the whole
 * range, whichever page this is. A cursor names its grouping: it is refused with another.
 */
async function usage(
  stores: UsageRoutesDeps['stores'],
  catalog: Catalog,
  accountId: string | null,
  q: Query,
  memberId?: string,
): Promise<Record<string, unknown>> {
  const group = (q.group_by ?? 'day') as UsageGroup | 'kind';
  if (!GROUPS.includes(group))
    throw new GatewayError('invalid_parameter', `"group_by" must be one of ${GROUPS.join(', ')}.`, { param: 'group_by' });
  const { from, to } = dayRange(q);
  const limit = pageSize(q);
  const after: UsageCursor | null = decodeCursor<UsageCursor>(q, (v): v is UsageCursor =>
    group === 'day' ? isDayCursor(v) : isCostCursor(v),
  );
  const rows =
    group === 'kind'
      ? await usageByKind(stores, catalog, accountId, from, to, after, limit + 1, memberId)
      : await stores.usage.aggregate(accountId, group, from, to, { after, limit: limit + 1 }, memberId);
  const totals = await stores.usage.totals(accountId, from, to, memberId);
  const out = page(rows, limit, (r) => usageCursorOf(group === 'kind' ? 'model' : group, r));
  return {
    data: out.data.map((r) => ({ group: r.group, ...figuresView(r) })),
    next_cursor: out.next_cursor,
    totals: figuresView(totals),
    group_by: group,
    from,
    to,
  };
}

function isDayCursor(v: unknown): v is [string] {
  return Array.isArray(v) && v.length === 1 && typeof v[0] === 'string';
}

function isCostCursor(v: unknown): v is [string, string] {
  return Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && /^\d{1,20}$/.test(v[0]) && typeof v[1] === 'string';
}
