import type { FastifyInstance } from 'fastify';
import { refusalMinute, type RefusalCursor, type RefusalFilter } from '../../../store/refusal-records.ts';
import { decodeCursor, page, pageSize, queryOf, readInstant, requireAdmin } from './admin-common.ts';
import { findAccount, type FindAccountDeps } from './accounts-routes.ts';
import type { Stores } from '../../../store/store-contract.ts';
import { PAGE_QUERY, routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';

/** What refusals-routes.ts uses of the services (handed out by build-app.ts). */
export type RefusalsRoutesDeps = FindAccountDeps & {
  stores: Pick<Stores, 'refusals'>;
};

function isRefusalCursor(v: unknown): v is RefusalCursor {
  return Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'string');
}

/**
 * GET /admin/refusals: requests refused at admission (rate limits, credits, unknown models…),
 * counted per key × UTC minute × reason (the error code) and kept 7 days; newest first.
 */
export function registerRefusalsRoute(app: FastifyInstance, deps: RefusalsRoutesDeps, prefix: string): void {
  const { stores } = deps;
  app.get(
    `${prefix}/admin/refusals`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Refused requests, counted per key, minute and reason (kept 7 days)',
        tags: ['admin: usage'],
        query: {
          account: 'Only this account.',
          key: 'Only this key (its hash).',
          from: 'First minute, ISO 8601 date-time (inclusive).',
          to: 'Last minute, ISO 8601 date-time (inclusive).',
          ...PAGE_QUERY,
        },
        response: '{data: [{minute, account_id, key_hash, reason, count}], next_cursor}',
        answers: 'RefusalPage',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const q = queryOf(request);
      const limit = pageSize(q);
      const filter: RefusalFilter = {};
      if (q.account !== undefined && q.account !== '') filter.accountId = (await findAccount(deps, q.account)).id;
      if (q.key !== undefined && q.key !== '') filter.keyHash = q.key;
      const from = readInstant(q.from, 'from');
      const to = readInstant(q.to, 'to');
      if (from !== undefined) filter.from = refusalMinute(Date.parse(from));
      if (to !== undefined) filter.to = refusalMinute(Date.parse(to));
      const rows = await stores.refusals.list(filter, decodeCursor(q, isRefusalCursor), limit + 1);
      const out = page(rows, limit, (r): RefusalCursor => [r.minute, r.keyHash, r.reason]);
      return {
        data: out.data.map((r) => ({
          minute: `${r.minute}:00Z`,
          account_id: r.accountId,
          key_hash: r.keyHash,
          reason: r.reason,
          count: r.count,
        })),
        next_cursor: out.next_cursor,
      };
    },
  );
}
