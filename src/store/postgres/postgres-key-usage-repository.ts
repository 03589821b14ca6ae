import type { KeyUsageRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

// key-period-usage.ts for Postgres: a key's cost and requests per UTC day from the
// usage_daily_keys rollup, one indexed query for all the days asked about.

const SQL = `SELECT day, cost_nanos, requests FROM usage_daily_keys
  WHERE account_id = $1 AND key_hash = $2 AND day = ANY($3::text[]) ORDER BY day COLLATE "C"`;

export class PostgresKeyUsageRepository implements KeyUsageRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async costOnDays(accountId: string, keyHash: string, days: readonly string[]): Promise<bigint> {
    let sum = 0n;
    for (const d of await this.perDay(accountId, keyHash, days)) sum += d.costNanos;
    return sum;
  }

  async perDay(
    accountId: string,
    keyHash: string,
    days: readonly string[],
  ): Promise<Array<{ day: string; costNanos: bigint; requests: number }>> {
    if (days.length === 0) return [];
    const rows = (await this.pg.query<{ day: string; cost_nanos: bigint; requests: bigint }>(SQL, [accountId, keyHash, [...days]])).rows;
    return rows.map((r) => ({ day: r.day, costNanos: BigInt(r.cost_nanos), requests: Number(r.requests) }));
  }
}
