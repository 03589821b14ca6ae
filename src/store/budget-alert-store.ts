import type { SqlRunner } from './webhook-store.ts';

// Threshold alerts (table budget_alerts) and the account spend a budget caps: one
// implementation over both engines (webhook-store.ts's runner: `?` parameters).

export interface BudgetAlertClaim {
  scope: string;
  /** The account id, member id or key hash. */
  subjectId: string;
  /** ISO start of the budget's window; '' without one (or for a low balance). */
  windowStart: string;
  /** Percent (or 0 for a low balance). */
  threshold: number;
  accountId: string;
  createdAt: string;
}

export interface BudgetAlertRepository {
  /** Records the alert; true only for the caller whose insert made the row (it sends the event): once per fleet. */
  claim(c: BudgetAlertClaim): Promise<boolean>;
  /** Forgets the subject's alerts of a scope (a low balance that recovered may fire again). */
  rearm(scope: string, subjectId: string): Promise<void>;
  /** What the account spent (every key's) on these UTC days, or (null) over its whole usage. */
  accountCost(accountId: string, days: readonly string[] | null): Promise<bigint>;
  /** What the member spent (every key they hold) on these UTC days, or (null) over those keys' whole usage. */
  memberCost(memberId: string, days: readonly string[] | null): Promise<bigint>;
}

export class SqlBudgetAlertRepository implements BudgetAlertRepository {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  async claim(c: BudgetAlertClaim): Promise<boolean> {
    const changed = await this.sql.run(
      `INSERT INTO budget_alerts (scope, subject_id, window_start, threshold, account_id, created_at)
      VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope, subject_id, window_start, threshold) DO NOTHING`,
      [c.scope, c.subjectId, c.windowStart, c.threshold, c.accountId, c.createdAt],
    );
    return changed === 1;
  }

  async rearm(scope: string, subjectId: string): Promise<void> {
    await this.sql.run('DELETE FROM budget_alerts WHERE scope = ? AND subject_id = ?', [scope, subjectId]);
  }

  async accountCost(accountId: string, days: readonly string[] | null): Promise<bigint> {
    if (days !== null && days.length === 0) return 0n;
    const rows =
      days === null
        ? await this.sql.all('SELECT CAST(coalesce(sum(usage_nanos), 0) AS TEXT) AS cost FROM api_keys WHERE account_id = ?', [accountId])
        : await this.sql.all(
            `SELECT CAST(coalesce(sum(cost_nanos), 0) AS TEXT) AS cost FROM usage_daily_keys
          WHERE account_id = ? AND day IN (${days.map(() => '?').join(', ')})`,
            [accountId, ...days],
          );
    // CAST(... AS TEXT): the sum as decimal text, beyond a double's range.
    return BigInt((rows[0]?.cost as string | undefined) ?? '0');
  }

  async memberCost(memberId: string, days: readonly string[] | null): Promise<bigint> {
    if (days !== null && days.length === 0) return 0n;
    const rows =
      days === null
        ? await this.sql.all('SELECT CAST(coalesce(sum(usage_nanos), 0) AS TEXT) AS cost FROM api_keys WHERE member_id = ?', [memberId])
        : await this.sql.all(
            `SELECT CAST(coalesce(sum(u.cost_nanos), 0) AS TEXT) AS cost FROM api_keys k
          JOIN usage_daily_keys u ON u.account_id = k.account_id AND u.key_hash = k.hash
          WHERE k.member_id = ? AND u.day IN (${days.map(() => '?').join(', ')})`,
            [memberId, ...days],
          );
    const cost = rows[0]?.cost;
    return typeof cost === 'string' || typeof cost === 'bigint' || typeof cost === 'number' ? BigInt(cost) : 0n;
  }
}
