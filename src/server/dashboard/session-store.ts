import { createHash, randomBytes } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';

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

export class SessionStore {
  private readonly stmts: Record<'insert' | 'find' | 'revoke' | 'revokeKey' | 'purge', StatementSync>;
  private readonly now: () => number;

  constructor(db: DatabaseSync, now: () => number = Date.now) {
    this.now = now;
    this.stmts = {
      insert: db.prepare('INSERT INTO dashboard_sessions (id_hash, key_hash, created_at, expires_at) VALUES (?, ?, ?, ?)'),
      find: db.prepare('SELECT key_hash, expires_at, revoked_at FROM dashboard_sessions WHERE id_hash = ?'),
      revoke: db.prepare('UPDATE dashboard_sessions SET revoked_at = ? WHERE id_hash = ? AND revoked_at IS NULL'),
      revokeKey: db.prepare('UPDATE dashboard_sessions SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL'),
      purge: db.prepare('DELETE FROM dashboard_sessions WHERE expires_at < ?'),
    };
  }

  /** A new session for the key; returns the token (the cookie's value) and when it expires. */
  create(keyHash: string, ttlMs: number): { token: string; expiresAt: Date } {
    const token = SESSION_PREFIX + randomBytes(32).toString('base64url');
    const now = this.now();
    const expiresAt = new Date(now + ttlMs);
    this.stmts.purge.run(new Date(now).toISOString());
    this.stmts.insert.run(sha256(token), keyHash, new Date(now).toISOString(), expiresAt.toISOString());
    return { token, expiresAt };
  }

  /** The key hash of a live session (not revoked, not expired), or undefined. */
  keyHashOf(token: string): string | undefined {
    if (!isSessionToken(token)) return undefined;
    const row = this.stmts.find.get(sha256(token)) as { key_hash: string; expires_at: string; revoked_at: string | null } | undefined;
    if (row === undefined || row.revoked_at !== null || Date.parse(row.expires_at) <= this.now()) return undefined;
    return row.key_hash;
  }

  revoke(token: string): void {
    this.stmts.revoke.run(new Date(this.now()).toISOString(), sha256(token));
  }

  /** Ends every session made from a key (the key was disabled or deleted). */
  revokeKey(keyHash: string): void {
    this.stmts.revokeKey.run(new Date(this.now()).toISOString(), keyHash);
  }
}
