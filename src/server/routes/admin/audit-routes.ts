import type { FastifyInstance } from 'fastify';
import { decodeCursor, isIdCursor, page, pageSize, queryOf, requireAdmin } from './admin-common.ts';
import type { Stores } from '../../../store/store-contract.ts';
import { auditView } from './admin-views.ts';
import { PAGE_QUERY, routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';

/** What audit-routes.ts uses of the services (handed out by build-app.ts). */
export interface AuditRoutesDeps {
  stores: Pick<Stores, 'audit'>;
}

/** GET /admin/audit: every admin action (who, what, on what, when), newest first. */
export function registerAuditRoute(app: FastifyInstance, deps: AuditRoutesDeps, prefix: string): void {
  const { stores } = deps;
  app.get(
    `${prefix}/admin/audit`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'The admin audit log',
        tags: ['admin: audit'],
        query: { action: 'Only this action, e.g. credits.grant.', target: 'Only actions on this account id or key hash.', ...PAGE_QUERY },
        response: '{data: [{id, at, actor: {key_hash, label, account_id}, action, target, details}], next_cursor}',
        answers: 'AuditPage',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const q = queryOf(request);
      const limit = pageSize(q);
      const filter = { ...(q.action ? { action: q.action } : {}), ...(q.target ? { target: q.target } : {}) };
      const entries = await stores.audit.list(filter, decodeCursor(q, isIdCursor), limit + 1);
      const out = page(entries, limit, (e) => e.id);
      return { data: out.data.map(auditView), next_cursor: out.next_cursor };
    },
  );
}
