import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';
import { migrate } from '../../src/store/sqlite/open-database.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { readPostgresSchema } from './read-postgres-schema.ts';
import { readSqliteSchema } from './read-sqlite-schema.ts';
import { schemaDifferences, type SchemaDifference, type SchemaShape } from './schema-shape.ts';

// src/store/sqlite/migrations.ts and src/store/postgres/postgres-migrations.ts are hand copies: a
// fresh database of each engine, migrated, must have the same tables, and in each the same
// columns (logical type, NOT NULL, default), primary key, unique constraints, foreign keys,
// CHECK constraints, indexes (columns, uniqueness, partial predicate) and triggers. The type
// mapping and normalizations are stated in schema-shape.ts.

/** The differences that are meant: one entry each, with why. An entry no longer needed fails the test. */
const INTENDED: ReadonlyArray<{ key: string; reason: string }> = [
  ...['accounts.id', 'api_keys.hash', 'dashboard_sessions.id_hash'].map((column) => ({
    key: `${column}.notNull`,
    reason:
      "SQLite lets a rowid table's non-INTEGER PRIMARY KEY hold NULL (a legacy quirk, https://sqlite.org/lang_createtable.html#the_primary_key); " +
      'Postgres makes every primary key NOT NULL. The stores always write these ids, and adding NOT NULL in SQLite means rebuilding the table.',
  })),
  {
    key: 'schema_migrations.version.type',
    reason:
      "the migration runners' own table (open-database.ts, migrate-postgres.ts), not a migration: versions are small numbers, int32 holds them",
  },
  // The compact generation record (migration 11, issue 30 §3: bytes per record).
  ...[
    'account_ref',
    'key_ref',
    'model_ref',
    'provider_ref',
    'upstream_model_ref',
    'dialect_ref',
    'error_code_ref',
    'finish_reason_ref',
    'native_finish_reason_ref',
    'endpoint_ref',
    'http_referer_ref',
    'app_title_ref',
    'streamed',
    'cancelled',
    'cache_hit',
    'byok',
    'is_error',
    'tokens_prompt',
    'tokens_completion',
    'tokens_cache_read',
    'tokens_cache_write',
    'tokens_reasoning',
    'latency_ms',
    'first_token_ms',
    'upstream_ms',
  ].map((column) => ({
    key: `generation_records.${column}.type`,
    reason:
      'Postgres keeps the record narrow (4 bytes, not 8): names ids, flags, token counts and milliseconds stay far below 2^31; ' +
      'SQLite stores any INTEGER in as few bytes as its value needs. Money (cost_nanos) and times (created_ms) are bigint on both',
  })),
  {
    key: 'record_names.id.type',
    reason: 'a names id: Postgres int32 like the generation_records columns that refer to it; SQLite has one INTEGER',
  },
  {
    key: 'generation_records.primaryKey',
    reason:
      'SQLite keys the table by its rowid (seq: INTEGER PRIMARY KEY) with a unique index on id; Postgres keys it by id and numbers rows with seq',
  },
  { key: 'generation_records.index generation_records_id', reason: "SQLite's unique index on id is Postgres's primary key (above)" },
  ...['generation_records_account', 'generation_records_created', 'generation_records_key', 'generation_records_model'].map((index) => ({
    key: `generation_records.index ${index}`,
    reason:
      "every SQLite index ends in the rowid (seq) implicitly; Postgres's names seq where SQLite's would hold it, so both walk pages in the same order",
  })),
  {
    key: 'generations',
    reason:
      "a view over generation_records on both engines (compact-records-migration.ts): the Postgres reader lists views' columns, SQLite's reads tables only",
  },
  {
    key: 'schema_migrations.version.default',
    reason: "SQLite's INTEGER PRIMARY KEY is the rowid (filled when absent); both runners always insert the version",
  },
];

const skip = postgresUnavailable() ?? false;
const pools: pg.Pool[] = [];
after(async () => {
  for (const p of pools) await p.end();
  await stopPostgres();
});

function sqliteSchema(extraSql = ''): SchemaShape {
  const db = new DatabaseSync(':memory:');
  try {
    migrate(db);
    if (extraSql !== '') db.exec(extraSql);
    return readSqliteSchema(db);
  } finally {
    db.close();
  }
}

async function postgresSchema(extraSql = ''): Promise<SchemaShape> {
  const pool = createPostgresPool({ url: await createTestDatabase(), max: 2 });
  pools.push(pool);
  await migratePostgres(pool);
  if (extraSql !== '') await pool.query(extraSql);
  return readPostgresSchema(pool);
}

/** The differences not in INTENDED. */
const unintended = (diffs: SchemaDifference[]) => diffs.filter((d) => !INTENDED.some((i) => i.key === d.key));
const report = (diffs: SchemaDifference[]) => diffs.map((d) => `  ${d.message}  [${d.key}]`).join('\n');

test(
  'SQLite and Postgres migrate to the same schema, column by column, index by index (intended differences listed with reasons)',
  { skip },
  async () => {
    const diffs = schemaDifferences(sqliteSchema(), await postgresSchema());
    const drift = unintended(diffs);
    assert.equal(
      drift.length,
      0,
      `the two engines' migrated schemas differ:\n${report(drift)}\n` +
        'fix the side that is wrong with a new migration, or list the difference in INTENDED with a reason',
    );
    const stale = INTENDED.filter((i) => !diffs.some((d) => d.key === i.key));
    assert.deepEqual(stale, [], 'these intended differences are gone: remove them from INTENDED');
  },
);

test('the comparison names the table and the difference: a column, a type, an index, a partial predicate, a default, a check', () => {
  const base = sqliteSchema();
  const drifted = sqliteSchema(`
    ALTER TABLE accounts ADD COLUMN note TEXT;
    DROP INDEX ledger_account;
    CREATE INDEX ledger_account ON ledger(account_id);
    CREATE UNIQUE INDEX refusal_counts_errors ON refusal_counts(key_hash) WHERE reason = 'rate_limited';
  `);
  assert.deepEqual(schemaDifferences(base, base), []);
  assert.deepEqual(
    schemaDifferences(base, drifted).map((d) => d.message),
    [
      'table accounts: column note only in Postgres',
      'table ledger: index ledger_account: SQLite "(account_id, id)", Postgres "(account_id)"',
      "table refusal_counts: index refusal_counts_errors unique (key_hash) where reason='rate_limited' only in Postgres",
    ],
  );
  // Shapes edited directly: what no SQLite ALTER can make.
  const edited = structuredClone(base);
  const cost = edited.api_keys!.columns.find((c) => c.name === 'usage_nanos')!;
  cost.type = 'int32';
  cost.default = '1';
  edited.api_keys!.checks = edited.api_keys!.checks.map((c) => c.replace("'monthly'", "'yearly'"));
  delete edited.usage_daily_keys;
  assert.deepEqual(
    schemaDifferences(base, edited).map((d) => d.message),
    [
      'table api_keys: column usage_nanos type: SQLite "int64", Postgres "int32"',
      'table api_keys: column usage_nanos default: SQLite "0", Postgres "1"',
      `table api_keys: check constraints: SQLite ["disabled_by in('operator','account')","limit_reset in('daily','weekly','monthly')"], ` +
        `Postgres ["disabled_by in('operator','account')","limit_reset in('daily','weekly','yearly')"]`,
      'table usage_daily_keys: only in SQLite',
    ],
  );
});

test(
  'the Postgres reader sees drift too: an extra partial index, a changed default, a dropped foreign key, a nullable column',
  { skip },
  async () => {
    const drifted = await postgresSchema(`
    CREATE INDEX generation_records_errors ON generation_records(provider_ref, created_ms) WHERE is_error = 1;
    ALTER TABLE api_keys ALTER COLUMN usage_nanos SET DEFAULT 5;
    ALTER TABLE reservations DROP CONSTRAINT reservations_account_id_fkey;
    ALTER TABLE generation_records ALTER COLUMN key_ref DROP NOT NULL;
  `);
    assert.deepEqual(
      unintended(schemaDifferences(sqliteSchema(), drifted)).map((d) => d.message),
      [
        'table api_keys: column usage_nanos default: SQLite "0", Postgres "5"',
        'table generation_records: column key_ref NOT NULL: SQLite true, Postgres false',
        'table generation_records: index generation_records_errors (provider_ref, created_ms) where is_error=1 only in Postgres',
        'table reservations: foreign keys: SQLite ["(account_id) → accounts(id) on update no action on delete no action"], Postgres []',
      ],
    );
  },
);
