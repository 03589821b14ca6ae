import { GatewayError } from '../errors/gateway-error.ts';
import type { AccountRecord, KeyRecord } from '../store/account-store.ts';
import type { AccountRepository } from '../store/store-contract.ts';
import type { MemberRecord, MemberRepository } from '../store/member-store.ts';
import { MEMBER_SESSION_PREFIX, memberSessionKey } from './roles.ts';
import { hashApiKey, isWellFormedApiKey } from './api-key.ts';

export interface AuthContext {
  key: KeyRecord;
  account: AccountRecord;
  /** The member acting: a member's sign-in, or a key that belongs to a member (roles.ts). */
  member?: MemberRecord | null;
}

interface CacheEntry {
  ctx: AuthContext | null;
  expires: number;
}

/** The headers a route reads the key from: named in the 401 that says a key is missing or unknown. */
export type KeyHeaders = 'bearer' | 'bearer-or-x-api-key' | 'google';

const AUTH_REQUIRED: Record<KeyHeaders, string> = {
  bearer: 'Authentication required: pass a valid API key as "Authorization: Bearer <key>".',
  'bearer-or-x-api-key': 'Authentication required: pass a valid API key as "x-api-key: <key>" or "Authorization: Bearer <key>".',
  google: 'Authentication required: pass a valid API key as "x-goog-api-key: <key>", "?key=<key>" or "Authorization: Bearer <key>".',
};

/**
 * Resolves a presented key to its key and account records. Lookups are cached (also
 * negative results, so a flood of bad keys does not reach the database): when warm, one
 * map lookup and no store call. `invalidate` drops
 * entries at once when this process changes a key or account, when the SQLite writer
 * thread sees another process's (the CLI's) write, or when a fleet's invalidation bus
 * says so. The TTL is a backstop.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  /** Bumped by `invalidate`: a load that started before it does not fill the cache. */
  private epoch = 0;
  private readonly store: Pick<AccountRepository, 'getKey' | 'getAccount'>;
  private readonly ttlMs: number;
  private readonly now: () => number;

  private readonly watcher: { check(): void } | undefined;
  private readonly sessions: SessionResolver | undefined;
  private readonly members: Pick<MemberRepository, 'get'> | undefined;

  constructor(store: Pick<AccountRepository, 'getKey' | 'getAccount'>, opts: {
    ttlMs?: number; now?: () => number; watcher?: { check(): void }; sessions?: SessionResolver; members?: Pick<MemberRepository, 'get'>;
  } = {}) {
    this.store = store;
    this.members = opts.members;
    this.sessions = opts.sessions;
    this.ttlMs = opts.ttlMs ?? 2000;
    this.now = opts.now ?? Date.now;
    this.watcher = opts.watcher;
  }

  /**
   * Takes the raw key (already stripped of "Bearer "). Throws 401 on any failure; a missing
   * or unknown key's message names the headers the route reads (`headers`).
   */
  async authenticate(rawKey: string | undefined, headers: KeyHeaders = 'bearer'): Promise<AuthContext> {
    // A dashboard session acts as the key it was made from (src/server/dashboard/), or as
    // the member who signed in (their key hash is `member:<id>`, resolved by load()).
    if (rawKey !== undefined && this.sessions?.isSessionToken(rawKey) === true) {
      const keyHash = await this.sessions.keyHashOf(rawKey);
      if (keyHash === undefined) throw new GatewayError('authentication_required', 'Authentication required: the dashboard session has ended; sign in again.');
      return this.authenticateHash(keyHash, headers);
    }
    if (rawKey === undefined || rawKey.length === 0 || !isWellFormedApiKey(rawKey)) {
      throw new GatewayError('authentication_required', AUTH_REQUIRED[headers]);
    }
    return this.authenticateHash(hashApiKey(rawKey), headers);
  }

  /** The key and account of a key hash, with the same checks as a presented key. */
  private async authenticateHash(hash: string, headers: KeyHeaders): Promise<AuthContext> {
    // Another process (the CLI) may have changed keys or accounts: caches drop at once.
    this.watcher?.check();
    let now = this.now();
    let entry = this.cache.get(hash);
    if (entry === undefined || entry.expires <= now) {
      const epoch = this.epoch;
      const ctx = await this.load(hash);
      now = this.now();
      entry = { ctx, expires: now + this.ttlMs };
      if (epoch === this.epoch) {
        if (this.cache.size > 100_000) this.cache.clear();
        this.cache.set(hash, entry);
      }
    }
    const ctx = entry.ctx;
    if (ctx === null) throw new GatewayError('authentication_required', AUTH_REQUIRED[headers]);
    if (!ctx.key.isActive) throw new GatewayError('authentication_required', 'Authentication required: this API key has been revoked.');
    if (ctx.key.expiresAt !== null && Date.parse(ctx.key.expiresAt) <= now) {
      throw new GatewayError('authentication_required', 'Authentication required: this API key has expired.');
    }
    if (!ctx.account.isActive) throw new GatewayError('authentication_required', 'Authentication required: the account of this API key is inactive.');
    return ctx;
  }

  invalidate(hash?: string): void {
    this.epoch += 1;
    if (hash === undefined) this.cache.clear();
    else this.cache.delete(hash);
  }

  private async load(hash: string): Promise<AuthContext | null> {
    if (hash.startsWith(MEMBER_SESSION_PREFIX)) {
      const member = await this.members?.get(hash.slice(MEMBER_SESSION_PREFIX.length));
      if (member === undefined) return null;
      const account = await this.store.getAccount(member.accountId);
      return account === undefined ? null : { key: memberSessionKey(member), account, member };
    }
    const key = await this.store.getKey(hash);
    if (key === undefined) return null;
    const account = await this.store.getAccount(key.accountId);
    if (account === undefined) return null;
    if (key.memberId === null) return { key, account, member: null };
    // A key of a member acts with the member's role; a member gone (never left so: removal
    // disables or moves their keys) leaves the key nothing to act as.
    const member = await this.members?.get(key.memberId);
    return member === undefined || member.accountId !== key.accountId ? null : { key, account, member };
  }
}

/** Dashboard sessions, as the authenticator sees them. */
export interface SessionResolver {
  isSessionToken(token: string): boolean;
  /** The key hash of a live session, or undefined (unknown, expired, signed out). */
  keyHashOf(token: string): Promise<string | undefined>;
}

/** The key from `Authorization: Bearer <key>` (or, where the dialect allows, `x-api-key`). */
export function extractBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.length > 7 && header.charCodeAt(6) === 32 && /^bearer$/i.test(header.slice(0, 6))) return header.slice(7).trim();
  return undefined;
}
