import type { SqlRunner } from './webhook-store.ts';

// Single sign-on's state (migration 22), one implementation over both engines as
// member-store.ts: the sign-ins between their start and the provider's callback
// (sso_logins, each taken once), and the members removed from an account, whom a sign-in
// does not create again (removed_members).

export interface SsoLoginRow {
  stateHash: string;
  nonce: string;
  codeVerifier: string;
  createdAt: string;
  expiresAt: string;
}

export interface SsoRepository {
  /** Stores a sign-in begun; rows expired before `purgeBefore` go on the way. */
  insertLogin(row: SsoLoginRow, purgeBefore: string): Promise<void>;
  /**
   * Takes a sign-in once: removes its row and returns it when it was there and unexpired at
   * `now`; undefined otherwise (unknown, taken, expired). One statement: two callbacks with
   * the same state cannot both have it.
   */
  takeLogin(stateHash: string, now: string): Promise<Pick<SsoLoginRow, 'nonce' | 'codeVerifier'> | undefined>;
  /** The member with this email was removed from the account. */
  markRemoved(accountId: string, email: string, at: string): Promise<void>;
  /** The account took the email back (an admin added it). */
  clearRemoved(accountId: string, email: string): Promise<void>;
  isRemoved(accountId: string, email: string): Promise<boolean>;
}

export class SqlSsoRepository implements SsoRepository {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  async insertLogin(row: SsoLoginRow, purgeBefore: string): Promise<void> {
    await this.sql.run('DELETE FROM sso_logins WHERE expires_at < ?', [purgeBefore]);
    await this.sql.run('INSERT INTO sso_logins (state_hash, nonce, code_verifier, created_at, expires_at) VALUES (?, ?, ?, ?, ?)', [
      row.stateHash,
      row.nonce,
      row.codeVerifier,
      row.createdAt,
      row.expiresAt,
    ]);
  }

  async takeLogin(stateHash: string, now: string): Promise<Pick<SsoLoginRow, 'nonce' | 'codeVerifier'> | undefined> {
    const r = (
      await this.sql.all('DELETE FROM sso_logins WHERE state_hash = ? RETURNING nonce, code_verifier, expires_at', [stateHash])
    )[0];
    if (r === undefined || String(r.expires_at) <= now) return undefined;
    return { nonce: String(r.nonce), codeVerifier: String(r.code_verifier) };
  }

  async markRemoved(accountId: string, email: string, at: string): Promise<void> {
    await this.sql.run('DELETE FROM removed_members WHERE account_id = ? AND email = ?', [accountId, email.toLowerCase()]);
    await this.sql.run('INSERT INTO removed_members (account_id, email, removed_at) VALUES (?, ?, ?)', [
      accountId,
      email.toLowerCase(),
      at,
    ]);
  }

  async clearRemoved(accountId: string, email: string): Promise<void> {
    await this.sql.run('DELETE FROM removed_members WHERE account_id = ? AND email = ?', [accountId, email.toLowerCase()]);
  }

  async isRemoved(accountId: string, email: string): Promise<boolean> {
    return (
      (await this.sql.all('SELECT 1 AS x FROM removed_members WHERE account_id = ? AND email = ?', [accountId, email.toLowerCase()]))
        .length > 0
    );
  }
}
