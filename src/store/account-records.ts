import type { LimitsOverride } from '../config/tier-limits.ts';
import type { Allowlist } from '../catalog/model-access.ts';
import type { GuardrailRule } from '../catalog/guardrail-rule.ts';

// Accounts and API keys as the store contract hands them out, and what both engines share
// to read and write them (rows, columns, the secret lookup's SQL).

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
  hash: string;
  accountId: string;
  name: string;
  label: string;
  limitNanos: bigint | null;
  limitReset?: KeyLimitReset | null;
  isManagement: boolean;
  isAdmin?: boolean;
  isPlayground?: boolean;
  expiresAt: string | null;
  now: string;
  allowlist?: Allowlist | null;
  maxInFlight?: number | null;
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
interface SecretColumns {
  secret_hash: string | null;
  previous_secret_hash: string | null;
  previous_secret_expires_at: string | null;
}

/** Which secret of the row `secretHash` is, if any. */
export function keyBySecret(row: (KeyRow & Partial<SecretColumns>) | undefined, secretHash: string): KeyBySecret | undefined {
  if (row === undefined) return undefined;
  const current = row.secret_hash ?? row.hash;
  if (current === secretHash) return { key: toKey(row), secretExpiresAt: null };
  if (row.previous_secret_hash === secretHash && row.previous_secret_expires_at != null)
    return { key: toKey(row), secretExpiresAt: row.previous_secret_expires_at };
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
  id: string;
  name: string;
  account_type: AccountType;
  tier: string;
  default_model: string | null;
  balance_nanos: bigint;
  is_active: bigint;
  created_at: string;
  limits_override: string | null;
  retention_days?: bigint | number | null;
  allowlist?: string | null;
  guardrails?: string | null;
  budget_nanos?: bigint | string | null;
  budget_reset?: KeyLimitReset | null;
  budget_alert_thresholds?: string | null;
}
export interface KeyRow {
  hash: string;
  account_id: string;
  name: string;
  label: string;
  limit_nanos: bigint | null;
  usage_nanos: bigint;
  is_active: bigint;
  is_management: bigint;
  is_admin: bigint;
  expires_at: string | null;
  created_at: string;
  updated_at: string | null;
  last_used: string | null;
  disabled_by: KeyDisabler | null;
  limit_reset: KeyLimitReset | null;
  is_playground: bigint;
  member_id?: string | null;
  allowlist?: string | null;
  max_in_flight?: bigint | number | null;
}

export function toAccount(r: AccountRow): AccountRecord {
  return {
    id: r.id,
    name: r.name,
    accountType: r.account_type,
    tier: r.tier,
    defaultModel: r.default_model,
    balanceNanos: r.balance_nanos,
    isActive: r.is_active === 1n,
    createdAt: r.created_at,
    limitsOverride: r.limits_override === null ? null : (JSON.parse(r.limits_override) as LimitsOverride),
    retentionDays: r.retention_days === null || r.retention_days === undefined ? null : Number(r.retention_days),
    allowlist: parseAllowlist(r.allowlist),
    guardrails: r.guardrails === null || r.guardrails === undefined ? null : (JSON.parse(r.guardrails) as GuardrailRule[]),
    budget:
      r.budget_nanos === null || r.budget_nanos === undefined
        ? null
        : {
            amountNanos: BigInt(r.budget_nanos),
            reset: r.budget_reset ?? null,
            alertThresholds:
              r.budget_alert_thresholds === null || r.budget_alert_thresholds === undefined
                ? null
                : (JSON.parse(r.budget_alert_thresholds) as number[]),
          },
  };
}
export function toKey(r: KeyRow): KeyRecord {
  return {
    hash: r.hash,
    accountId: r.account_id,
    name: r.name,
    label: r.label,
    limitNanos: r.limit_nanos,
    limitReset: r.limit_reset ?? null,
    usageNanos: r.usage_nanos,
    isActive: r.is_active === 1n,
    isManagement: r.is_management === 1n,
    isAdmin: r.is_admin === 1n,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastUsed: r.last_used,
    disabledBy: r.disabled_by,
    isPlayground: r.is_playground === 1n,
    memberId: r.member_id ?? null,
    allowlist: parseAllowlist(r.allowlist),
    maxInFlight: r.max_in_flight === null || r.max_in_flight === undefined ? null : Number(r.max_in_flight),
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
