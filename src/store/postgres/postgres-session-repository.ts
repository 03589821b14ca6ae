import { SESSION_PURGE_BATCH, type SessionRepository, type SessionRow } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

const SQL = {
  purge: `DELETE FROM dashboard_sessions WHERE id_hash IN
    (SELECT id_hash FROM dashboard_sessions WHERE expires_at < $1 LIMIT ${SESSION_PURGE_BATCH})`,
  trim: `DELETE FROM dashboard_sessions WHERE id_hash IN
    (SELECT id_hash FROM dashboard_sessions WHERE key_hash = $1 ORDER BY created_at COLLATE "C" DESC, id_hash COLLATE "C" DESC OFFSET $2)`,
  insert: 'INSERT INTO dashboard_sessions (id_hash, key_hash, created_at, expires_at, member_id) VALUES ($1, $2, $3, $4, $5)',
  find: 'SELECT key_hash, expires_at, revoked_at, member_id FROM dashboard_sessions WHERE id_hash = $1',
  revoke: 'UPDATE dashboard_sessions SET revoked_at = $1 WHERE id_hash = $2 AND revoked_at IS NULL',
  revokeKey: 'UPDATE dashboard_sessions SET revoked_at = $1 WHERE key_hash = $2 AND revoked_at IS NULL',
  revokeAccount: `UPDATE dashboard_sessions SET revoked_at = $1
    WHERE revoked_at IS NULL AND (key_hash IN (SELECT hash FROM api_keys WHERE account_id = $2)
      OR member_id IN (SELECT id FROM members WHERE account_id = $2))`,
};

/** Dashboard sessions in Postgres (migration 5: its triggers end a key's sessions when the key is disabled or deleted). */
export class PostgresSessionRepository implements SessionRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
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
    await this.pg.atomically(async (tx) => {
      await tx.query(SQL.purge, [purgeBefore]);
      await tx.query(SQL.insert, [idHash, keyHash, createdAt, expiresAt, memberId]);
      await tx.query(SQL.trim, [keyHash, keepPerKey]);
    });
  }

  async find(idHash: string): Promise<SessionRow | undefined> {
    const row = (
      await this.pg.query<{ key_hash: string; expires_at: string; revoked_at: string | null; member_id: string | null }>(SQL.find, [idHash])
    ).rows[0];
    return row === undefined
      ? undefined
      : { keyHash: row.key_hash, expiresAt: row.expires_at, revokedAt: row.revoked_at, memberId: row.member_id };
  }

  async revoke(idHash: string, at: string): Promise<void> {
    await this.pg.query(SQL.revoke, [at, idHash]);
  }

  async revokeKey(keyHash: string, at: string): Promise<void> {
    await this.pg.query(SQL.revokeKey, [at, keyHash]);
  }

  async revokeAccount(accountId: string, at: string): Promise<void> {
    await this.pg.query(SQL.revokeAccount, [at, accountId]);
  }
}
