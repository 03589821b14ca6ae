import { existsSync } from 'node:fs';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type pg from 'pg';
import { MIGRATIONS } from './sqlite/migrations.ts';
import { readLeaseHolder } from './sqlite/serve-lock.ts';

// `switchyard migrate`: the embedded SQLite database copied into Postgres. The source is
// opened read-only and read in one transaction (one consistent snapshot); the target gets
// every row in one transaction, in batches of multi-row INSERTs, so a failure leaves it as
// it was and the command can simply run again.

/** The copy's target: a pool on the Postgres URL, and its schema brought up to date (the migrate command's). */
export { createPostgresPool } from './postgres/postgres-pool.ts';
export { migratePostgres } from './postgres/migrate-postgres.ts';

/** What is copied, parents before children (foreign keys), each read in its key order. */
export const COPIED_TABLES: ReadonlyArray<{ name: string; orderBy: string; identity?: string }> = [
  { name: 'accounts', orderBy: 'id' },
  { name: 'members', orderBy: 'id' },
  { name: 'api_keys', orderBy: 'hash' },
  { name: 'ledger', orderBy: 'id', identity: 'id' },
  { name: 'record_names', orderBy: 'id', identity: 'id' },
  { name: 'generation_records', orderBy: 'seq', identity: 'seq' },
  { name: 'admin_actions', orderBy: 'id', identity: 'id' },
  { name: 'usage_daily', orderBy: 'account_id, day, key_hash, model, provider, app_title' },
  { name: 'usage_daily_global', orderBy: 'day, model, provider, app_title' },
  { name: 'usage_daily_keys', orderBy: 'day, account_id, key_hash' },
  { name: 'dashboard_sessions', orderBy: 'id_hash' },
  { name: 'refusal_counts', orderBy: 'key_hash, minute, reason' },
  { name: 'webhooks', orderBy: 'id' },
  { name: 'webhook_deliveries', orderBy: 'id' },
  { name: 'webhook_attempts', orderBy: 'delivery_id, attempt' },
  { name: 'account_mcp_servers', orderBy: 'id' },
  { name: 'mcp_tool_calls', orderBy: 'id' },
  { name: 'sign_in_links', orderBy: 'token_hash' },
  { name: 'byok_keys', orderBy: 'account_id, provider' },
];

/**
 * Not copied: `reservations` holds the credit holds of requests that were in flight when the
 * gateway stopped. They charged nothing; a SQLite gateway would release them at its next
 * start, and dropping them is that release. (The serve lease and reload status are
 * bookkeeping of a running SQLite gateway.)
 */
export const SKIPPED_TABLES = ['reservations'] as const;

/** Rows per INSERT: generation records have 31 columns, well under Postgres's 65 535 parameters. */
const BATCH_ROWS = 500;

export class CopyRefused extends Error {}

/** Opens the SQLite database read-only, after checking it exists, is current and is not being served. */
export function openSqliteSource(path: string): DatabaseSync {
  if (!existsSync(path)) throw new CopyRefused(`no SQLite database at ${path}`);
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const holder = readLeaseHolder(db);
    if (holder !== null && holder.expiresAt > Date.now()) {
      throw new CopyRefused(
        `a gateway (pid ${holder.pid} on ${holder.host}) is serving ${path}: stop it first, so that no charge lands after the copy`,
      );
    }
    const version = (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
    const latest = MIGRATIONS.at(-1)!.version;
    if (version !== latest) {
      throw new CopyRefused(
        `${path} is at schema version ${version} and this switchyard at ${latest}: run any switchyard command on it once (e.g. switchyard accounts list with DATABASE_URL=sqlite:${path}) to bring it up to date`,
      );
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

export interface CopyResult {
  /** Rows copied per table. */
  rows: Record<string, number>;
  /** Rows of SKIPPED_TABLES left behind. */
  skipped: Record<string, number>;
}

/**
 * Copies every table of COPIED_TABLES. The target must have the schema (migratePostgres)
 * and hold no rows, unless `replace`: then its rows are deleted first, in the same transaction.
 */
export async function copySqliteToPostgres(source: DatabaseSync, target: pg.Pool, opts: { replace: boolean }): Promise<CopyResult> {
  const client = await target.connect();
  const rows: Record<string, number> = {};
  const skipped: Record<string, number> = {};
  source.exec('BEGIN');
  try {
    await client.query('BEGIN');
    try {
      const all = [...COPIED_TABLES.map((t) => t.name), ...SKIPPED_TABLES];
      const filled = [];
      for (const t of all) {
        if ((await client.query<{ e: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${t}) AS e`)).rows[0]?.e === true) filled.push(t);
      }
      if (filled.length > 0) {
        if (!opts.replace)
          throw new CopyRefused(
            `the target database is not empty (rows in ${filled.join(', ')}); migrate into an empty database, or pass --force to replace what it holds`,
          );
        await client.query(`TRUNCATE ${all.join(', ')} RESTART IDENTITY`);
      }
      for (const table of COPIED_TABLES) rows[table.name] = await copyTable(source, client, table);
      for (const t of SKIPPED_TABLES) skipped[t] = Number((source.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  } finally {
    source.exec('COMMIT');
    client.release();
  }
  return { rows, skipped };
}

async function copyTable(source: DatabaseSync, client: pg.PoolClient, table: (typeof COPIED_TABLES)[number]): Promise<number> {
  const columns = (source.prepare(`PRAGMA table_info(${table.name})`).all() as Array<{ name: string }>).map((c) => c.name);
  const targetColumns = new Set(
    (
      await client.query<{ column_name: string }>(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
        [table.name],
      )
    ).rows.map((r) => r.column_name),
  );
  const differ = [...columns.filter((c) => !targetColumns.has(c)), ...[...targetColumns].filter((c) => !columns.includes(c))];
  if (differ.length > 0) throw new CopyRefused(`table ${table.name}: the two schemas differ in columns ${differ.join(', ')}`);
  const list = columns.map((c) => `"${c}"`).join(', ');
  const read = source.prepare(`SELECT ${list} FROM ${table.name} ORDER BY ${table.orderBy}`);
  // Integers exactly (nano-USD beyond 2^53 stay whole): bigints, sent to pg as decimal text.
  read.setReadBigInts(true);
  let batch: SQLInputValue[][] = [];
  let copied = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const values = batch.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ');
    const overriding = table.identity === undefined ? '' : ' OVERRIDING SYSTEM VALUE';
    await client.query(
      `INSERT INTO ${table.name} (${list})${overriding} VALUES ${values}`,
      batch.flat().map((v) => (typeof v === 'bigint' ? v.toString() : v)),
    );
    copied += batch.length;
    batch = [];
  };
  for (const row of read.iterate() as Iterable<Record<string, SQLInputValue>>) {
    batch.push(columns.map((c) => row[c] ?? null));
    if (batch.length === BATCH_ROWS) await flush();
  }
  await flush();
  if (table.identity !== undefined) {
    // New rows continue after the copied ids.
    await client.query(
      `SELECT setval(pg_get_serial_sequence('${table.name}', '${table.identity}'), coalesce((SELECT max(${table.identity}) FROM ${table.name}), 0) + 1, false)`,
    );
  }
  return copied;
}
