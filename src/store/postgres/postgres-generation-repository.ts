import type { GenerationFilter } from '../generation-query.ts';
import { toGenerationRecord, type GenerationRecord, type UsageWindow } from '../generation-store.ts';
import type { GenerationRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

const SQL = {
  keyWindow: `SELECT coalesce(sum(cost_nanos), 0) AS cost, count(*) AS n
    FROM generations WHERE key_hash = $1 AND created_at >= $2`,
  byId: 'SELECT * FROM generations WHERE id = $1',
  ids: `SELECT id FROM generations
    WHERE ($1::text IS NULL OR account_id = $1) AND ($2::text IS NULL OR key_hash = $2) AND ($3::text IS NULL OR model = $3)
      AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR created_at >= $5) AND ($6::text IS NULL OR created_at < $6)
    ORDER BY created_at COLLATE "C" DESC, id COLLATE "C" DESC LIMIT $7`,
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
    const res = await this.pg.query<{ id: string }>(SQL.ids, [f.accountId ?? null, f.keyHash ?? null, f.model ?? null, f.status ?? null,
      f.since ?? null, f.until ?? null, f.limit]);
    return res.rows.map((r) => r.id);
  }

  async keyUsageSince(keyHash: string, sinceIso: string): Promise<UsageWindow> {
    const row = (await this.pg.query<{ cost: bigint; n: bigint }>(SQL.keyWindow, [keyHash, sinceIso])).rows[0]!;
    return { costNanos: row.cost, requests: Number(row.n) };
  }
}
