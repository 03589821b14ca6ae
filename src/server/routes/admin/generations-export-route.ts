import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { ActivityFilter } from '../../../store/activity-records.ts';
import { EXPORT_FORMATS, exportLines, isExportFormat } from '../../generation-export.ts';
import { actorOf, queryOf, requireAdmin } from './admin-common.ts';
import { FILTER_QUERY, filterOf } from './generations-routes.ts';
import { routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';
import type { Stores } from '../../../store/store-contract.ts';
import type { RecordsRetention } from '../../records-retention.ts';

/** What generations-export-route.ts uses of the services (handed out by build-app.ts). */
export interface GenerationsExportRouteDeps {
  stores: Pick<Stores, 'activity' | 'audit'>;
  retention: RecordsRetention;
}

// Exports of generation records before they are pruned (records-retention.ts), and the
// pruning on demand:
//   GET  /admin/generations/export?format=csv|jsonl&account=&from=&to=&…  every record of the
//        range, newest first, streamed (generation-export.ts): a Readable over the pages'
//        generator pulls the next page only when the client has taken the last one.
//   POST /admin/generations/prune  one pruning pass now.

export function registerGenerationsExportRoutes(app: FastifyInstance, deps: GenerationsExportRouteDeps, prefix: string): void {
  const { stores } = deps;
  app.get(
    `${prefix}/admin/generations/export`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Every generation record of a range as CSV or JSON lines (streamed, newest first), e.g. before the retention prunes them',
        tags: ['admin: generations'],
        query: { format: 'csv (default) or jsonl.', account: 'An account id.', ...FILTER_QUERY },
        response: 'text/csv (the columns of generations.csv) or application/x-ndjson (one whole record per line)',
        produces: {
          'text/csv': { type: 'string' },
          'application/x-ndjson': { type: 'string', description: 'One generation record (JSON) per line.' },
        },
      }),
    },
    async (request, reply) => {
      await requireAdmin(request);
      const q = queryOf(request);
      const format = q.format === undefined || q.format === '' ? 'csv' : q.format;
      if (!isExportFormat(format)) {
        throw new GatewayError('invalid_parameter', `"format" must be ${EXPORT_FORMATS.join(' or ')}.`, { param: 'format' });
      }
      const filter: ActivityFilter = { ...filterOf(q), ...(q.account === undefined || q.account === '' ? {} : { accountId: q.account }) };
      reply.header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="generations-${new Date().toISOString().slice(0, 10)}.${format}"`);
      reply.header('cache-control', 'no-store');
      return Readable.from(exportLines(stores.activity, filter, format), { highWaterMark: 4 });
    },
  );

  app.post(
    `${prefix}/admin/generations/prune`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Delete the generation records past their retention now (records.retention_days, per tier, per account); rollups stay',
        tags: ['admin: generations'],
        response: '{data: {deleted, accounts, steps, max_step_ms, total_step_ms}}',
        answers: 'Pruned',
      }),
    },
    async (request) => {
      const auth = await requireAdmin(request);
      const r = await deps.retention.runOnce();
      await deps.stores.audit.record(
        actorOf(auth),
        'generations.prune',
        null,
        { deleted: r.deleted, accounts: r.accounts },
        new Date().toISOString(),
      );
      return {
        data: {
          deleted: r.deleted,
          accounts: r.accounts,
          steps: r.steps,
          max_step_ms: round(r.maxStepMs),
          total_step_ms: round(r.totalStepMs),
        },
      };
    },
  );
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;
