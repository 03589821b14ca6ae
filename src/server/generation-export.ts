import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ActivityCursor, ActivityFilter, ActivityRow } from '../store/activity-records.ts';
import { toGenerationRecord } from '../store/generation-records.ts';
import type { ActivityRepository } from '../store/store-contract.ts';
import { activityView } from './routes/admin/admin-views.ts';
import { cell, COLUMNS } from './routes/admin/generations-csv-route.ts';
import { generationView } from './routes/generation-view.ts';

// Generation records of a range as CSV or JSON lines, for the admin API's export and
// `switchyard generations export`: read in keyset pages of PAGE rows, newest first, each
// page read only when the consumer asks for more (an async generator), so that memory holds
// about one page whatever the range's size. CSV: the columns of generations.csv (RFC 4180,
// formula-looking text prefixed with '); JSONL: one whole record per line, the shape of
// GET /admin/generations/:id.

const PAGE = 500;
export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const isExportFormat = (v: string): v is ExportFormat => (EXPORT_FORMATS as readonly string[]).includes(v);

export function exportLines(activity: ActivityRepository, filter: ActivityFilter, format: ExportFormat): AsyncGenerator<string> {
  return format === 'csv' ? csvLines(activity, filter) : jsonLines(activity, filter);
}

/** The range's rows, page by page, newest first. */
async function* pages(activity: ActivityRepository, filter: ActivityFilter): AsyncGenerator<ActivityRow[]> {
  let after: ActivityCursor | null = null;
  for (;;) {
    const rows = await activity.list(filter, PAGE, after, true);
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.created_at, id: last.id };
    await yieldToEventLoop(); // other requests run between pages
  }
}

async function* csvLines(activity: ActivityRepository, filter: ActivityFilter): AsyncGenerator<string> {
  yield `${COLUMNS.map(([name]) => name).join(',')}\r\n`;
  for await (const rows of pages(activity, filter))
    yield rows.map((r) => `${COLUMNS.map(([, get]) => cell(get(r))).join(',')}\r\n`).join('');
}

async function* jsonLines(activity: ActivityRepository, filter: ActivityFilter): AsyncGenerator<string> {
  for await (const rows of pages(activity, filter)) {
    yield rows
      .map(
        (r) =>
          `${JSON.stringify({ ...activityView(r), ...generationView(toGenerationRecord(r as unknown as Record<string, bigint | string | null>)) })}\n`,
      )
      .join('');
  }
}
