import { msOrNull, type GenerationFilter } from '../generation-records.ts';
import { toGenerationRecord, type GenerationRecord, type UsageWindow } from '../generation-records.ts';
import type { GenerationRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

const SQL = {
  keyWindow: `SELECT coalesce(sum(cost_nanos), 0) AS cost, count(*) AS n
    FROM generation_records WHERE key_ref = (SELECT id FROM record_names WHERE name = $1) AND created_ms >= $2`,
  byId: 'SELECT * FROM generations WHERE id = $1',
  ids: `SELECT id FROM generations
    WHERE ($1::text IS NULL OR account_ref = (SELECT id FROM record_names WHERE name = $1))
      AND ($2::text IS NULL OR key_ref = (SELECT id FROM record_names WHERE name = $2))
      AND ($3::text IS NULL OR model_ref = (SELECT id FROM record_names WHERE name = $3))
      AND ($4::text IS NULL OR status = $4) AND ($5::bigint IS NULL OR created_ms >= $5) AND ($6::bigint IS NULL OR created_ms < $6)
    ORDER BY created_ms DESC, seq DESC LIMIT $7`,
};

/** generation-store.ts and generation-query.ts for Postgres. */
export class PostgresGenerationRepository implements GenerationRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async getRecord(id: string): Promise<GenerationRecord | undefined> {
    const row = (await this.pg.query<Record<string, bigint | string | null>>(SQL.byId, [id])).rows[0];
    return row === undefined ? undefined : toGenerationRecord(row);
  }

  async ids(f: GenerationFilter): Promise<string[]> {
    const res = await this.pg.query<{ id: string }>(SQL.ids, [
      f.accountId ?? null,
      f.keyHash ?? null,
      f.model ?? null,
      f.status ?? null,
      msOrNull(f.since),
      msOrNull(f.until),
      f.limit,
    ]);
    return res.rows.map((r) => r.id);
  }

  async keyUsageSince(keyHash: string, sinceIso: string): Promise<UsageWindow> {
    const row = (await this.pg.query<{ cost: bigint; n: bigint }>(SQL.keyWindow, [keyHash, Date.parse(sinceIso)])).rows[0]!;
    return { costNanos: row.cost, requests: Number(row.n) };
  }
}
