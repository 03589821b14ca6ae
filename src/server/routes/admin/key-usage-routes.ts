import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { KeyRecord } from '../../../store/account-records.ts';
import { dayRange, money, paramOf, paramsOf, queryOf, requireAdmin, requireManager } from './admin-common.ts';
import { RANGE_QUERY, routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';
import { ownKeysOnly } from '../../../auth/roles.ts';
import type { Stores } from '../../../store/store-contract.ts';

/** What key-usage-routes.ts uses of the services (handed out by build-app.ts). */
export interface KeyUsageRoutesDeps {
  stores: Pick<Stores, 'accounts' | 'keyUsage'>;
  now: () => number;
}

const DAY_MS = 86_400_000;

/**
 * One key's usage per UTC day (requests and spend), from the usage_daily_keys rollup:
 * GET /keys/:hash/usage (a management key, keys of its account) and GET
 * /admin/keys/:hash/usage (an admin key). Every day of the range is listed, zero or not.
 */
export function registerKeyUsageRoutes(app: FastifyInstance, deps: KeyUsageRoutesDeps, prefix: string): void {
  const doc = (tags: string[]) =>
    routeSchema({
      summary: "A key's requests and spend per UTC day",
      tags,
      params: { hash: 'The key hash.' },
      query: RANGE_QUERY,
      response: '{data: [{day, requests, cost, cost_usd}], totals: {requests, cost, cost_usd}, from, to}',
      answers: 'KeyUsage',
    });

  app.get(
    `${prefix}/keys/:hash/usage`,
    { ...access('management', { role: 'viewer' }), schema: doc(['account reports']) },
    async (request) => {
      const auth = await requireManager(request);
      const key = await deps.stores.accounts.getKey(paramOf(request, 'hash'));
      if (
        key === undefined ||
        key.accountId !== auth.account.id ||
        key.isAdmin ||
        key.isManagement ||
        (ownKeysOnly(auth) && key.memberId !== auth.member?.id)
      ) {
        throw new GatewayError('not_found', `No key with hash "${paramsOf(request).hash}".`);
      }
      return perDay(deps, key, queryOf(request));
    },
  );

  app.get(`${prefix}/admin/keys/:hash/usage`, { ...access('admin'), schema: doc(['admin: keys']) }, async (request) => {
    await requireAdmin(request);
    const key = await deps.stores.accounts.getKey(paramOf(request, 'hash'));
    if (key === undefined) throw new GatewayError('not_found', `No key with hash "${paramsOf(request).hash}".`);
    return perDay(deps, key, queryOf(request));
  });
}

async function perDay(deps: KeyUsageRoutesDeps, key: KeyRecord, q: Record<string, string | undefined>): Promise<Record<string, unknown>> {
  const { from, to } = dayRange(q, deps.now());
  const days: string[] = [];
  for (let t = Date.parse(from); t <= Date.parse(to); t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  const found = new Map((await deps.stores.keyUsage.perDay(key.accountId, key.hash, days)).map((d) => [d.day, d]));
  let requests = 0;
  let cost = 0n;
  const data = days.map((day) => {
    const d = found.get(day);
    requests += d?.requests ?? 0;
    cost += d?.costNanos ?? 0n;
    return { day, requests: d?.requests ?? 0, ...money('cost', d?.costNanos ?? 0n) };
  });
  return { data, totals: { requests, ...money('cost', cost) }, from, to };
}
