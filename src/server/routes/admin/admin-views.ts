import type { AccountRecord, KeyRecord } from '../../../store/account-records.ts';
import type { ActivityRow } from '../../../store/activity-records.ts';
import type { LedgerEntry } from '../../../store/ledger-records.ts';
import type { AuditEntry } from '../../../store/audit-records.ts';
import { money } from './admin-common.ts';
import { allowlistView } from '../../../billing/allowlist-input.ts';

// The JSON shapes of the admin and reporting routes. Money: a USD number and its exact text.
// The CLI's --json prints the same objects through the same functions (accounts, keys).

export function accountView(a: AccountRecord): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    account_type: a.accountType,
    tier: a.tier,
    default_model: a.defaultModel,
    ...money('balance', a.balanceNanos),
    is_active: a.isActive,
    limits_override: a.limitsOverride,
    retention_days: a.retentionDays,
    budget:
      a.budget === null
        ? null
        : {
            ...money('amount', a.budget.amountNanos),
            reset: a.budget.reset,
            alert_thresholds: a.budget.alertThresholds,
          },
    ...allowlistView(a.allowlist),
    guardrails: a.guardrails,
    created_at: a.createdAt,
  };
}

/** A key's state: active, revoked (by the operator), disabled (by its account) or expired (refused by the API). */
export function keyStatus(k: KeyRecord, now = Date.now()): 'active' | 'revoked' | 'disabled' | 'expired' {
  if (!k.isActive) return k.disabledBy === 'account' ? 'disabled' : 'revoked';
  if (k.expiresAt !== null && Date.parse(k.expiresAt) <= now) return 'expired';
  return 'active';
}

export function keyKind(k: KeyRecord): 'admin' | 'management' | 'api' {
  return k.isAdmin ? 'admin' : k.isManagement ? 'management' : 'api';
}

export function adminKeyView(k: KeyRecord): Record<string, unknown> {
  return {
    hash: k.hash,
    account_id: k.accountId,
    name: k.name,
    label: k.label,
    kind: keyKind(k),
    status: keyStatus(k),
    disabled: !k.isActive,
    disabled_by: k.disabledBy,
    ...(k.limitNanos === null ? { limit: null, limit_usd: null } : money('limit', k.limitNanos)),
    limit_reset: k.limitReset,
    ...money('usage', k.usageNanos),
    expires_at: k.expiresAt,
    created_at: k.createdAt,
    updated_at: k.updatedAt,
    last_used: k.lastUsed,
    ...allowlistView(k.allowlist),
    max_in_flight: k.maxInFlight,
  };
}

export function ledgerView(e: LedgerEntry): Record<string, unknown> {
  return {
    id: e.id,
    account_id: e.accountId,
    key_hash: e.keyHash,
    kind: e.kind,
    ...money('amount', e.amountNanos),
    generation_id: e.generationId,
    note: e.note,
    created_at: e.createdAt,
  };
}

export function activityView(r: ActivityRow): Record<string, unknown> {
  const opt = (v: bigint | null): number | null => (v === null ? null : Number(v));
  return {
    id: r.id,
    account_id: r.account_id,
    key_hash: r.key_hash,
    model: r.model,
    provider_name: r.provider,
    upstream_model: r.upstream_model,
    api_type: r.endpoint_dialect === '' ? null : r.endpoint_dialect,
    streamed: r.streamed === 1n,
    cancelled: r.cancelled === 1n,
    status: r.status,
    error_code: r.error_code,
    finish_reason: r.finish_reason,
    tokens_prompt: Number(r.tokens_prompt),
    tokens_completion: Number(r.tokens_completion),
    native_tokens_cached: Number(r.tokens_cache_read),
    native_tokens_cache_write: Number(r.tokens_cache_write),
    native_tokens_reasoning: Number(r.tokens_reasoning),
    ...money('total_cost', r.cost_nanos),
    latency: opt(r.latency_ms),
    time_to_first_token: opt(r.first_token_ms),
    app_title: r.x_title,
    created_at: r.created_at,
    attempt_count: Number(r.attempt_count),
    byok: r.byok === 1n,
  };
}

export function auditView(e: AuditEntry): Record<string, unknown> {
  return {
    id: e.id,
    at: e.at,
    actor: { key_hash: e.actor.keyHash, label: e.actor.label, account_id: e.actor.accountId },
    action: e.action,
    target: e.target,
    details: e.details,
  };
}
