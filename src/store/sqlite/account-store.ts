import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { transaction } from './open-database.ts';
import type { LimitsOverride } from '../../config/tier-limits.ts';
import type { Allowlist } from '../../catalog/model-access.ts';
import type { GuardrailRule } from '../../catalog/guardrail-rule.ts';

export type AccountType = 'user' | 'organization';

export interface AccountRecord {
  id: string;
  name: string;
  accountType: AccountType;
  tier: string;
  defaultModel: string | null;
  balanceNanos: bigint;
  isActive: boolean;
  createdAt: string;
  limitsOverride: LimitsOverride | null;
  /** Days the account's generation records are kept; null: its tier's, else `records.retention_days` (records-retention.ts). */
  retentionDays: number | null;
  /** What the account's keys may reach (catalog/model-access.ts); null: everything. */
  allowlist: Allowlist | null;
  /** Rules applied to every text the model will read (moderation/guardrails.ts); null: none. */
  guardrails: GuardrailRule[] | null;
  /** What the account may spend per window (billing/budgets.ts); null: no budget. */
  budget: AccountBudget | null;
}

/** An account's budget: `amountNanos` per `reset` window (UTC, as a key's limit_reset), or over its whole usage (null). */
export interface AccountBudget {
  amountNanos: bigint;
  reset: KeyLimitReset | null;
  /** Percentages at which budget.threshold fires; null: the configured alerts.thresholds. */
  alertThresholds: number[] | null;
}

/** An operator's change to an account (undefined: unchanged; null clears an override). */
export interface AccountPatch {
  tier?: string;
  defaultModel?: string;
  isActive?: boolean;
  limitsOverride?: LimitsOverride | null;
  retentionDays?: number | null;
  allowlist?: Allowlist | null;
  guardrails?: GuardrailRule[] | null;
  budget?: AccountBudget | null;
}

/** A change of a key (undefined: unchanged; null clears). */
export interface KeyPatch {
  name?: string;
  isActive?: boolean;
  limitNanos?: bigint | null;
  limitReset?: KeyLimitReset | null;
  allowlist?: Allowlist | null;
  maxInFlight?: number | null;
}

/** A new key's row. */
export interface NewKey {
  hash: string; accountId: string; name: string; label: string; limitNanos: bigint | null; limitReset?: KeyLimitReset | null;
  isManagement: boolean; isAdmin?: boolean; isPlayground?: boolean; expiresAt: string | null; now: string;
  allowlist?: Allowlist | null; maxInFlight?: number | null;
}

export interface KeyRecord {
  hash: string;
  accountId: string;
  name: string;
  label: string;
  limitNanos: bigint | null;
  /** The limit's period: it caps the usage since the period began (billing/key-limit-remaining.ts); null: the whole usage. */
  limitReset: KeyLimitReset | null;
  usageNanos: bigint;
  isActive: boolean;
  isManagement: boolean;
  /** A global operator key for the admin API (/api/v1/admin); like a management key, it cannot call models. */
  isAdmin: boolean;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string | null;
  lastUsed: string | null;
  /** Who disabled it: the operator's revocation is final for the account. Null while active. */
  disabledBy: KeyDisabler | null;
  /** Made by the dashboard's playground for itself (short-lived, limited): the only keys the playground removes. */
  isPlayground: boolean;
  /** The member who holds it (members, migration 15); null: the account's. */
  memberId: string | null;
  /** What the key may reach, besides its account's list (catalog/model-access.ts); null: no list of its own. */
  allowlist: Allowlist | null;
  /** Requests of this key in flight at once; null: no cap (limits/in-flight-limiter.ts). */
  maxInFlight: number | null;
}

export type KeyDisabler = 'operator' | 'account';

/**
 * A key found by a presented secret's hash: the secret in force (`secretExpiresAt` null), or
 * the one a rotation replaced, which works until `secretExpiresAt` (ISO time).
 */
export interface KeyBySecret {
  key: KeyRecord;
  secretExpiresAt: string | null;
}

/** How a key's secret is replaced (key rotation): the new secret's hash; the old one works until `previousUntil` (null: not at all). */
export interface KeyRotation {
  secretHash: string;
  previousUntil: string | null;
  now: string;
}

/** The secret columns of an api_keys row (migration 17). */
interface SecretColumns { secret_hash: string | null; previous_secret_hash: string | null; previous_secret_expires_at: string | null }

/** Which secret of the row `secretHash` is, if any. */
export function keyBySecret(row: (KeyRow & Partial<SecretColumns>) | undefined, secretHash: string): KeyBySecret | undefined {
  if (row === undefined) return undefined;
  const current = row.secret_hash ?? row.hash;
  if (current === secretHash) return { key: toKey(row), secretExpiresAt: null };
  if (row.previous_secret_hash === secretHash && row.previous_secret_expires_at != null) return { key: toKey(row), secretExpiresAt: row.previous_secret_expires_at };
  return undefined;
}

/** The SQL of a rotation: $1 the new secret's hash, $2 the old one's end (NULL: now), $3 now, $4 the key's hash. */
export const ROTATE_KEY_SQL = `UPDATE api_keys SET
  previous_secret_hash = CASE WHEN $2 IS NULL THEN NULL ELSE coalesce(secret_hash, hash) END,
  previous_secret_expires_at = $2, secret_hash = $1, updated_at = $3 WHERE hash = $4`;
/** The SQL of the lookup by a presented secret's hash ($1): the secret in force, a never-rotated key's own hash, or the previous secret. */
export const KEY_BY_SECRET_SQL = `SELECT * FROM api_keys WHERE secret_hash = $1 OR (hash = $1 AND secret_hash IS NULL) OR previous_secret_hash = $1`;

/** Which keys a page lists: one account's or all; API keys only (no management or admin keys); enabled ones only. */
export interface KeyPageFilter {
  accountId?: string;
  apiKeysOnly?: boolean;
  activeOnly?: boolean;
}

/** A key page's position: the last key's (created_at, hash). */
export type KeyCursor = [createdAt: string, hash: string];

/** How often a key's credit limit starts again (UTC): as OpenRouter's `limit_reset`. */
export type KeyLimitReset = 'daily' | 'weekly' | 'monthly';
export const KEY_LIMIT_RESETS: readonly KeyLimitReset[] = ['daily', 'weekly', 'monthly'];

export interface AccountRow {
  id: string; name: string; account_type: AccountType; tier: string; default_model: string | null;
  balance_nanos: bigint; is_active: bigint; created_at: string; limits_override: string | null; retention_days?: bigint | number | null; allowlist?: string | null; guardrails?: string | null;
  budget_nanos?: bigint | string | null; budget_reset?: KeyLimitReset | null; budget_alert_thresholds?: string | null;
}
export interface KeyRow {
  hash: string; account_id: string; name: string; label: string; limit_nanos: bigint | null; usage_nanos: bigint;
  is_active: bigint; is_management: bigint; is_admin: bigint; expires_at: string | null; created_at: string; updated_at: string | null; last_used: string | null;
  disabled_by: KeyDisabler | null; limit_reset: KeyLimitReset | null; is_playground: bigint; member_id?: string | null;
  allowlist?: string | null; max_in_flight?: bigint | number | null;
}

export function toAccount(r: AccountRow): AccountRecord {
  return {
    id: r.id, name: r.name, accountType: r.account_type, tier: r.tier, defaultModel: r.default_model,
    balanceNanos: r.balance_nanos, isActive: r.is_active === 1n, createdAt: r.created_at,
    limitsOverride: r.limits_override === null ? null : (JSON.parse(r.limits_override) as LimitsOverride),
    retentionDays: r.retention_days === null || r.retention_days === undefined ? null : Number(r.retention_days),
    allowlist: parseAllowlist(r.allowlist),
    guardrails: r.guardrails === null || r.guardrails === undefined ? null : (JSON.parse(r.guardrails) as GuardrailRule[]),
    budget: r.budget_nanos === null || r.budget_nanos === undefined ? null : {
      amountNanos: BigInt(r.budget_nanos),
      reset: r.budget_reset ?? null,
      alertThresholds: r.budget_alert_thresholds === null || r.budget_alert_thresholds === undefined ? null : (JSON.parse(r.budget_alert_thresholds) as number[]),
    },
  };
}
export function toKey(r: KeyRow): KeyRecord {
  return {
    hash: r.hash, accountId: r.account_id, name: r.name, label: r.label, limitNanos: r.limit_nanos,
    limitReset: r.limit_reset ?? null, usageNanos: r.usage_nanos, isActive: r.is_active === 1n, isManagement: r.is_management === 1n, isAdmin: r.is_admin === 1n,
    expiresAt: r.expires_at, createdAt: r.created_at, updatedAt: r.updated_at, lastUsed: r.last_used,
    disabledBy: r.disabled_by, isPlayground: r.is_playground === 1n, memberId: r.member_id ?? null,
    allowlist: parseAllowlist(r.allowlist), maxInFlight: r.max_in_flight === null || r.max_in_flight === undefined ? null : Number(r.max_in_flight),
  };
}

function parseAllowlist(text: string | null | undefined): Allowlist | null {
  return text === null || text === undefined ? null : (JSON.parse(text) as Allowlist);
}

/** An allowlist as its column holds it (NULL: none). */
export function allowlistColumn(list: Allowlist | null): string | null {
  return list === null ? null : JSON.stringify(list);
}

/** The accounts table's budget columns for a budget (null: cleared). */
export function budgetColumns(b: AccountBudget | null): [string | null, KeyLimitReset | null, string | null] {
  if (b === null) return [null, null, null];
  return [String(b.amountNanos), b.reset, b.alertThresholds === null ? null : JSON.stringify(b.alertThresholds)];
}

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
      insertKey: db.prepare(`INSERT INTO api_keys (hash, account_id, name, label, limit_nanos, limit_reset, is_active, is_management, is_admin, is_playground, expires_at, created_at,
        allowlist, max_in_flight) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)`),
      getKey: bigints(db.prepare('SELECT * FROM api_keys WHERE hash = ?')),
      listKeys: bigints(db.prepare('SELECT * FROM api_keys ORDER BY created_at, hash')),
      listKeysOf: bigints(db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, hash')),
      countKeys: db.prepare('SELECT count(*) AS n FROM api_keys WHERE account_id = ?'),
      keysPage: bigints(db.prepare(`SELECT * FROM api_keys WHERE (?1 IS NULL OR account_id = ?1)
        AND (?2 = 0 OR (is_management = 0 AND is_admin = 0)) AND (?3 = 0 OR is_active = 1)
        AND (?4 IS NULL OR created_at > ?4 OR (created_at = ?4 AND hash > ?5))
        ORDER BY created_at, hash LIMIT ?6 OFFSET ?7`)),
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

  createAccount(input: { id: string; name: string; accountType: AccountType; tier: string; defaultModel: string | null; now: string }): AccountRecord {
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
      this.stmts.updateAccount.run(patch.tier ?? null, patch.defaultModel ?? null, patch.isActive === undefined ? null : patch.isActive ? 1 : 0, id);
      if (patch.limitsOverride !== undefined) {
        this.stmts.setLimitsOverride.run(patch.limitsOverride === null ? null : JSON.stringify(patch.limitsOverride), id);
      }
      if (patch.retentionDays !== undefined) this.stmts.setRetention.run(patch.retentionDays, id);
      if (patch.allowlist !== undefined) this.stmts.setAccountAllowlist.run(allowlistColumn(patch.allowlist), id);
      if (patch.guardrails !== undefined) this.stmts.setGuardrails.run(patch.guardrails === null ? null : JSON.stringify(patch.guardrails), id);
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
    this.stmts.insertKey.run(input.hash, input.accountId, input.name, input.label, input.limitNanos, input.limitReset ?? null,
      input.isManagement ? 1 : 0, input.isAdmin === true ? 1 : 0, input.isPlayground === true ? 1 : 0, input.expiresAt, input.now,
      allowlistColumn(input.allowlist ?? null), input.maxInFlight ?? null);
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
    const rows = this.stmts.keysPage.all(filter.accountId ?? null, filter.apiKeysOnly === true ? 1 : 0, filter.activeOnly === true ? 1 : 0,
      after?.[0] ?? null, after?.[1] ?? null, limit, offset);
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
