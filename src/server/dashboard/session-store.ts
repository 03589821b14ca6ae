import { createHash, randomBytes } from 'node:crypto';
import type { SessionRepository } from '../../store/store-contract.ts';
import { MEMBER_SESSION_PREFIX } from '../../auth/roles.ts';

// Dashboard sessions (migration 5). A session id is 256 random bits, handed to the browser
// once in an httpOnly cookie; only its SHA-256 is stored. A session names the key it was
// made from; whether that key still works is the authenticator's check on every use.

/** Session ids as the cookie carries them: recognizable, so the authenticator can tell them from API keys. */
export const SESSION_PREFIX = 'sy-session-';
const SESSION_SHAPE = /^sy-session-[A-Za-z0-9_-]{43}$/;

export function isSessionToken(v: string): boolean {
  return v.length === SESSION_PREFIX.length + 43 && SESSION_SHAPE.test(v);
}

function sha256(v: string): string {
  return createHash('sha256').update(v).digest('hex');
}

/** The CSRF token of a session: derived from the session id, so nothing more is stored. */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update('csrf:').update(sessionToken).digest('base64url');
}

/** Live sessions a key may have: signing in once more ends its oldest. */
export const MAX_SESSIONS_PER_KEY = 20;

/** Sessions over the store's SessionRepository (SQLite or Postgres). */
export class SessionStore {
  private readonly repo: SessionRepository;
  private readonly now: () => number;
  /** The last creation time handed out: creations are strictly ordered, so "the oldest" is well defined. */
  private lastCreatedMs = 0;

  constructor(repo: SessionRepository, now: () => number = Date.now) {
    this.repo = repo;
    this.now = now;
  }

  /**
   * A new session for the key; returns the token (the cookie's value) and when it expires.
   * The key keeps its MAX_SESSIONS_PER_KEY newest sessions (older ones end), and a bounded
   * batch of expired sessions is removed on the way (store-contract.ts SessionRepository.insert).
   */
  async create(keyHash: string, ttlMs: number): Promise<{ token: string; expiresAt: Date }> {
    const token = SESSION_PREFIX + randomBytes(32).toString('base64url');
    const now = this.now();
    const created = Math.max(now, this.lastCreatedMs + 1);
    this.lastCreatedMs = created;
    const expiresAt = new Date(now + ttlMs);
    await this.repo.insert(
      sha256(token),
      keyHash,
      new Date(created).toISOString(),
      expiresAt.toISOString(),
      new Date(now).toISOString(),
      MAX_SESSIONS_PER_KEY,
    );
    return { token, expiresAt };
  }

  /**
   * A new session for a member's sign-in (an emailed link; SSO): it acts as the member, with
   * their role (auth/roles.ts). The member keeps MAX_SESSIONS_PER_KEY newest sessions.
   */
  async createForMember(memberId: string, ttlMs: number): Promise<{ token: string; expiresAt: Date }> {
    const token = SESSION_PREFIX + randomBytes(32).toString('base64url');
    const now = this.now();
    const created = Math.max(now, this.lastCreatedMs + 1);
    this.lastCreatedMs = created;
    const expiresAt = new Date(now + ttlMs);
    await this.repo.insert(
      sha256(token),
      MEMBER_SESSION_PREFIX + memberId,
      new Date(created).toISOString(),
      expiresAt.toISOString(),
      new Date(now).toISOString(),
      MAX_SESSIONS_PER_KEY,
      memberId,
    );
    return { token, expiresAt };
  }

  /** The key hash of a live session (not revoked, not expired), or undefined. */
  async keyHashOf(token: string): Promise<string | undefined> {
    if (!isSessionToken(token)) return undefined;
    const row = await this.repo.find(sha256(token));
    if (row === undefined || row.revokedAt !== null || Date.parse(row.expiresAt) <= this.now()) return undefined;
    return row.keyHash;
  }

  async revoke(token: string): Promise<void> {
    await this.repo.revoke(sha256(token), new Date(this.now()).toISOString());
  }

  /** Ends every session made from a key (the key was disabled or deleted). */
  async revokeKey(keyHash: string): Promise<void> {
    await this.repo.revokeKey(keyHash, new Date(this.now()).toISOString());
  }
}
