import { FILTER_COLUMNS, type ActivityCursor, type ActivityFilter, type ActivityRow } from '../activity-store.ts';
import type { ActivityRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

// activity-store.ts for Postgres: the same columns (attempt_count from the attempts JSON),
// filters and keyset on (created_at, id), newest first, ordered byte-wise as in SQLite.
const LIST_COLUMNS = `id, account_id, key_hash, model, provider, upstream_model, endpoint_dialect, streamed, cancelled, status,
  error_code, finish_reason, tokens_prompt, tokens_completion, tokens_cache_read, tokens_cache_write, tokens_reasoning,
  cost_nanos, latency_ms, first_token_ms, x_title, created_at, coalesce(json_array_length(attempts::json), 0)::bigint AS attempt_count`;

export class PostgresActivityRepository implements ActivityRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async get(id: string): Promise<ActivityRow | undefined> {
    return (await this.pg.query<ActivityRow>(`SELECT ${LIST_COLUMNS} FROM generations WHERE id = $1`, [id])).rows[0];
  }

  async list(filter: ActivityFilter, limit: number, after: ActivityCursor | null): Promise<ActivityRow[]> {
    const where: string[] = [];
    const params: Array<string | number> = [];
    const next = (): string => `$${params.length}`;
    for (const [field, clause] of FILTER_COLUMNS) {
      const v = filter[field];
      if (v === undefined) continue;
      params.push(v);
      where.push(clause.replace('?', next()));
    }
    if (after !== null) {
      params.push(after.createdAt);
      const at = next();
      params.push(after.id);
      where.push(`(created_at COLLATE "C", id COLLATE "C") < (${at}, ${next()})`);
    }
    params.push(limit);
    const sql = `SELECT ${LIST_COLUMNS} FROM generations ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
      ORDER BY created_at COLLATE "C" DESC, id COLLATE "C" DESC LIMIT ${next()}`;
    return (await this.pg.query<ActivityRow>(sql, params)).rows;
  }
}
