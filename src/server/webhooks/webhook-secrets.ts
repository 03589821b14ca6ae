import { decryptSecret, encryptSecret, rewrap, type MasterKey } from '../../auth/byok-cipher.ts';
import { RotationRefused } from '../../auth/byok-rotation.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { StoredWebhookSecret, WebhookRow } from '../../store/webhook-store.ts';

// Webhook signing secrets at rest (docs/security.md#webhook-secrets): sealed with the BYOK
// envelope encryption (auth/byok-cipher.ts: a random data key per secret, AES-256-GCM, the
// data key sealed by the key in use), bound to the account and the webhook id, so a row
// copied onto another webhook does not open. The key in use is `byok.master_key`, else the
// gateway's local key file (webhook-secret-key.ts); `others` are keys a row may still be
// sealed by (the local key file once a master key is configured), opened and re-sealed
// under the key in use at start (`sealAtRest`).

/** The slot of the cipher's binding a webhook takes (a BYOK key's is its provider id). */
const bindingOf = (webhookId: string): string => `webhook:${webhookId}`;

export class WebhookSecrets {
  /** The key new secrets are sealed with; null: none (a fleet without byok.master_key): no webhook can be registered. */
  readonly key: MasterKey | null;
  private readonly others: readonly MasterKey[];

  constructor(key: MasterKey | null, others: readonly MasterKey[] = []) {
    this.key = key;
    this.others = others.filter((k) => k.id !== key?.id);
  }

  /** `secret` sealed for webhook `id` of `accountId`; 503 webhook_secrets_not_configured without a key. */
  seal(id: string, accountId: string, secret: string): StoredWebhookSecret {
    if (this.key === null) {
      throw new GatewayError(
        'webhook_secrets_not_configured',
        'Webhooks are off: the gateway has no key to seal their signing secrets with (a fleet on Postgres needs byok.master_key). Ask the gateway operator.',
      );
    }
    const sealed = encryptSecret(this.key, secret, accountId, bindingOf(id));
    return { secret: sealed.ciphertext, secretKey: sealed.wrappedKey, secretMasterKeyId: sealed.masterKeyId };
  }

  /** The webhook's secret, to sign with; throws (naming no secret) when no known key opens it. */
  open(hook: WebhookRow): string {
    if (hook.secretKey === null) return hook.secret; // not sealed yet: sealed at the next start
    const key = this.keyById(hook.secretMasterKeyId);
    if (key === undefined)
      throw new Error(`the webhook's secret is sealed by key ${hook.secretMasterKeyId ?? '?'}, which this gateway does not have`);
    return decryptSecret(
      key,
      { wrappedKey: hook.secretKey, ciphertext: hook.secret, masterKeyId: key.id },
      hook.accountId,
      bindingOf(hook.id),
    );
  }

  /**
   * Seals every secret still in clear (rows older than migration 24) and re-seals those a
   * known other key sealed under the key in use. Idempotent; run at start, before serving.
   * Returns how many rows changed. Without a key, nothing changes (the caller warns).
   */
  async sealAtRest(stores: Stores): Promise<number> {
    if (this.key === null) return 0;
    let changed = 0;
    for (const hook of await stores.webhooks.all()) {
      let next: StoredWebhookSecret;
      if (hook.secretKey === null) next = this.seal(hook.id, hook.accountId, hook.secret);
      else if (hook.secretMasterKeyId !== this.key.id && this.keyById(hook.secretMasterKeyId) !== undefined)
        next = this.rewrapped(hook, this.key);
      else continue;
      if (await stores.webhooks.reseal(hook.id, hook, next)) changed++;
    }
    return changed;
  }

  /** The row's data key sealed by `next` instead (master-key rotation); the secret's own seal is unchanged. */
  rewrapped(hook: WebhookRow, next: MasterKey): StoredWebhookSecret {
    const key = this.keyById(hook.secretMasterKeyId);
    if (hook.secretKey === null || key === undefined)
      throw new Error(`webhook ${hook.id}: its secret is not sealed by a key this gateway has`);
    const sealed = rewrap(
      key,
      next,
      { wrappedKey: hook.secretKey, ciphertext: hook.secret, masterKeyId: key.id },
      hook.accountId,
      bindingOf(hook.id),
    );
    return { secret: sealed.ciphertext, secretKey: sealed.wrappedKey, secretMasterKeyId: sealed.masterKeyId };
  }

  private keyById(id: string | null): MasterKey | undefined {
    if (this.key !== null && this.key.id === id) return this.key;
    return this.others.find((k) => k.id === id);
  }
}

/**
 * Master-key rotation's part for webhooks (`switchyard byok rotate-master-key`, in its
 * transaction `tx`): every secret sealed by a key `from` has re-sealed under `next` (only its
 * data key), one in clear sealed; one no key of `from` opens stops the rotation (nothing
 * changes). Returns how many rows changed.
 */
export async function rotateWebhookSecrets(tx: Stores, from: WebhookSecrets, next: MasterKey): Promise<number> {
  const sealer = new WebhookSecrets(next);
  let changed = 0;
  for (const hook of await tx.webhooks.all()) {
    if (hook.secretKey !== null && hook.secretMasterKeyId === next.id) continue;
    let sealed: StoredWebhookSecret;
    try {
      sealed = hook.secretKey === null ? sealer.seal(hook.id, hook.accountId, hook.secret) : from.rewrapped(hook, next);
    } catch {
      throw new RotationRefused(
        `the signing secret of webhook ${hook.id} (account ${hook.accountId}) does not open with the old master key (sealed by ${hook.secretMasterKeyId ?? '?'}); nothing was changed`,
      );
    }
    if (!(await tx.webhooks.reseal(hook.id, hook, sealed)))
      throw new RotationRefused(`webhook ${hook.id} changed during the rotation; nothing was changed, run it again`);
    changed++;
  }
  return changed;
}
