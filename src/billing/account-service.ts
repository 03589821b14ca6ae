import { randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey, labelApiKey } from '../auth/api-key.ts';
import type { AccountPatch, AccountRecord, AccountType, KeyLimitReset, KeyRecord } from '../store/account-records.ts';
import type { Stores } from '../store/store-contract.ts';
import { usdToNanos } from '../money/money.ts';
import { BalanceOutOfBounds, MAX_AMOUNT_USD, withinMaxAmount } from '../money/amount-bounds.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { TierTable } from '../config/tier-limits.ts';
import { checkExpiry, checkName } from './account-input.ts';
import type { Allowlist } from '../catalog/model-access.ts';
import { applyAllowlist, type AllowlistChange } from './allowlist-input.ts';

/** Keys an account may hold unless the config says otherwise (`accounts.max_keys`). */
export const DEFAULT_MAX_KEYS_PER_ACCOUNT = 1000;

/** The config's bounds per account, one object shared with the config reload (which refills it, as the tier map). */
export interface AccountBounds {
  maxKeys: number;
}

/** What changed: an account (credits, flags, tier), or one of its keys. */
export interface AccountChange {
  accountId: string;
  keyHash?: string;
}

/** The longest a rotated key's old secret may keep working: 7 days. */
export const MAX_ROTATION_OVERLAP_SECONDS = 604_800;

/** Operator actions on accounts, keys and credits: shared by the CLI and first-start bootstrap. */
export class AccountService {
  private readonly stores: Stores;
  private readonly tiers: TierTable;
  private readonly now: () => Date;
  private readonly changeListeners: Array<(change: AccountChange) => void>;
  /** Keys one account may hold, any kind, disabled ones included (`accounts.max_keys`). */
  readonly bounds: AccountBounds;

  constructor(
    stores: Stores,
    tiers: TierTable,
    now: () => Date = () => new Date(),
    listeners: Array<(change: AccountChange) => void> = [],
    bounds: AccountBounds = { maxKeys: DEFAULT_MAX_KEYS_PER_ACCOUNT },
  ) {
    this.stores = stores;
    this.tiers = tiers;
    this.now = now;
    this.changeListeners = listeners;
    this.bounds = bounds;
  }

  private get accounts(): Stores['accounts'] {
    return this.stores.accounts;
  }

  private get ledger(): Stores['ledger'] {
    return this.stores.ledger;
  }

  /** The same service writing through `tx` (a transaction of Stores.transaction), with the same listeners. */
  within(tx: Stores): AccountService {
    return new AccountService(tx, this.tiers, this.now, this.changeListeners, this.bounds);
  }

  /** Called after every change, so caches of account and key state (here, and on every instance of a fleet) drop it. */
  onChange(listener: (change: AccountChange) => void): void {
    this.changeListeners.push(listener);
  }

  /** Tells the listeners of a change made elsewhere (members: member-service.ts). */
  announce(change: AccountChange): void {
    this.changed(change);
  }

  private changed(change: AccountChange): void {
    for (const l of this.changeListeners) l(change);
  }

  /** Validates everything first, then writes the account and its initial credits in one transaction. */
  async createAccount(input: {
    name: string;
    type?: AccountType;
    tier?: string;
    defaultModel?: string | null;
    creditsUsd?: string;
  }): Promise<AccountRecord> {
    const tier = input.tier ?? 'free';
    this.checkTier(tier);
    checkName(input.name);
    const credits = input.creditsUsd === undefined ? 0n : boundedUsd(input.creditsUsd, 'credits');
    if (credits < 0n) throw new Error('initial credits cannot be negative');
    const id = `acct_${randomBytes(9).toString('base64url')}`;
    const now = this.now().toISOString();
    const account = await this.stores.transaction(async (tx) => {
      await tx.accounts.createAccount({
        id,
        name: input.name,
        accountType: input.type ?? 'user',
        tier,
        defaultModel: input.defaultModel ?? null,
        now,
      });
      if (credits > 0n) await tx.ledger.addEntry(id, 'credit', credits, 'initial credits', now);
      return (await tx.accounts.getAccount(id))!;
    });
    this.changed({ accountId: id });
    return account;
  }

  /**
   * Operator changes to an account: tier, default model, active flag, rate-limit overrides.
   * Deactivating ends every dashboard session of the account's keys, in the same
   * transaction: reactivating the account later revives none of them.
   */
  async updateAccount(id: string, patch: AccountPatch): Promise<AccountRecord> {
    if (patch.tier !== undefined) this.checkTier(patch.tier);
    const updated = await this.stores.transaction(async (tx) => {
      const out = await tx.accounts.updateAccount(id, patch);
      if (out !== undefined && patch.isActive === false) await tx.sessions.revokeAccount(id, this.now().toISOString());
      return out;
    });
    if (updated === undefined) throw new Error(`no account ${id}`);
    this.changed({ accountId: id });
    return updated;
  }

  private checkTier(tier: string): void {
    if (!this.tiers.has(tier)) throw new Error(`unknown tier "${tier}" (known: ${[...this.tiers.keys()].join(', ')})`);
  }

  /**
   * Returns the new key in clear: the only time it exists outside the client's hands. An
   * account holding `bounds.maxKeys` keys already is refused (403 key_limit_reached): counted and
   * created under one lock per account, so concurrent creations cannot pass it together.
   */
  async createKey(input: {
    accountId: string;
    name?: string;
    limitUsd?: string | null;
    limitReset?: KeyLimitReset | null;
    expiresAt?: string | null;
    management?: boolean;
    admin?: boolean;
    /** The dashboard playground's own key (playground-keys.ts). */
    playground?: boolean;
    /** What the key may reach besides its account's list (read with allowlist-input.ts). */
    allowlist?: Allowlist | null;
    maxInFlight?: number | null;
  }): Promise<{ key: string; record: KeyRecord }> {
    if ((await this.accounts.getAccount(input.accountId)) === undefined) throw new Error(`no account ${input.accountId}`);
    const limitNanos = input.limitUsd === undefined || input.limitUsd === null ? null : boundedUsd(input.limitUsd, 'limit');
    if (limitNanos !== null && limitNanos < 0n) throw new Error('a key limit cannot be negative');
    if (input.limitReset != null && limitNanos === null) throw new Error('a limit reset needs a limit');
    if (input.management === true && input.admin === true) throw new Error('a key is either a management key or an admin key, not both');
    const name = checkName(input.name ?? 'default');
    const expiresAt = input.expiresAt == null ? null : checkExpiry(input.expiresAt, this.now());
    const key = generateApiKey();
    const record = await this.stores.exclusive(`keys:${input.accountId}`, async (tx) => {
      const held = await tx.accounts.countKeys(input.accountId);
      const max = this.bounds.maxKeys;
      if (held >= max) throw keyLimitReached(max);
      return tx.accounts.createKey({
        hash: hashApiKey(key),
        accountId: input.accountId,
        name,
        label: labelApiKey(key),
        limitNanos,
        limitReset: input.limitReset ?? null,
        isManagement: input.management ?? false,
        isAdmin: input.admin ?? false,
        isPlayground: input.playground === true,
        expiresAt,
        now: this.now().toISOString(),
        allowlist: input.allowlist ?? null,
        maxInFlight: input.maxInFlight ?? null,
      });
    });
    return { key, record };
  }

  /** Adds credits: a positive amount only (taking credits away is an adjustment). Returns the new balance in nano-USD. */
  async addCredits(accountId: string, amountUsd: string, note: string | null = null): Promise<bigint> {
    const amount = boundedUsd(amountUsd, 'amount');
    if (amount <= 0n)
      throw new Error(`credits added must be a positive amount (got ${amountUsd}); to take credits away, use an adjustment with a reason`);
    const balance = await withinBalanceBounds(() => this.ledger.addEntry(accountId, 'credit', amount, note, this.now().toISOString()));
    this.changed({ accountId });
    return balance;
  }

  /** An operator's correction of a balance, either way, with its reason on the ledger row. Returns the new balance. */
  async adjustCredits(accountId: string, amountUsd: string, reason: string): Promise<bigint> {
    const amount = boundedUsd(amountUsd, 'amount');
    if (amount === 0n) throw new Error('an adjustment needs a non-zero amount');
    if (reason.trim().length === 0) throw new Error('an adjustment needs a reason');
    const balance = await withinBalanceBounds(() =>
      this.ledger.addEntry(accountId, 'adjustment', amount, reason.trim(), this.now().toISOString()),
    );
    this.changed({ accountId });
    return balance;
  }

  /**
   * The operator's revocation (final: the account cannot enable the key again). Accepts
   * the key hash or its label. Returns the revoked key, or undefined when none matched.
   */
  async revokeKey(hashOrLabel: string): Promise<KeyRecord | undefined> {
    const key = await this.findKey(hashOrLabel);
    if (key === undefined) return undefined;
    await this.accounts.setKeyActive(key.hash, false, 'operator');
    this.changed({ accountId: key.accountId, keyHash: key.hash });
    return await this.accounts.getKey(key.hash);
  }

  /** The operator lifts a revocation (theirs or the account's). Returns the key, or undefined when none matched. */
  async enableKey(hashOrLabel: string): Promise<KeyRecord | undefined> {
    const key = await this.findKey(hashOrLabel);
    if (key === undefined) return undefined;
    await this.accounts.setKeyActive(key.hash, true, 'operator');
    this.changed({ accountId: key.accountId, keyHash: key.hash });
    return await this.accounts.getKey(key.hash);
  }

  /**
   * The operator's change of a key's limit (`limitUsd` null: none) and its reset period
   * (null: none); undefined leaves either. Returns the key, or undefined when none matched.
   */
  async updateKeyLimit(
    hashOrLabel: string,
    change: { limitUsd?: string | null; limitReset?: KeyLimitReset | null },
  ): Promise<KeyRecord | undefined> {
    const key = await this.findKey(hashOrLabel);
    if (key === undefined) return undefined;
    const patch: { limitNanos?: bigint | null; limitReset?: KeyLimitReset | null } = {};
    if (change.limitUsd !== undefined) {
      patch.limitNanos = change.limitUsd === null ? null : boundedUsd(change.limitUsd, 'limit');
      if (patch.limitNanos !== null && patch.limitNanos < 0n) throw new Error('a key limit cannot be negative');
    }
    if (change.limitReset !== undefined) patch.limitReset = change.limitReset;
    const limit = patch.limitNanos !== undefined ? patch.limitNanos : key.limitNanos;
    const reset = patch.limitReset !== undefined ? patch.limitReset : key.limitReset;
    if (limit === null) {
      if (change.limitReset != null) throw new Error('a limit reset needs a limit');
      if (reset !== null) patch.limitReset = null; // no limit: nothing to reset
    }
    const updated = await this.accounts.updateKey(key.hash, patch, this.now().toISOString());
    this.changed({ accountId: key.accountId, keyHash: key.hash });
    return updated;
  }

  /**
   * A new secret for the same key record (id, label, limits, usage, account): returned in
   * clear, this once. The old secret keeps working `overlapSeconds` more (0: stops at once;
   * at most MAX_ROTATION_OVERLAP_SECONDS), then is refused. A rotation during an overlap ends
   * the older secret's at once. `at`: the clock of the overlap (the gateway's request clock).
   */
  async rotateKey(
    hashOrLabel: string,
    overlapSeconds = 0,
    at: Date = this.now(),
  ): Promise<{ key: string; record: KeyRecord; previousUntil: string | null } | undefined> {
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_ROTATION_OVERLAP_SECONDS) {
      throw new Error(`the overlap must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS} (7 days)`);
    }
    const key = await this.findKey(hashOrLabel);
    if (key === undefined) return undefined;
    const secret = generateApiKey();
    const previousUntil = overlapSeconds === 0 ? null : new Date(at.getTime() + overlapSeconds * 1000).toISOString();
    const record = await this.accounts.rotateKeySecret(key.hash, { secretHash: hashApiKey(secret), previousUntil, now: at.toISOString() });
    if (record === undefined) return undefined;
    this.changed({ accountId: key.accountId, keyHash: key.hash });
    return { key: secret, record, previousUntil };
  }
  /**
   * A key's allowlist (each list changed or removed on its own) and its cap on concurrent
   * requests (null: none); undefined leaves either. Returns the key, or undefined when none matched.
   */
  async updateKeyAccess(
    hashOrLabel: string,
    change: { allowlist?: AllowlistChange | null; maxInFlight?: number | null },
  ): Promise<KeyRecord | undefined> {
    const key = await this.findKey(hashOrLabel);
    if (key === undefined) return undefined;
    const patch: { allowlist?: Allowlist | null; maxInFlight?: number | null } = {};
    if (change.allowlist != null) patch.allowlist = applyAllowlist(key.allowlist, change.allowlist);
    if (change.maxInFlight !== undefined) patch.maxInFlight = change.maxInFlight;
    const updated = await this.accounts.updateKey(key.hash, patch, this.now().toISOString());
    this.changed({ accountId: key.accountId, keyHash: key.hash });
    return updated;
  }
  async findKey(hashOrLabel: string): Promise<KeyRecord | undefined> {
    const byHash = await this.accounts.getKey(hashOrLabel);
    if (byHash !== undefined) return byHash;
    const matches = (await this.accounts.listKeys()).filter((k) => k.label === hashOrLabel);
    return matches.length === 1 ? matches[0] : undefined;
  }
}

function keyLimitReached(max: number): GatewayError {
  return new GatewayError(
    'key_limit_reached',
    `This account already holds ${max} keys, as many as this gateway allows (accounts.max_keys): delete a key it no longer needs to make room.`,
  );
}

/** USD decimal text → nano-USD, with an error that names the field. */
function parseUsd(value: string, what: string): bigint {
  try {
    return usdToNanos(value);
  } catch {
    throw new Error(`${what}: "${value}" is not a USD amount (digits, with a "." for decimals: e.g. 12.50)`);
  }
}

/** USD text within ±MAX_AMOUNT (amount-bounds.ts): beyond it, a 400 naming the field and the bound. */
function boundedUsd(value: string, what: string): bigint {
  const nanos = parseUsd(value, what);
  if (!withinMaxAmount(nanos)) {
    throw new GatewayError(
      'invalid_parameter',
      `"${what}" must be at most $${MAX_AMOUNT_USD.toLocaleString('en-US')} either way (got ${value.length > 40 ? `${value.slice(0, 40)}...` : value}).`,
      { param: what },
    );
  }
  return nanos;
}

/** The store's refusal of an entry that would take a balance past its bound, as a 400 naming it. */
async function withinBalanceBounds<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BalanceOutOfBounds)
      throw new GatewayError('invalid_parameter', `"amount" refused: ${err.message}.`, { param: 'amount' });
    throw err;
  }
}
