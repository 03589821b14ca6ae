import { Readable } from 'node:stream';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifySchema } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { formatNanos } from '../../../money/money.ts';
import type { ActivityCursor, ActivityFilter, ActivityRow } from '../../../store/activity-records.ts';
import { queryOf, requireAdmin, requireManager, type Query } from './admin-common.ts';
import type { Stores } from '../../../store/store-contract.ts';
import { FILTER_QUERY, filterOf } from './generations-routes.ts';
import { access } from '../../route-access.ts';
import { accountMemberFilter, adminMemberFilter, checkReportKey, type MemberFilterDeps } from './member-filter.ts';
import { routeSchema } from './route-schema.ts';

/** What generations-csv-route.ts uses of the services (handed out by build-app.ts). */
export type GenerationsCsvRouteDeps = MemberFilterDeps & {
  stores: Pick<Stores, 'activity'>;
};

// The generation list as CSV, the whole filtered range: GET /activity.csv (the caller's
// account, management key) and GET /admin/generations.csv (admin key; `account=`). The
// same filters as the JSON list; streamed, newest first, read in keyset pages so a large
// export never holds more than a page in memory nor the event loop for more than one.

/** Rows an export holds at most; past it, a last line says it was cut. */
export const MAX_CSV_ROWS = 100_000;
const PAGE = 1000;

export const COLUMNS: Array<[string, (r: ActivityRow) => string | number | bigint | null]> = [
  ['created_at', (r) => r.created_at],
  ['id', (r) => r.id],
  ['account_id', (r) => r.account_id],
  ['key_hash', (r) => r.key_hash],
  ['app_title', (r) => r.x_title],
  ['model', (r) => r.model],
  ['provider', (r) => r.provider],
  ['status', (r) => r.status],
  ['error_code', (r) => r.error_code],
  ['streamed', (r) => (r.streamed === 1n ? 'true' : 'false')],
  ['tokens_prompt', (r) => r.tokens_prompt],
  ['tokens_completion', (r) => r.tokens_completion],
  ['tokens_cache_read', (r) => r.tokens_cache_read],
  ['tokens_cache_write', (r) => r.tokens_cache_write],
  ['tokens_reasoning', (r) => r.tokens_reasoning],
  ['cost_usd', (r) => formatNanos(r.cost_nanos)],
  ['latency_ms', (r) => r.latency_ms],
  ['time_to_first_token_ms', (r) => r.first_token_ms],
  ['attempts', (r) => r.attempt_count],
];

const schema = (summary: string, extra: Record<string, string>): FastifySchema =>
  routeSchema({
    summary,
    tags: [extra.account === undefined ? 'account reports' : 'admin: generations'],
    query: {
      ...extra,
      ...FILTER_QUERY,
      max_rows: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_CSV_ROWS,
        description: `At most this many rows, 1..${MAX_CSV_ROWS} (default ${MAX_CSV_ROWS}).`,
      },
    },
    response: 'text/csv: a header line, then one line per generation record, newest first',
    produces: { 'text/csv': { type: 'string' } },
  });

export function registerGenerationsCsvRoutes(app: FastifyInstance, deps: GenerationsCsvRouteDeps, prefix: string): void {
  const { stores } = deps;
  app.get(
    `${prefix}/admin/generations.csv`,
    {
      ...access('admin'),
      schema: schema('Generation records as CSV (text/csv, streamed), the whole filtered range', { account: 'An account id.' }),
    },
    async (request, reply) => {
      await requireAdmin(request);
      const q = queryOf(request);
      const member = await adminMemberFilter(deps, q);
      return csv(
        reply,
        stores,
        {
          ...filterOf(q),
          ...(q.account === undefined || q.account === '' ? {} : { accountId: q.account }),
          ...(member === undefined ? {} : { accountId: member.accountId, memberId: member.id }),
        },
        q,
        'generations',
      );
    },
  );

  app.get(
    `${prefix}/activity.csv`,
    {
      ...access('management', { role: 'viewer' }),
      schema: schema("The caller's account generation records as CSV (management key), the whole filtered range", {}),
    },
    async (request, reply) => {
      const auth = await requireManager(request);
      const q = queryOf(request);
      await checkReportKey(deps, auth, q.key);
      const memberId = await accountMemberFilter(deps, auth, q);
      return csv(
        reply,
        stores,
        { ...filterOf(q), accountId: auth.account.id, ...(memberId === undefined ? {} : { memberId }) },
        q,
        'activity',
      );
    },
  );
}

function maxRows(q: Query): number {
  if (q.max_rows === undefined || q.max_rows === '') return MAX_CSV_ROWS;
  const n = Number(q.max_rows);
  if (!Number.isInteger(n) || n < 1 || n > MAX_CSV_ROWS) {
    throw new GatewayError('invalid_parameter', `"max_rows" must be an integer from 1 to ${MAX_CSV_ROWS}.`, { param: 'max_rows' });
  }
  return n;
}

function csv(reply: FastifyReply, stores: GenerationsCsvRouteDeps['stores'], filter: ActivityFilter, q: Query, name: string): Readable {
  const max = maxRows(q); // validated before the answer starts
  reply.header('content-type', 'text/csv; charset=utf-8');
  reply.header('content-disposition', `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`);
  reply.header('cache-control', 'no-store');
  reply.header('x-max-rows', String(max));
  return Readable.from(rows(stores, filter, max));
}

async function* rows(stores: GenerationsCsvRouteDeps['stores'], filter: ActivityFilter, max: number): AsyncGenerator<string> {
  yield `${COLUMNS.map(([name]) => name).join(',')}\r\n`;
  let after: ActivityCursor | null = null;
  let sent = 0;
  for (;;) {
    const page = await stores.activity.list(filter, Math.min(PAGE, max - sent) + 1, after);
    const take = page.slice(0, Math.min(PAGE, max - sent));
    if (take.length > 0) yield take.map((r) => `${COLUMNS.map(([, get]) => cell(get(r))).join(',')}\r\n`).join('');
    sent += take.length;
    if (page.length <= take.length) return; // the range is done
    if (sent >= max) {
      yield `# cut at ${max} rows, newest first: narrow the filters (a shorter date range) to export the rest\r\n`;
      return;
    }
    const last = take.at(-1);
    if (last === undefined) return;
    after = { createdAt: last.created_at, id: last.id };
    await yieldToEventLoop(); // other requests run between pages
  }
}

/**
 * One CSV field (RFC 4180: quoted when it holds a comma, quote or line break). Text a client
 * chose (an app title, a model name) that starts like a formula is prefixed with `'`, so a
 * spreadsheet shows it rather than runs it.
 */
export function cell(v: string | number | bigint | null): string {
  if (v === null) return '';
  if (typeof v !== 'string') return String(v);
  const text = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
