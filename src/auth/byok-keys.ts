import type { ProviderKind } from '../config/provider-kinds.ts';
import type { Endpoint, ProviderConfig } from '../catalog/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { checkByokKey, type KeyCheck } from '../providers/http/check-byok-key.ts';
import { lastFourOf, readProviderCredential, secretsOf, type AccountByok, type AccountByokKey } from '../providers/byok-credential.ts';
import type { ByokMode, ByokRow } from '../store/byok-store.ts';
import type { Stores } from '../store/store-contract.ts';
import { decryptSecret, encryptSecret, type MasterKey } from './byok-cipher.ts';

// Accounts' own provider keys (docs/byok.md): stored sealed under the master key after a
// check at the provider, listed by label and last four characters only, and read back —
// decrypted, cached a moment per account — for the requests of their account. Without a
// master key every operation answers `byok_not_configured`, naming the setting.

/** How an account's key is shown: never the key. */
export interface ByokView {
  provider: string;
  label: string | null;
  last_four: string;
  mode: ByokMode;
  created_at: string;
  updated_at: string;
  last_failure_at: string | null;
  last_failure: string | null;
}

export interface ByokInput {
  key: string;
  mode: ByokMode;
  label?: string | null;
}

export interface ByokKeysOptions {
  /** Epoch ms (default Date.now). */
  now?: () => number;
  /** How long an account's decrypted keys are reused (default 2 s): another process's change is seen within it. */
  cacheMs?: number;
  /** The check at the provider (default: check-byok-key.ts). */
  check?: (provider: ProviderConfig, secret: string) => Promise<KeyCheck>;
  /** An account's key was refused upstream: the alert (webhook `byok.key_failed`), after it is recorded. */
  onRejected?: (accountId: string, provider: string, status: number, at: string) => void;
  /** The operator log (never a key). */
  log?: (message: string) => void;
}

export class ByokKeys {
  private readonly stores: Stores;
  private readonly master: MasterKey | null;
  private readonly fee: () => number;
  private readonly now: () => number;
  private readonly cacheMs: number;
  private readonly check: (provider: ProviderConfig, secret: string) => Promise<KeyCheck>;
  private readonly onRejected: ByokKeysOptions['onRejected'];
  private readonly log: (message: string) => void;
  private readonly cache = new Map<string, { until: number; value: Promise<AccountByok | null> }>();

  /** `fee`: basis points of the price a BYOK request is charged (read per request: a reload may change it). */
  constructor(stores: Stores, master: MasterKey | null, fee: () => number, opts: ByokKeysOptions = {}) {
    this.stores = stores;
    this.master = master;
    this.fee = fee;
    this.now = opts.now ?? Date.now;
    this.cacheMs = opts.cacheMs ?? 2000;
    this.check = opts.check ?? ((p, s) => checkByokKey(p, s));
    this.onRejected = opts.onRejected;
    this.log = opts.log ?? (() => {});
  }

  get enabled(): boolean {
    return this.master !== null;
  }

  /** Throws the 503 that names the setting when BYOK is off. */
  assertEnabled(): void {
    this.requireMaster();
  }

  /** The master key, or the 503 that names the setting. */
  private requireMaster(): MasterKey {
    if (this.master === null) {
      throw new GatewayError(
        'byok_not_configured',
        'Bring-your-own-key is off on this gateway: it has no master key to encrypt keys with. The operator sets byok.master_key ("env:NAME" or "file:/path") in the configuration.',
      );
    }
    return this.master;
  }

  /** Checks the key at the provider, then stores it sealed (replacing the account's key for that provider). */
  /** `audit` runs in the transaction that stores it. */
  async set(
    accountId: string,
    provider: ProviderConfig,
    input: ByokInput,
    audit?: (tx: Stores, view: ByokView) => Promise<void>,
  ): Promise<ByokView> {
    const master = this.requireMaster();
    const checked = await this.check(provider, input.key);
    if (!checked.ok)
      throw new GatewayError('byok_key_invalid', `The key was not stored: ${checked.reason}.`, {
        param: 'key',
        metadata: { provider_name: provider.id, reason: checked.cause },
      });
    const sealed = encryptSecret(master, input.key.trim(), accountId, provider.id);
    const at = new Date(this.now()).toISOString();
    const existing = (await this.stores.byok.list(accountId)).find((r) => r.provider === provider.id);
    const row: ByokRow = {
      accountId,
      provider: provider.id,
      mode: input.mode,
      label: input.label ?? null,
      lastFour: lastFourOf(checked.credential),
      wrappedKey: sealed.wrappedKey,
      ciphertext: sealed.ciphertext,
      masterKeyId: sealed.masterKeyId,
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
      lastFailureAt: null,
      lastFailure: null,
    };
    const view = viewOf(row);
    await this.stores.transaction(async (tx) => {
      await tx.byok.put(row);
      await audit?.(tx, view);
    });
    this.cache.delete(accountId);
    return view;
  }

  async list(accountId: string): Promise<ByokView[]> {
    this.requireMaster();
    return (await this.stores.byok.list(accountId)).map(viewOf);
  }

  async remove(accountId: string, providerId: string, audit?: (tx: Stores) => Promise<void>): Promise<boolean> {
    this.requireMaster();
    const removed = await this.stores.transaction(async (tx) => {
      const gone = await tx.byok.remove(accountId, providerId);
      if (gone) await audit?.(tx);
      return gone;
    });
    this.cache.delete(accountId);
    return removed;
  }

  /** The account's keys, decrypted, for its requests; null when it has none (or BYOK is off). */
  forAccount(accountId: string): Promise<AccountByok | null> {
    if (this.master === null) return Promise.resolve(null);
    const now = this.now();
    let hit = this.cache.get(accountId);
    if (hit === undefined || hit.until <= now) {
      const value = this.read(accountId, this.master);
      hit = { until: now + this.cacheMs, value };
      this.cache.set(accountId, hit);
      value.catch(() => this.cache.delete(accountId));
      if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value!);
    }
    // The fee in force now (a reload may have changed it), not when the keys were read.
    return hit.value.then((keys) => (keys === null ? null : { ...keys, feeBasisPoints: this.fee() }));
  }

  /** The upstream refused the account's key: the failure is kept on its row, the operator log says so, the account is alerted. */
  rejected(accountId: string, endpoint: Endpoint, status: number): void {
    const provider = endpoint.provider.id;
    const at = new Date(this.now()).toISOString();
    const reason = `the provider answered HTTP ${status}`;
    this.log(`BYOK: the key of account ${accountId} for provider "${provider}" was refused upstream (${status})`);
    this.stores.byok.recordFailure(accountId, provider, at, reason).then(
      () => this.onRejected?.(accountId, provider, status, at),
      (err: unknown) =>
        this.log(
          `BYOK: could not record the failure of account ${accountId}'s key for "${provider}": ${(err as Error)?.message ?? 'unknown'}`,
        ),
    );
  }

  private async read(accountId: string, master: MasterKey): Promise<AccountByok | null> {
    const rows = await this.stores.byok.list(accountId);
    if (rows.length === 0) return null;
    const keys = new Map<string, AccountByokKey>();
    const unusable = new Set<string>();
    const secrets: string[] = [];
    for (const row of rows) {
      let secret: string;
      try {
        secret = decryptSecret(master, row, accountId, row.provider);
      } catch {
        // Sealed under another master key (a rotation not run) or altered: unusable, said once per read.
        this.log(
          `BYOK: the key of account ${accountId} for provider "${row.provider}" does not open with the configured master key (sealed by ${row.masterKeyId}); run switchyard byok rotate-master-key`,
        );
        if (row.mode === 'only') unusable.add(row.provider);
        continue;
      }
      const credential = readProviderCredential({ id: row.provider, kind: kindOf(secret) }, secret);
      keys.set(row.provider, { provider: row.provider, mode: row.mode, credential });
      secrets.push(...secretsOf(credential));
    }
    return keys.size === 0 && unusable.size === 0 ? null : { accountId, keys, unusable, feeBasisPoints: this.fee(), secrets };
  }
}

/**
 * The credential's shape from the stored text alone (the check read it with the provider's
 * kind when it was stored): JSON with a private key is a service account, JSON with an
 * access key id a key pair, anything else an API key.
 */
/** The kind whose credential shape the stored secret has: a JSON key pair or service account, else a bearer key (any other kind reads it alike). */
function kindOf(secret: string): ProviderKind {
  if (!secret.startsWith('{')) return 'openai';
  return secret.includes('"private_key"') ? 'vertex' : 'bedrock';
}

function viewOf(r: ByokRow): ByokView {
  return {
    provider: r.provider,
    label: r.label,
    last_four: r.lastFour,
    mode: r.mode,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    last_failure_at: r.lastFailureAt,
    last_failure: r.lastFailure,
  };
}
