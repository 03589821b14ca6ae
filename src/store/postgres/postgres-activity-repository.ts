import {
  AFTER_CURSOR,
  FILTER_COLUMNS,
  filterClause,
  LIST_COLUMNS,
  NEWEST_FIRST,
  type ActivityCursor,
  type ActivityFilter,
  type ActivityRow,
} from '../activity-records.ts';
import type { ActivityRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

// activity-store.ts for Postgres: the same view, columns, filters and keyset.

export class PostgresActivityRepository implements ActivityRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async get(id: string): Promise<ActivityRow | undefined> {
    return (await this.pg.query<ActivityRow>(`SELECT ${LIST_COLUMNS} FROM generations WHERE id = $1`, [id])).rows[0];
  }

  async list(filter: ActivityFilter, limit: number, after: ActivityCursor | null, whole = false): Promise<ActivityRow[]> {
    const where: string[] = [];
    const params: Array<string | number> = [];
    const next = (): string => `$${params.length}`;
    for (const [field, clause, param] of FILTER_COLUMNS) {
      const v = filter[field];
      if (v === undefined) continue;
      params.push(param(v));
      where.push(filterClause(field, clause, filter).replace('?', next()));
    }
    if (after !== null) {
      params.push(Date.parse(after.createdAt));
      const at = next();
      params.push(after.id);
      where.push(AFTER_CURSOR.replace('?', at).replace('?', next()));
    }
    params.push(limit);
    const sql = `SELECT ${whole ? '*' : LIST_COLUMNS} FROM generations ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
      ${NEWEST_FIRST} LIMIT ${next()}`;
    return (await this.pg.query<ActivityRow>(sql, params)).rows;
  }
}
