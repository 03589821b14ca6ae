import { at, checkKeys, optBoolean, optInt, readMapping, readUsd } from './read-fields.ts';

/** `webhooks:` — how the gateway delivers an account's webhooks (docs/webhooks.md). */
export interface WebhooksConfig {
  /** Deliver to private, loopback and link-local addresses too (off: SSRF protection). */
  allowPrivateAddresses: boolean;
  /** One attempt's bound (connect, headers and body). */
  timeoutMs: number;
  /** The first retry's delay; each next one doubles, up to an hour. */
  retryBaseMs: number;
  /** Attempts before a delivery is given up (`failed`). */
  maxAttempts: number;
  /** `balance.low` fires when an account's balance falls below this (USD text); null: never. */
  balanceLowUsd: string | null;
}

export const WEBHOOKS_DEFAULTS: WebhooksConfig = {
  allowPrivateAddresses: false,
  timeoutMs: 10_000,
  retryBaseMs: 30_000,
  maxAttempts: 8,
  balanceLowUsd: null,
};

export function parseWebhooks(value: unknown, path: string): WebhooksConfig {
  if (value === undefined || value === null) return WEBHOOKS_DEFAULTS;
  const fields = readMapping(value, path);
  checkKeys(fields, ['allow_private_addresses', 'timeout_ms', 'retry_base_ms', 'max_attempts', 'balance_low_usd'], path);
  const d = WEBHOOKS_DEFAULTS;
  return {
    allowPrivateAddresses: optBoolean(fields, 'allow_private_addresses', path) ?? d.allowPrivateAddresses,
    timeoutMs: optInt(fields, 'timeout_ms', path, 100, 120_000) ?? d.timeoutMs,
    retryBaseMs: optInt(fields, 'retry_base_ms', path, 10, 3_600_000) ?? d.retryBaseMs,
    maxAttempts: optInt(fields, 'max_attempts', path, 1, 20) ?? d.maxAttempts,
    balanceLowUsd:
      fields.balance_low_usd === undefined || fields.balance_low_usd === null
        ? null
        : readUsd(fields.balance_low_usd, at(path, 'balance_low_usd')),
  };
}
