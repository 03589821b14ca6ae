import type { SqlRunner } from './webhook-store.ts';

// Accounts' own provider keys (table byok_keys, migration 16): one implementation over both
// engines, its SQL written once with `?` parameters (Postgres's runner numbers them). The
// rows hold the key sealed (auth/byok-cipher.ts), never in clear.

import type { ByokMode } from '../catalog/types.ts';

export type { ByokMode } from '../catalog/types.ts';

export interface ByokRow {
  accountId: string;
  provider: string;
  mode: ByokMode;
  label: string | null;
  lastFour: string;
  wrappedKey: string;
  ciphertext: string;
  masterKeyId: string;
  createdAt: string;
  updatedAt: string;
  lastFailureAt: string | null;
  lastFailure: string | null;
}

export interface ByokRepository {
  /** Stores the account's key for the provider, replacing one there (its creation time kept, its last failure cleared). */
  put(row: ByokRow): Promise<void>;
  /** The account's keys, by provider. */
  list(accountId: string): Promise<ByokRow[]>;
  remove(accountId: string, provider: string): Promise<boolean>;
  /** The upstream refused the key: when and why, shown in the list. */
  recordFailure(accountId: string, provider: string, at: string, reason: string): Promise<void>;
  /** Every stored key (master-key rotation), by account then provider. */
  all(): Promise<ByokRow[]>;
  /** A key's seals replaced (master-key rotation); false when the row is gone. */
  reseal(accountId: string, provider: string, wrappedKey: string, masterKeyId: string): Promise<boolean>;
}

function toRow(r: Record<string, unknown>): ByokRow {
  return {
    accountId: r.account_id as string,
    provider: r.provider as string,
    mode: r.mode as ByokMode,
    label: (r.label as string | null) ?? null,
    lastFour: r.last_four as string,
    wrappedKey: r.wrapped_key as string,
    ciphertext: r.ciphertext as string,
    masterKeyId: r.master_key_id as string,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    lastFailureAt: (r.last_failure_at as string | null) ?? null,
    lastFailure: (r.last_failure as string | null) ?? null,
  };
}

export class SqlByokRepository implements ByokRepository {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  async put(r: ByokRow): Promise<void> {
    await this.sql.run(
      `INSERT INTO byok_keys (account_id, provider, mode, label, last_four, wrapped_key, ciphertext, master_key_id,
      created_at, updated_at, last_failure_at, last_failure) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)
      ON CONFLICT (account_id, provider) DO UPDATE SET mode = excluded.mode, label = excluded.label, last_four = excluded.last_four,
      wrapped_key = excluded.wrapped_key, ciphertext = excluded.ciphertext, master_key_id = excluded.master_key_id,
      updated_at = excluded.updated_at, last_failure_at = NULL, last_failure = NULL`,
      [r.accountId, r.provider, r.mode, r.label, r.lastFour, r.wrappedKey, r.ciphertext, r.masterKeyId, r.createdAt, r.updatedAt],
    );
  }

  async list(accountId: string): Promise<ByokRow[]> {
    return (await this.sql.all('SELECT * FROM byok_keys WHERE account_id = ? ORDER BY provider', [accountId])).map(toRow);
  }

  async remove(accountId: string, provider: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM byok_keys WHERE account_id = ? AND provider = ?', [accountId, provider])) > 0;
  }

  async recordFailure(accountId: string, provider: string, at: string, reason: string): Promise<void> {
    await this.sql.run('UPDATE byok_keys SET last_failure_at = ?, last_failure = ? WHERE account_id = ? AND provider = ?', [
      at,
      reason,
      accountId,
      provider,
    ]);
  }

  async all(): Promise<ByokRow[]> {
    return (await this.sql.all('SELECT * FROM byok_keys ORDER BY account_id, provider', [])).map(toRow);
  }

  async reseal(accountId: string, provider: string, wrappedKey: string, masterKeyId: string): Promise<boolean> {
    return (
      (await this.sql.run('UPDATE byok_keys SET wrapped_key = ?, master_key_id = ? WHERE account_id = ? AND provider = ?', [
        wrappedKey,
        masterKeyId,
        accountId,
        provider,
      ])) === 1
    );
  }
}
