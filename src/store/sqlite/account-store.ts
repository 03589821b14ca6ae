import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { transaction } from './open-database.ts';
import {
  type AccountType,
  type AccountRecord,
  type AccountPatch,
  type KeyPatch,
  type NewKey,
  type KeyRecord,
  type KeyDisabler,
  type KeyBySecret,
  type KeyRotation,
  keyBySecret,
  ROTATE_KEY_SQL,
  KEY_BY_SECRET_SQL,
  type KeyPageFilter,
  type KeyCursor,
  type AccountRow,
  type KeyRow,
  toAccount,
  toKey,
  allowlistColumn,
  budgetColumns,
} from '../account-records.ts';

function bigints(stmt: StatementSync): StatementSync {
  stmt.setReadBigInts(true);
  return stmt;
}

/** Accounts and API keys. Statements are prepared once; every call is one lookup or one transaction. */
export class AccountStore {
  private readonly db: DatabaseSync;
  private readonly stmts;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.stmts = {
      insertAccount: db.prepare(`INSERT INTO accounts (id, name, account_type, tier, default_model, balance_nanos, is_active, created_at)
        VALUES (?, ?, ?, ?, ?, 0, 1, ?)`),
      getAccount: bigints(db.prepare('SELECT * FROM accounts WHERE id = ?')),
      listAccounts: bigints(db.prepare('SELECT * FROM accounts ORDER BY created_at, id')),
      countAccounts: db.prepare('SELECT count(*) AS n FROM accounts'),
      balance: bigints(db.prepare('SELECT balance_nanos FROM accounts WHERE id = ?')),
      updateAccount: db.prepare(`UPDATE accounts SET
        tier = coalesce(?, tier), default_model = coalesce(?, default_model), is_active = coalesce(?, is_active) WHERE id = ?`),
      setLimitsOverride: db.prepare('UPDATE accounts SET limits_override = ? WHERE id = ?'),
      setRetention: db.prepare('UPDATE accounts SET retention_days = ? WHERE id = ?'),
      setAccountAllowlist: db.prepare('UPDATE accounts SET allowlist = ? WHERE id = ?'),
      setGuardrails: db.prepare('UPDATE accounts SET guardrails = ? WHERE id = ?'),
      setKeyAllowlist: db.prepare('UPDATE api_keys SET allowlist = ?, updated_at = ? WHERE hash = ?'),
      setKeyMaxInFlight: db.prepare('UPDATE api_keys SET max_in_flight = ?, updated_at = ? WHERE hash = ?'),
      setBudget: db.prepare('UPDATE accounts SET budget_nanos = ?, budget_reset = ?, budget_alert_thresholds = ? WHERE id = ?'),
      updateKey: db.prepare(`UPDATE api_keys SET name = coalesce(?, name), updated_at = ? WHERE hash = ?`),
      setKeyLimit: db.prepare('UPDATE api_keys SET limit_nanos = ?, updated_at = ? WHERE hash = ?'),
      setKeyLimitReset: db.prepare('UPDATE api_keys SET limit_reset = ?, updated_at = ? WHERE hash = ?'),
      deleteKey: db.prepare('DELETE FROM api_keys WHERE hash = ?'),
      insertKey:
        db.prepare(`INSERT INTO api_keys (hash, account_id, name, label, limit_nanos, limit_reset, is_active, is_management, is_admin, is_playground, expires_at, created_at,
        allowlist, max_in_flight) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)`),
      getKey: bigints(db.prepare('SELECT * FROM api_keys WHERE hash = ?')),
      listKeys: bigints(db.prepare('SELECT * FROM api_keys ORDER BY created_at, hash')),
      listKeysOf: bigints(db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, hash')),
      countKeys: db.prepare('SELECT count(*) AS n FROM api_keys WHERE account_id = ?'),
      keysPage: bigints(
        db.prepare(`SELECT * FROM api_keys WHERE (?1 IS NULL OR account_id = ?1)
        AND (?2 = 0 OR (is_management = 0 AND is_admin = 0)) AND (?3 = 0 OR is_active = 1)
        AND (?4 IS NULL OR created_at > ?4 OR (created_at = ?4 AND hash > ?5))
        ORDER BY created_at, hash LIMIT ?6 OFFSET ?7`),
      ),
      // Enabling clears who disabled it; disabling keeps an operator's mark over an account's.
      setKeyActive: db.prepare(`UPDATE api_keys SET is_active = ?1,
        disabled_by = CASE WHEN ?1 = 1 THEN NULL WHEN ?2 = 'operator' THEN 'operator' ELSE coalesce(disabled_by, ?2) END WHERE hash = ?3`),
      keyBySecret: bigints(db.prepare(KEY_BY_SECRET_SQL.replaceAll('$1', '?1'))),
      rotateKey: db.prepare(ROTATE_KEY_SQL.replace(/\$(\d)/g, '?$1')),
      touchKey: db.prepare('UPDATE api_keys SET last_used = ? WHERE hash = ? AND (last_used IS NULL OR last_used < ?)'),
    };
  }

  /** Runs fn in one transaction (joined with the ledger's writes on the same database). */
  inTransaction<T>(fn: () => T): T {
    return transaction(this.db, fn);
  }

  createAccount(input: {
    id: string;
    name: string;
    accountType: AccountType;
    tier: string;
    defaultModel: string | null;
    now: string;
  }): AccountRecord {
    this.stmts.insertAccount.run(input.id, input.name, input.accountType, input.tier, input.defaultModel, input.now);
    return this.getAccount(input.id)!;
  }

  getAccount(id: string): AccountRecord | undefined {
    const row = this.stmts.getAccount.get(id) as AccountRow | undefined;
    return row && toAccount(row);
  }

  listAccounts(): AccountRecord[] {
    return (this.stmts.listAccounts.all() as unknown as AccountRow[]).map(toAccount);
  }

  countAccounts(): number {
    return Number((this.stmts.countAccounts.get() as { n: number }).n);
  }

  /** The balance as it stands in the database (the ledger's sum). */
  balance(accountId: string): bigint | undefined {
    const row = this.stmts.balance.get(accountId) as { balance_nanos: bigint } | undefined;
    return row?.balance_nanos;
  }

  updateAccount(id: string, patch: AccountPatch): AccountRecord | undefined {
    transaction(this.db, () => {
      this.stmts.updateAccount.run(
        patch.tier ?? null,
        patch.defaultModel ?? null,
        patch.isActive === undefined ? null : patch.isActive ? 1 : 0,
        id,
      );
      if (patch.limitsOverride !== undefined) {
        this.stmts.setLimitsOverride.run(patch.limitsOverride === null ? null : JSON.stringify(patch.limitsOverride), id);
      }
      if (patch.retentionDays !== undefined) this.stmts.setRetention.run(patch.retentionDays, id);
      if (patch.allowlist !== undefined) this.stmts.setAccountAllowlist.run(allowlistColumn(patch.allowlist), id);
      if (patch.guardrails !== undefined)
        this.stmts.setGuardrails.run(patch.guardrails === null ? null : JSON.stringify(patch.guardrails), id);
      if (patch.budget !== undefined) this.stmts.setBudget.run(...budgetColumns(patch.budget), id);
    });
    return this.getAccount(id);
  }

  /**
   * The account's change (key-management API). `limitNanos` null removes the key's own limit;
   * `limitReset` null makes the limit cap the whole usage again; undefined leaves either.
   */
  updateKey(hash: string, patch: KeyPatch, now: string): KeyRecord | undefined {
    transaction(this.db, () => {
      this.stmts.updateKey.run(patch.name ?? null, now, hash);
      if (patch.isActive !== undefined) this.setKeyActive(hash, patch.isActive, 'account');
      if (patch.limitNanos !== undefined) this.stmts.setKeyLimit.run(patch.limitNanos, now, hash);
      if (patch.limitReset !== undefined) this.stmts.setKeyLimitReset.run(patch.limitReset, now, hash);
      if (patch.allowlist !== undefined) this.stmts.setKeyAllowlist.run(allowlistColumn(patch.allowlist), now, hash);
      if (patch.maxInFlight !== undefined) this.stmts.setKeyMaxInFlight.run(patch.maxInFlight, now, hash);
    });
    return this.getKey(hash);
  }

  deleteKey(hash: string): boolean {
    return Number(this.stmts.deleteKey.run(hash).changes) > 0;
  }

  createKey(input: NewKey): KeyRecord {
    this.stmts.insertKey.run(
      input.hash,
      input.accountId,
      input.name,
      input.label,
      input.limitNanos,
      input.limitReset ?? null,
      input.isManagement ? 1 : 0,
      input.isAdmin === true ? 1 : 0,
      input.isPlayground === true ? 1 : 0,
      input.expiresAt,
      input.now,
      allowlistColumn(input.allowlist ?? null),
      input.maxInFlight ?? null,
    );
    return this.getKey(input.hash)!;
  }

  getKey(hash: string): KeyRecord | undefined {
    const row = this.stmts.getKey.get(hash) as KeyRow | undefined;
    return row && toKey(row);
  }

  listKeys(accountId?: string): KeyRecord[] {
    const rows = accountId === undefined ? this.stmts.listKeys.all() : this.stmts.listKeysOf.all(accountId);
    return (rows as unknown as KeyRow[]).map(toKey);
  }

  countKeys(accountId: string): number {
    return Number((this.stmts.countKeys.get(accountId) as { n: number | bigint }).n);
  }

  keysPage(filter: KeyPageFilter, after: KeyCursor | null, limit: number, offset = 0): KeyRecord[] {
    const rows = this.stmts.keysPage.all(
      filter.accountId ?? null,
      filter.apiKeysOnly === true ? 1 : 0,
      filter.activeOnly === true ? 1 : 0,
      after?.[0] ?? null,
      after?.[1] ?? null,
      limit,
      offset,
    );
    return (rows as unknown as KeyRow[]).map(toKey);
  }

  /** Returns false when no key has that hash. `by` is recorded when disabling. */
  setKeyActive(hash: string, active: boolean, by: KeyDisabler): boolean {
    return Number(this.stmts.setKeyActive.run(active ? 1 : 0, by, hash).changes) > 0;
  }

  /** The key a presented secret (its hash) opens, and until when; undefined: none. */
  getKeyBySecret(secretHash: string): KeyBySecret | undefined {
    for (const row of this.stmts.keyBySecret.all(secretHash) as unknown as KeyRow[]) {
      const found = keyBySecret(row, secretHash);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Gives the key a new secret (key rotation); undefined when no key has that hash. */
  rotateKeySecret(hash: string, rotation: KeyRotation): KeyRecord | undefined {
    this.stmts.rotateKey.run(rotation.secretHash, rotation.previousUntil, rotation.now, hash);
    return this.getKey(hash);
  }

  /** Records last use for many keys at once (batched off the hot path). */
  touchKeys(lastUsed: ReadonlyMap<string, string>): void {
    if (lastUsed.size === 0) return;
    transaction(this.db, () => {
      for (const [hash, at] of lastUsed) this.stmts.touchKey.run(at, hash, at);
    });
  }
}
