import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { transaction } from './open-database.ts';
import { SESSION_PURGE_BATCH, type SessionRepository, type SessionRow } from '../store-contract.ts';

/** Dashboard sessions in SQLite (table dashboard_sessions, migration 5). */
export class SqliteSessionRepository implements SessionRepository {
  private readonly db: DatabaseSync;
  private readonly stmts: Record<'insert' | 'find' | 'revoke' | 'revokeKey' | 'revokeAccount' | 'purge' | 'trim', StatementSync>;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.stmts = {
      insert: db.prepare('INSERT INTO dashboard_sessions (id_hash, key_hash, created_at, expires_at, member_id) VALUES (?, ?, ?, ?, ?)'),
      find: db.prepare('SELECT key_hash, expires_at, revoked_at, member_id FROM dashboard_sessions WHERE id_hash = ?'),
      revoke: db.prepare('UPDATE dashboard_sessions SET revoked_at = ? WHERE id_hash = ? AND revoked_at IS NULL'),
      revokeKey: db.prepare('UPDATE dashboard_sessions SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL'),
      revokeAccount: db.prepare(`UPDATE dashboard_sessions SET revoked_at = ?1
        WHERE revoked_at IS NULL AND (key_hash IN (SELECT hash FROM api_keys WHERE account_id = ?2)
          OR member_id IN (SELECT id FROM members WHERE account_id = ?2))`),
      purge: db.prepare(`DELETE FROM dashboard_sessions WHERE id_hash IN
        (SELECT id_hash FROM dashboard_sessions WHERE expires_at < ? LIMIT ${SESSION_PURGE_BATCH})`),
      trim: db.prepare(`DELETE FROM dashboard_sessions WHERE id_hash IN
        (SELECT id_hash FROM dashboard_sessions WHERE key_hash = ?1 ORDER BY created_at DESC, id_hash DESC LIMIT -1 OFFSET ?2)`),
    };
  }

  async insert(
    idHash: string,
    keyHash: string,
    createdAt: string,
    expiresAt: string,
    purgeBefore: string,
    keepPerKey: number,
    memberId: string | null = null,
  ): Promise<void> {
    transaction(this.db, () => {
      this.stmts.purge.run(purgeBefore);
      this.stmts.insert.run(idHash, keyHash, createdAt, expiresAt, memberId);
      this.stmts.trim.run(keyHash, keepPerKey);
    });
  }

  async find(idHash: string): Promise<SessionRow | undefined> {
    const row = this.stmts.find.get(idHash) as
      { key_hash: string; expires_at: string; revoked_at: string | null; member_id: string | null } | undefined;
    return row === undefined
      ? undefined
      : { keyHash: row.key_hash, expiresAt: row.expires_at, revokedAt: row.revoked_at, memberId: row.member_id };
  }

  async revoke(idHash: string, at: string): Promise<void> {
    this.stmts.revoke.run(at, idHash);
  }

  async revokeKey(keyHash: string, at: string): Promise<void> {
    this.stmts.revokeKey.run(at, keyHash);
  }

  async revokeAccount(accountId: string, at: string): Promise<void> {
    this.stmts.revokeAccount.run(at, accountId);
  }
}
