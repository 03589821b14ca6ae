import {
  allowlistColumn,
  budgetColumns,
  toAccount,
  toKey,
  type AccountPatch,
  type KeyPatch,
  type NewKey,
  type AccountRecord,
  type AccountRow,
  type AccountType,
  type KeyCursor,
  type KeyDisabler,
  type KeyPageFilter,
  type KeyRecord,
  type KeyRow,
} from '../account-records.ts';
import type { AccountRepository } from '../store-contract.ts';
import { KEY_BY_SECRET_SQL, keyBySecret, ROTATE_KEY_SQL, type KeyBySecret, type KeyRotation } from '../account-records.ts';
import type { PgExecutor } from './pg-executor.ts';

// Text keys order byte-wise (COLLATE "C"), as SQLite's do, whatever the database's locale.
const SQL = {
  insertAccount: `INSERT INTO accounts (id, name, account_type, tier, default_model, balance_nanos, is_active, created_at)
    VALUES ($1, $2, $3, $4, $5, 0, 1, $6)`,
  getAccount: 'SELECT * FROM accounts WHERE id = $1',
  listAccounts: 'SELECT * FROM accounts ORDER BY created_at COLLATE "C", id COLLATE "C"',
  countAccounts: 'SELECT count(*) AS n FROM accounts',
  balance: 'SELECT balance_nanos FROM accounts WHERE id = $1',
  updateAccount: `UPDATE accounts SET tier = coalesce($1, tier), default_model = coalesce($2, default_model),
    is_active = coalesce($3::bigint, is_active) WHERE id = $4`,
  setLimitsOverride: 'UPDATE accounts SET limits_override = $1 WHERE id = $2',
  setRetention: 'UPDATE accounts SET retention_days = $1 WHERE id = $2',
  setAccountAllowlist: 'UPDATE accounts SET allowlist = $1 WHERE id = $2',
  setGuardrails: 'UPDATE accounts SET guardrails = $1 WHERE id = $2',
  setKeyAllowlist: 'UPDATE api_keys SET allowlist = $1, updated_at = $2 WHERE hash = $3',
  setKeyMaxInFlight: 'UPDATE api_keys SET max_in_flight = $1, updated_at = $2 WHERE hash = $3',
  setBudget: 'UPDATE accounts SET budget_nanos = $1, budget_reset = $2, budget_alert_thresholds = $3 WHERE id = $4',
  updateKey: 'UPDATE api_keys SET name = coalesce($1, name), updated_at = $2 WHERE hash = $3',
  setKeyLimit: 'UPDATE api_keys SET limit_nanos = $1, updated_at = $2 WHERE hash = $3',
  setKeyLimitReset: 'UPDATE api_keys SET limit_reset = $1, updated_at = $2 WHERE hash = $3',
  deleteKey: 'DELETE FROM api_keys WHERE hash = $1',
  insertKey: `INSERT INTO api_keys (hash, account_id, name, label, limit_nanos, limit_reset, is_active, is_management, is_admin, is_playground, expires_at, created_at,
    allowlist, max_in_flight) VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $10, $11, $12, $13)`,
  getKey: 'SELECT * FROM api_keys WHERE hash = $1',
  listKeys: 'SELECT * FROM api_keys ORDER BY created_at COLLATE "C", hash COLLATE "C"',
  listKeysOf: 'SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at COLLATE "C", hash COLLATE "C"',
  countKeys: 'SELECT count(*) AS n FROM api_keys WHERE account_id = $1',
  keysPage: `SELECT * FROM api_keys WHERE ($1::text IS NULL OR account_id = $1)
    AND ($2::bigint = 0 OR (is_management = 0 AND is_admin = 0)) AND ($3::bigint = 0 OR is_active = 1)
    AND ($4::text IS NULL OR created_at COLLATE "C" > $4 OR (created_at = $4 AND hash COLLATE "C" > $5::text))
    ORDER BY created_at COLLATE "C", hash COLLATE "C" LIMIT $6 OFFSET $7`,
  // Enabling clears who disabled it; disabling keeps an operator's mark over an account's.
  setKeyActive: `UPDATE api_keys SET is_active = $1::bigint,
    disabled_by = CASE WHEN $1::bigint = 1 THEN NULL WHEN $2::text = 'operator' THEN 'operator' ELSE coalesce(disabled_by, $2::text) END WHERE hash = $3`,
  touchKey: 'UPDATE api_keys SET last_used = $1 WHERE hash = $2 AND (last_used IS NULL OR last_used < $1)',
};

/** Accounts and API keys in Postgres: account-store.ts's statements and row shapes. */
export class PostgresAccountRepository implements AccountRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async createAccount(input: {
    id: string;
    name: string;
    accountType: AccountType;
    tier: string;
    defaultModel: string | null;
    now: string;
  }): Promise<AccountRecord> {
    await this.pg.query(SQL.insertAccount, [input.id, input.name, input.accountType, input.tier, input.defaultModel, input.now]);
    return (await this.getAccount(input.id))!;
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const row = (await this.pg.query<AccountRow>(SQL.getAccount, [id])).rows[0];
    return row && toAccount(row);
  }

  async listAccounts(): Promise<AccountRecord[]> {
    return (await this.pg.query<AccountRow>(SQL.listAccounts)).rows.map(toAccount);
  }

  async countAccounts(): Promise<number> {
    return Number((await this.pg.query<{ n: bigint }>(SQL.countAccounts)).rows[0]!.n);
  }

  async balance(accountId: string): Promise<bigint | undefined> {
    return (await this.pg.query<{ balance_nanos: bigint }>(SQL.balance, [accountId])).rows[0]?.balance_nanos;
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<AccountRecord | undefined> {
    await this.pg.atomically(async (tx) => {
      await tx.query(SQL.updateAccount, [
        patch.tier ?? null,
        patch.defaultModel ?? null,
        patch.isActive === undefined ? null : patch.isActive,
        id,
      ]);
      if (patch.limitsOverride !== undefined) {
        await tx.query(SQL.setLimitsOverride, [patch.limitsOverride === null ? null : JSON.stringify(patch.limitsOverride), id]);
      }
      if (patch.retentionDays !== undefined) await tx.query(SQL.setRetention, [patch.retentionDays, id]);
      if (patch.allowlist !== undefined) await tx.query(SQL.setAccountAllowlist, [allowlistColumn(patch.allowlist), id]);
      if (patch.guardrails !== undefined)
        await tx.query(SQL.setGuardrails, [patch.guardrails === null ? null : JSON.stringify(patch.guardrails), id]);
      if (patch.budget !== undefined) await tx.query(SQL.setBudget, [...budgetColumns(patch.budget), id]);
    });
    return this.getAccount(id);
  }

  async updateKey(hash: string, patch: KeyPatch, now: string): Promise<KeyRecord | undefined> {
    await this.pg.atomically(async (tx) => {
      await tx.query(SQL.updateKey, [patch.name ?? null, now, hash]);
      if (patch.isActive !== undefined) await tx.query(SQL.setKeyActive, [patch.isActive, 'account', hash]);
      if (patch.limitNanos !== undefined) await tx.query(SQL.setKeyLimit, [patch.limitNanos, now, hash]);
      if (patch.limitReset !== undefined) await tx.query(SQL.setKeyLimitReset, [patch.limitReset, now, hash]);
      if (patch.allowlist !== undefined) await tx.query(SQL.setKeyAllowlist, [allowlistColumn(patch.allowlist), now, hash]);
      if (patch.maxInFlight !== undefined) await tx.query(SQL.setKeyMaxInFlight, [patch.maxInFlight, now, hash]);
    });
    return this.getKey(hash);
  }

  async deleteKey(hash: string): Promise<boolean> {
    return (await this.pg.query(SQL.deleteKey, [hash])).rowCount > 0;
  }

  async createKey(input: NewKey): Promise<KeyRecord> {
    await this.pg.query(SQL.insertKey, [
      input.hash,
      input.accountId,
      input.name,
      input.label,
      input.limitNanos,
      input.limitReset ?? null,
      input.isManagement,
      input.isAdmin === true,
      input.isPlayground === true,
      input.expiresAt,
      input.now,
      allowlistColumn(input.allowlist ?? null),
      input.maxInFlight ?? null,
    ]);
    return (await this.getKey(input.hash))!;
  }

  async getKey(hash: string): Promise<KeyRecord | undefined> {
    const row = (await this.pg.query<KeyRow>(SQL.getKey, [hash])).rows[0];
    return row && toKey(row);
  }

  async getKeyBySecret(secretHash: string): Promise<KeyBySecret | undefined> {
    for (const row of (await this.pg.query<KeyRow>(KEY_BY_SECRET_SQL, [secretHash])).rows) {
      const found = keyBySecret(row, secretHash);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  async rotateKeySecret(hash: string, rotation: KeyRotation): Promise<KeyRecord | undefined> {
    await this.pg.query(ROTATE_KEY_SQL.replaceAll('$2', '$2::text'), [rotation.secretHash, rotation.previousUntil, rotation.now, hash]);
    return this.getKey(hash);
  }

  async listKeys(accountId?: string): Promise<KeyRecord[]> {
    const res =
      accountId === undefined ? await this.pg.query<KeyRow>(SQL.listKeys) : await this.pg.query<KeyRow>(SQL.listKeysOf, [accountId]);
    return res.rows.map(toKey);
  }

  async countKeys(accountId: string): Promise<number> {
    return Number((await this.pg.query<{ n: bigint }>(SQL.countKeys, [accountId])).rows[0]!.n);
  }

  async keysPage(filter: KeyPageFilter, after: KeyCursor | null, limit: number, offset = 0): Promise<KeyRecord[]> {
    const res = await this.pg.query<KeyRow>(SQL.keysPage, [
      filter.accountId ?? null,
      filter.apiKeysOnly === true ? 1 : 0,
      filter.activeOnly === true ? 1 : 0,
      after?.[0] ?? null,
      after?.[1] ?? null,
      limit,
      offset,
    ]);
    return res.rows.map(toKey);
  }

  async setKeyActive(hash: string, active: boolean, by: KeyDisabler): Promise<boolean> {
    return (await this.pg.query(SQL.setKeyActive, [active, by, hash])).rowCount > 0;
  }

  async touchKeys(lastUsed: ReadonlyMap<string, string>): Promise<void> {
    if (lastUsed.size === 0) return;
    // Keys in a fixed order, so concurrent batches of several instances lock rows alike.
    const sorted = [...lastUsed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    await this.pg.atomically(async (tx) => {
      for (const [hash, at] of sorted) await tx.query(SQL.touchKey, [at, hash]);
    });
  }
}
