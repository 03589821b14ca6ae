import type { KeyRecord } from '../../store/account-records.ts';

// The events an account's webhooks may subscribe to (docs/webhooks.md).
export const WEBHOOK_EVENTS = [
  'key.created',
  'key.revoked',
  'key.rotated',
  'key.limit_reached',
  'balance.low',
  'budget.threshold',
  'member.added',
  'member.removed',
  'byok.key_failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export function isWebhookEvent(v: unknown): v is WebhookEventType {
  return typeof v === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(v);
}

/** A key in an event's data: never the key itself. */
export function keyEvent(k: KeyRecord, by: 'account' | 'operator'): Record<string, unknown> {
  return { key: { hash: k.hash, label: k.label, name: k.name, account_id: k.accountId }, by };
}
