import pg from 'pg';
import { postgresUnavailable } from './postgres-pool.ts';

/**
 * Where the Postgres repositories send their SQL: the pool (each statement on its own), or
 * one client inside a transaction (Stores.transaction). Rows come back as SQLite's
 * statements with setReadBigInts return them: BIGINT and NUMERIC (sums) as bigint, so the
 * row decoders of the SQLite stores read them unchanged. Parameters go out with bigints as
 * decimal text (money is never a float) and booleans as 0/1 (the schema's flags).
 */
export type PgValue = string | number | bigint | boolean | null | readonly string[];

const INT8 = 20;
const NUMERIC = 1700;
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => BigInt(v);
    return pg.types.getTypeParser(oid, format ?? 'text') as (v: string) => unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

function wire(values: readonly PgValue[]): unknown[] {
  return values.map((v) => (typeof v === 'bigint' ? v.toString() : typeof v === 'boolean' ? (v ? 1 : 0) : v));
}

export class PgExecutor {
  private readonly pool: pg.Pool | null;
  private readonly client: pg.PoolClient | null;

  private constructor(pool: pg.Pool | null, client: pg.PoolClient | null) {
    this.pool = pool;
    this.client = client;
  }

  static ofPool(pool: pg.Pool): PgExecutor {
    return new PgExecutor(pool, null);
  }

  /** Inside a transaction (the client is between BEGIN and COMMIT). */
  get inTransaction(): boolean {
    return this.client !== null;
  }

  async query<R = Record<string, unknown>>(text: string, values: readonly PgValue[] = []): Promise<{ rows: R[]; rowCount: number }> {
    try {
      const res = await (this.client ?? this.pool!).query({ text, values: wire(values), types: TYPES });
      return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
    } catch (err) {
      throw postgresUnavailable(err);
    }
  }

  /** Runs fn in one transaction; inside one already, joins it. */
  async atomically<T>(fn: (tx: PgExecutor) => Promise<T>, isolation = 'READ COMMITTED'): Promise<T> {
    if (this.client !== null) return fn(this);
    let client: pg.PoolClient;
    try {
      client = await this.pool!.connect();
    } catch (err) {
      throw postgresUnavailable(err);
    }
    // What fn throws passes unchanged: its statements' failures are classified already (query),
    // and its own refusals (a bound, a missing account, a caller's 400) are not outages.
    let inFn = false;
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
      inFn = true;
      const out = await fn(new PgExecutor(null, client));
      inFn = false;
      await client.query('COMMIT');
      client.release();
      return out;
    } catch (err) {
      const rolledBack = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      // A broken connection is not put back; one that only ran a failing statement is.
      client.release(!rolledBack);
      throw inFn ? err : postgresUnavailable(err);
    }
  }
}
