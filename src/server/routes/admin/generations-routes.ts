import { generationView } from '../generation-view.ts';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { ActivityFilter } from '../../../store/activity-records.ts';
import {
  decodeCursor,
  isTimeIdCursor,
  page,
  pageSize,
  paramOf,
  queryOf,
  readInstant,
  requireAdmin,
  requireManager,
  type Query,
} from './admin-common.ts';
import { activityView } from './admin-views.ts';
import { PAGE_QUERY, routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';
import { accountMemberFilter, adminMemberFilter, checkReportKey, MEMBER_QUERY, type MemberFilterDeps } from './member-filter.ts';
import type { Stores } from '../../../store/store-contract.ts';

/** What generations-routes.ts uses of the services (handed out by build-app.ts). */
export type GenerationsRoutesDeps = MemberFilterDeps & {
  stores: Pick<Stores, 'activity' | 'generations'>;
};

export const FILTER_QUERY = {
  key: 'A key hash.',
  ...MEMBER_QUERY,
  model: 'A model id.',
  provider: 'A provider id.',
  status: 'success or error.',
  from: 'From this instant (ISO 8601), inclusive.',
  to: 'Up to this instant (ISO 8601), exclusive.',
};

/**
 * Generation records, newest first, with filters and keyset pages: GET /admin/generations
 * (all accounts, or `account=`), GET /admin/generations/:id, and GET /activity (the
 * caller's account, management key).
 */
export function registerGenerationsRoutes(app: FastifyInstance, deps: GenerationsRoutesDeps, prefix: string): void {
  const { stores } = deps;
  app.get(
    `${prefix}/admin/generations`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'List generation records',
        tags: ['admin: generations'],
        query: { account: 'An account id.', ...FILTER_QUERY, ...PAGE_QUERY },
        response: '{data: [generation], next_cursor}',
        answers: 'ActivityPage',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const q = queryOf(request);
      const member = await adminMemberFilter(deps, q);
      return list(
        stores,
        {
          ...filterOf(q),
          ...(q.account === undefined || q.account === '' ? {} : { accountId: q.account }),
          ...(member === undefined ? {} : { accountId: member.accountId, memberId: member.id }),
        },
        q,
      );
    },
  );

  app.get(
    `${prefix}/admin/generations/:id`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'One generation record, whole',
        tags: ['admin: generations'],
        params: { id: 'The generation id.' },
        response: '{data: generation}',
        answers: 'GenerationAnswer',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const id = paramOf(request, 'id');
      const row = await stores.activity.get(id);
      const record = await deps.stores.generations.getRecord(id);
      if (row === undefined || record === undefined) throw new GatewayError('not_found', `No generation "${id}".`);
      return { data: { ...activityView(row), ...generationView(record) } };
    },
  );

  app.get(
    `${prefix}/activity`,
    {
      ...access('management', { role: 'viewer' }),
      schema: routeSchema({
        summary: "The caller's account generation records (management key)",
        tags: ['account reports'],
        query: { ...FILTER_QUERY, ...PAGE_QUERY },
        response: '{data: [generation], next_cursor}',
        answers: 'ActivityPage',
      }),
    },
    async (request) => {
      const auth = await requireManager(request);
      const q = queryOf(request);
      await checkReportKey(deps, auth, q.key);
      const memberId = await accountMemberFilter(deps, auth, q);
      return list(stores, { ...filterOf(q), accountId: auth.account.id, ...(memberId === undefined ? {} : { memberId }) }, q);
    },
  );
}

/** The list's filters from the query (shared with the CSV export). */
export function filterOf(q: Query): ActivityFilter {
  const f: ActivityFilter = {};
  if (q.key) f.keyHash = q.key;
  if (q.model) f.model = q.model;
  if (q.provider) f.provider = q.provider;
  if (q.status) {
    if (q.status !== 'success' && q.status !== 'error')
      throw new GatewayError('invalid_parameter', '"status" must be success or error.', { param: 'status' });
    f.status = q.status;
  }
  const from = readInstant(q.from, 'from');
  if (from !== undefined) f.from = from;
  const to = readInstant(q.to, 'to');
  if (to !== undefined) f.to = to;
  return f;
}

async function list(stores: GenerationsRoutesDeps['stores'], filter: ActivityFilter, q: Query): Promise<unknown> {
  const limit = pageSize(q);
  const after = decodeCursor(q, isTimeIdCursor);
  const rows = await stores.activity.list(filter, limit + 1, after === null ? null : { createdAt: after[0], id: after[1] });
  const out = page(rows, limit, (r) => [r.created_at, r.id]);
  return { data: out.data.map(activityView), next_cursor: out.next_cursor };
}
