import type { ReloadStatus } from '../reload-status-record.ts';
import type { ReloadStatusRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

// reload-status.ts for Postgres: one row per instance would suit a fleet better; for now the
// same one row as SQLite (the last reload of any instance), created on first write.
const CREATE = `CREATE TABLE IF NOT EXISTS serve_reload (
  id          BIGINT PRIMARY KEY CHECK (id = 1),
  pid         BIGINT NOT NULL,
  attempt     BIGINT NOT NULL,
  generation  BIGINT NOT NULL,
  ok          BIGINT NOT NULL,
  error       TEXT,
  at          TEXT NOT NULL
)`;

const UPSERT = `INSERT INTO serve_reload (id, pid, attempt, generation, ok, error, at) VALUES (1, $1, $2, $3, $4, $5, $6)
  ON CONFLICT (id) DO UPDATE SET pid = EXCLUDED.pid, attempt = EXCLUDED.attempt, generation = EXCLUDED.generation,
    ok = EXCLUDED.ok, error = EXCLUDED.error, at = EXCLUDED.at`;

export class PostgresReloadStatus implements ReloadStatusRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async write(status: ReloadStatus): Promise<boolean> {
    try {
      await this.pg.query(CREATE);
      await this.pg.query(UPSERT, [status.pid, status.attempt, status.generation, status.ok, status.error, status.at]);
      return true;
    } catch {
      return false;
    }
  }

  async read(): Promise<ReloadStatus | null> {
    let row: { pid: bigint; attempt: bigint; generation: bigint; ok: bigint; error: string | null; at: string } | undefined;
    try {
      row = (await this.pg.query<NonNullable<typeof row>>('SELECT pid, attempt, generation, ok, error, at FROM serve_reload WHERE id = 1'))
        .rows[0];
    } catch {
      return null;
    }
    if (row === undefined) return null;
    return {
      pid: Number(row.pid),
      attempt: Number(row.attempt),
      generation: Number(row.generation),
      ok: row.ok === 1n,
      error: row.error,
      at: row.at,
    };
  }
}
