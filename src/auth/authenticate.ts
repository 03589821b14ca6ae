import { GatewayError } from '../errors/gateway-error.ts';
import type { AccountRecord, KeyRecord } from '../store/account-records.ts';
import type { AccountRepository } from '../store/store-contract.ts';
import { hashApiKey, isWellFormedApiKey } from './api-key.ts';
import type { MemberRecord, MemberRepository } from '../store/member-store.ts';
import { MEMBER_SESSION_PREFIX, memberSessionKey } from './roles.ts';

export interface AuthContext {
  key: KeyRecord;
  account: AccountRecord;
  /** The member acting: a member's sign-in, or a key that belongs to a member (roles.ts). */
  member?: MemberRecord | null;
}

interface CacheEntry {
  ctx: AuthContext | null;
  expires: number;
  /** A rotated key's previous secret: it stops working then (epoch ms); null for the secret in force. */
  secretEnds: number | null;
}

/** A dashboard session's cache entry is keyed by its key's record hash, apart from presented secrets' hashes. */
const SESSION = 's:';

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
  /** Record hash → the cache keys (presented secrets' hashes) holding that key: a key's change drops them all. */
  private readonly byKey = new Map<string, Set<string>>();
  private readonly store: Pick<AccountRepository, 'getKey' | 'getKeyBySecret' | 'getAccount'>;
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** The clock a rotated key's previous secret ends by (the clock rotations are made with). */
  private readonly secretClock: () => number;

  private readonly watcher: { check(): void } | undefined;
  private readonly sessions: SessionResolver | undefined;
  private readonly members: Pick<MemberRepository, 'get'> | undefined;

  constructor(
    store: Pick<AccountRepository, 'getKey' | 'getKeyBySecret' | 'getAccount'>,
    opts: {
      ttlMs?: number;
      now?: () => number;
      secretClock?: () => number;
      watcher?: { check(): void };
      sessions?: SessionResolver;
      members?: Pick<MemberRepository, 'get'>;
    } = {},
  ) {
    this.store = store;
    this.members = opts.members;
    this.sessions = opts.sessions;
    this.ttlMs = opts.ttlMs ?? 2000;
    this.now = opts.now ?? Date.now;
    this.secretClock = opts.secretClock ?? Date.now;
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
      if (keyHash === undefined)
        throw new GatewayError('authentication_required', 'Authentication required: the dashboard session has ended; sign in again.');
      return this.authenticateHash(SESSION + keyHash, headers);
    }
    if (rawKey === undefined || rawKey.length === 0 || !isWellFormedApiKey(rawKey)) {
      throw new GatewayError('authentication_required', AUTH_REQUIRED[headers]);
    }
    return this.authenticateHash(hashApiKey(rawKey), headers);
  }

  /**
   * The same answer as `authenticate` without a promise when it is already known: the
   * context of a key whose cache entry is fresh (or the 401 of a malformed, unknown or
   * refused one), and undefined when the store must be read (a cache miss, a dashboard
   * session) — then call `authenticate`. The request path's access hook takes this lane
   * for nearly every model call (route-access.ts).
   */
  authenticateIfCached(rawKey: string | undefined, headers: KeyHeaders = 'bearer'): AuthContext | undefined {
    if (rawKey !== undefined && this.sessions?.isSessionToken(rawKey) === true) return undefined;
    if (rawKey === undefined || rawKey.length === 0 || !isWellFormedApiKey(rawKey)) {
      throw new GatewayError('authentication_required', AUTH_REQUIRED[headers]);
    }
    this.watcher?.check();
    const now = this.now();
    const entry = this.cache.get(hashApiKey(rawKey));
    if (entry === undefined || entry.expires <= now) return undefined;
    return this.checked(entry, headers, now);
  }

  /**
   * The key and account of a presented secret's hash (or, prefixed SESSION, of a session's
   * key record), with the same checks for both.
   */
  private async authenticateHash(cacheKey: string, headers: KeyHeaders): Promise<AuthContext> {
    // Another process (the CLI) may have changed keys or accounts: caches drop at once.
    this.watcher?.check();
    let now = this.now();
    let entry = this.cache.get(cacheKey);
    if (entry === undefined || entry.expires <= now) {
      const epoch = this.epoch;
      entry = await this.load(cacheKey);
      now = this.now();
      entry.expires = now + this.ttlMs;
      if (epoch === this.epoch) {
        if (this.cache.size > 100_000) this.clear();
        this.cache.set(cacheKey, entry);
        if (entry.ctx !== null) this.byKey.set(entry.ctx.key.hash, (this.byKey.get(entry.ctx.key.hash) ?? new Set()).add(cacheKey));
      }
    }
    return this.checked(entry, headers, now);
  }

  /** A cache entry's context, or the 401 that says why it may not act. */
  private checked(entry: CacheEntry, headers: KeyHeaders, now: number): AuthContext {
    const ctx = entry.ctx;
    if (ctx === null) throw new GatewayError('authentication_required', AUTH_REQUIRED[headers]);
    if (entry.secretEnds !== null && entry.secretEnds <= this.secretClock()) {
      throw new GatewayError(
        'authentication_required',
        'Authentication required: this API key has been rotated and its overlap has ended; use the new key.',
      );
    }
    if (!ctx.key.isActive) throw new GatewayError('authentication_required', 'Authentication required: this API key has been revoked.');
    if (ctx.key.expiresAt !== null && Date.parse(ctx.key.expiresAt) <= now) {
      throw new GatewayError('authentication_required', 'Authentication required: this API key has expired.');
    }
    if (!ctx.account.isActive)
      throw new GatewayError('authentication_required', 'Authentication required: the account of this API key is inactive.');
    return ctx;
  }

  /** Drops a key's cache entries (every secret of it and its sessions'), or all with no hash. */
  invalidate(hash?: string): void {
    this.epoch += 1;
    if (hash === undefined) return this.clear();
    this.cache.delete(hash);
    this.cache.delete(SESSION + hash);
    for (const cacheKey of this.byKey.get(hash) ?? []) this.cache.delete(cacheKey);
    this.byKey.delete(hash);
  }

  private clear(): void {
    this.cache.clear();
    this.byKey.clear();
  }

  private async load(cacheKey: string): Promise<CacheEntry> {
    const none: CacheEntry = { ctx: null, expires: 0, secretEnds: null };
    if (cacheKey.startsWith(SESSION + MEMBER_SESSION_PREFIX)) {
      const member = await this.members?.get(cacheKey.slice(SESSION.length + MEMBER_SESSION_PREFIX.length));
      if (member === undefined) return none;
      const account = await this.store.getAccount(member.accountId);
      return account === undefined ? none : { ctx: { key: memberSessionKey(member), account, member }, expires: 0, secretEnds: null };
    }
    const found = cacheKey.startsWith(SESSION)
      ? await this.store.getKey(cacheKey.slice(SESSION.length)).then((key) => key && { key, secretExpiresAt: null })
      : await this.store.getKeyBySecret(cacheKey);
    if (found === undefined) return none;
    const account = await this.store.getAccount(found.key.accountId);
    if (account === undefined) return none;
    const secretEnds = found.secretExpiresAt === null ? null : Date.parse(found.secretExpiresAt);
    if (found.key.memberId === null) return { ctx: { key: found.key, account, member: null }, expires: 0, secretEnds };
    // A key of a member acts with the member's role; a member gone (never left so: removal
    // disables or moves their keys) leaves the key nothing to act as.
    const member = await this.members?.get(found.key.memberId);
    return member === undefined || member.accountId !== found.key.accountId
      ? none
      : { ctx: { key: found.key, account, member }, expires: 0, secretEnds };
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
