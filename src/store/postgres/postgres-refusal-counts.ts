import type pg from 'pg';
import {
  RefusalPruneClock,
  toRefusalCount,
  type RefusalCount,
  type RefusalCountRow,
  type RefusalCursor,
  type RefusalFilter,
} from '../refusal-records.ts';
import type { RefusalRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

// refusal-counts.ts for Postgres: the counts of one settlement batch as one upsert (rows in
// key order, so that two instances' batches lock them in the same order), and the admin
// API's keyset pages.

const UPSERT = `INSERT INTO refusal_counts (key_hash, minute, reason, account_id, count)
  SELECT key_hash, minute, reason, account_id, count
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) WITH ORDINALITY AS r(key_hash, minute, reason, account_id, count, n)
  ORDER BY n
  ON CONFLICT (key_hash, minute, reason) DO UPDATE SET count = refusal_counts.count + EXCLUDED.count`;
const PRUNE = 'DELETE FROM refusal_counts WHERE minute < $1';
const LIST = `SELECT account_id, key_hash, minute, reason, count FROM refusal_counts
  WHERE ($1::text IS NULL OR account_id = $1) AND ($2::text IS NULL OR key_hash = $2)
    AND ($3::text IS NULL OR minute >= $3) AND ($4::text IS NULL OR minute <= $4)
    AND ($5::text IS NULL OR (minute, key_hash, reason) < ($5, $6::text, $7::text))
  ORDER BY minute DESC, key_hash DESC, reason DESC LIMIT $8`;

const order = (a: RefusalCount, b: RefusalCount): number => {
  const x = `${a.keyHash}\u0000${a.minute}\u0000${a.reason}`;
  const y = `${b.keyHash}\u0000${b.minute}\u0000${b.reason}`;
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The writing half, inside the settlement transaction (postgres-ledger.ts). */
export class PostgresRefusalCounts {
  private readonly clock = new RefusalPruneClock();

  async write(c: pg.PoolClient, counts: readonly RefusalCount[]): Promise<void> {
    const rows = [...counts].sort(order);
    await c.query({
      name: 'settle-refusals',
      text: UPSERT,
      values: [
        rows.map((r) => r.keyHash),
        rows.map((r) => r.minute),
        rows.map((r) => r.reason),
        rows.map((r) => r.accountId),
        rows.map((r) => String(r.count)),
      ],
    });
    const before = this.clock.due(counts);
    if (before !== null) await c.query(PRUNE, [before]);
  }
}

/** The reading half (the admin API). */
export class PostgresRefusalRepository implements RefusalRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async list(filter: RefusalFilter, after: RefusalCursor | null, limit: number): Promise<RefusalCount[]> {
    const rows = (
      await this.pg.query<RefusalCountRow>(LIST, [
        filter.accountId ?? null,
        filter.keyHash ?? null,
        filter.from ?? null,
        filter.to ?? null,
        after?.[0] ?? null,
        after?.[1] ?? null,
        after?.[2] ?? null,
        limit,
      ])
    ).rows;
    return rows.map(toRefusalCount);
  }
}
