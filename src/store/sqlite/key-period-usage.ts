import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * What a key spent on given UTC days, from the usage_daily_keys rollup (moved in the
 * settlement transaction, so it agrees with the key's usage): one primary-key lookup per
 * day, at most 31 for a month. The period a limit resets over is the caller's
 * (billing/key-limit-remaining.ts).
 */
export class KeyPeriodUsage {
  private readonly day: StatementSync;

  constructor(db: DatabaseSync) {
    this.day = db.prepare('SELECT cost_nanos, requests FROM usage_daily_keys WHERE day = ? AND account_id = ? AND key_hash = ?');
    this.day.setReadBigInts(true);
  }

  /** The cost (nano-USD) the key's settled requests created on these days (YYYY-MM-DD). */
  costOnDays(accountId: string, keyHash: string, days: readonly string[]): bigint {
    let sum = 0n;
    for (const d of days) {
      const row = this.day.get(d, accountId, keyHash) as { cost_nanos: bigint } | undefined;
      if (row !== undefined) sum += row.cost_nanos;
    }
    return sum;
  }

  /** Cost and requests per day (only the days with usage), in day order: a key's daily history. */
  perDay(accountId: string, keyHash: string, days: readonly string[]): Array<{ day: string; costNanos: bigint; requests: number }> {
    const out: Array<{ day: string; costNanos: bigint; requests: number }> = [];
    for (const d of days) {
      const row = this.day.get(d, accountId, keyHash) as { cost_nanos: bigint; requests: bigint } | undefined;
      if (row !== undefined) out.push({ day: d, costNanos: row.cost_nanos, requests: Number(row.requests) });
    }
    return out;
  }
}
