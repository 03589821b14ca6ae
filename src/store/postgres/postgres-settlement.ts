import type pg from 'pg';
import type { HoldRecord, SettlementRecord } from '../ledger-records.ts';
import { PG_COLUMN_TYPES as COLUMN_TYPES, STORED_COLUMNS, storedValues } from '../generation-row.ts';

/** A name's `record_names` id (postgres-record-names.ts; every name of the batch ensured). */
export type NameRef = (name: string | null) => number | null;
import { addToRollup, coarseRollups, globalRollupParams, keysRollupParams, rollupParams, type RollupRow } from '../usage-rollup.ts';

// A settlement batch on Postgres as a fixed handful of set-based statements, whatever its
// size: each column travels as one array parameter and `unnest` turns them back into rows.
// Money is BIGINT, sent as decimal text: never a float.
//
// Exact when retried (a batch whose COMMIT succeeded but whose answer was lost is sent
// again): a hold row already there is kept; a record already settled inserts nothing, and
// the charge, balance, key usage and rollups move only for the generation rows this batch
// actually wrote (RETURNING), so nothing is counted twice. An `interrupted` record the
// stale-hold sweep left is replaced by the real settlement, which is then charged.

const FIGURES = [
  'requests',
  'errors',
  'tokens_prompt',
  'tokens_completion',
  'tokens_cache_read',
  'tokens_cache_write',
  'tokens_reasoning',
  'cost_nanos',
  'latency_ms_sum',
  'latency_count',
];

/** `unnest($from::t1[], $from+1::t2[], …)`: one array parameter per column. */
const unnest = (types: readonly string[], from: number) => `unnest(${types.map((t, i) => `$${i + from}::${t}[]`).join(', ')})`;

/** After the records' columns: each record's id, account id, key hash and time as text (its charge's ledger row). */
const CHARGE_FROM = 8 + STORED_COLUMNS.length;

/**
 * Hold rows (a row already there kept), hold rows of the settled records removed (whether
 * or not the queue knows them written: a batch retried after a lost answer may have), the
 * generation records (a record already settled is not written again; an `interrupted` one
 * is replaced), and a charge for each record written with a cost. Returns the ids written.
 */
const WRITE_RECORDS = `WITH held AS (
    INSERT INTO reservations (id, account_id, key_hash, amount_nanos, created_at, expires_at)
    SELECT * FROM ${unnest(['text', 'text', 'text', 'bigint', 'text', 'text'], 1)}
    ON CONFLICT (id) DO NOTHING
  ), freed AS (
    DELETE FROM reservations WHERE id = ANY($7::text[])
  ), written AS (
    INSERT INTO generation_records (${STORED_COLUMNS.join(', ')})
    SELECT * FROM ${unnest(
      STORED_COLUMNS.map((c) => COLUMN_TYPES[c]),
      8,
    )}
    ON CONFLICT (id) DO UPDATE SET ${STORED_COLUMNS.slice(1)
      .map((c) => `${c} = EXCLUDED.${c}`)
      .join(', ')}
    WHERE generation_records.error_code_ref = (SELECT id FROM record_names WHERE name = 'interrupted')
    RETURNING id, cost_nanos
  ), charged AS (
    INSERT INTO ledger (account_id, key_hash, kind, amount_nanos, generation_id, note, created_at)
    SELECT r.account_id, r.key_hash, 'charge', -w.cost_nanos, w.id, NULL, r.created_at
    FROM written w JOIN ${unnest(['text', 'text', 'text', 'text'], CHARGE_FROM)} AS r(id, account_id, key_hash, created_at) ON r.id = w.id
    WHERE w.cost_nanos <> 0
  )
  SELECT id FROM written`;

/** Rows upserted in the order given (sorted by the caller), so concurrent batches lock them in the same order. */
function upsertSql(table: string, keys: readonly string[]): string {
  const cols = [...keys, ...FIGURES];
  const types = [...keys.map(() => 'text'), ...FIGURES.map(() => 'bigint')];
  return `INSERT INTO ${table} (${cols.join(', ')})
    SELECT ${cols.join(', ')} FROM ${unnest(types, 1)} WITH ORDINALITY AS r(${cols.join(', ')}, n) ORDER BY n
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${FIGURES.map((f) => `${f} = ${table}.${f} + EXCLUDED.${f}`).join(', ')}`;
}

const ROLLUP = upsertSql('usage_daily', ['day', 'account_id', 'key_hash', 'model', 'provider', 'app_title']);
const GLOBAL_ROLLUP = upsertSql('usage_daily_global', ['day', 'model', 'provider', 'app_title']);
const KEYS_ROLLUP = upsertSql('usage_daily_keys', ['day', 'account_id', 'key_hash']);

// Balances and key usage: the rows are locked first, in the order given (FOR NO KEY UPDATE
// above the sort), then moved; the UPDATE alone would lock them in whatever order its join
// produced, and two instances' batches could deadlock.
const MOVE_BALANCES = `WITH moved AS MATERIALIZED (
    SELECT a.id, d.delta FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS d(id, delta, n)
    JOIN accounts a ON a.id = d.id ORDER BY d.n FOR NO KEY UPDATE OF a
  )
  UPDATE accounts a SET balance_nanos = a.balance_nanos + m.delta FROM moved m WHERE a.id = m.id`;

const KEY_USAGE = `WITH moved AS MATERIALIZED (
    SELECT k.hash, d.cost, d.at FROM unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS d(hash, cost, at, n)
    JOIN api_keys k ON k.hash = d.hash ORDER BY d.n FOR NO KEY UPDATE OF k
  )
  UPDATE api_keys k SET usage_nanos = k.usage_nanos + m.cost,
    last_used = CASE WHEN k.last_used IS NULL OR k.last_used < m.at THEN m.at ELSE k.last_used END
  FROM moved m WHERE k.hash = m.hash`;

type Cell = string | number | bigint | boolean | null;
const cell = (v: Cell): string | number | null => (typeof v === 'bigint' ? v.toString() : typeof v === 'boolean' ? (v ? 1 : 0) : v);

/** Rows to column arrays (the statements' parameters), each value as pg sends it (bigint as decimal text). */
function columns(rows: ReadonlyArray<readonly Cell[]>, width: number): Array<Array<string | number | null>> {
  const cols = Array.from({ length: width }, () => [] as Array<string | number | null>);
  for (const row of rows) for (let i = 0; i < width; i++) cols[i]!.push(cell(row[i] ?? null));
  return cols;
}

/** A named statement: parsed once per connection, then only bound and run. */
const named = (name: string, text: string, values: unknown[]): pg.QueryConfig => ({ name, text, values });

const byText =
  <T>(key: (r: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * Writes one batch on `c`, inside the caller's transaction: at most six statements (the
 * records with their holds and charges; three rollup tables; balances; key usage).
 */
export async function settleBatch(
  c: pg.PoolClient,
  holds: readonly HoldRecord[],
  batch: readonly SettlementRecord[],
  ref: NameRef,
): Promise<void> {
  const settling = new Set(batch.map((r) => r.id));
  // A hold settled in this very batch needs no row (the queue never sends one; kept exact if it did).
  const holdRows = holds
    .filter((h) => !settling.has(h.id))
    .map((h): Cell[] => [h.id, h.accountId, h.keyHash, h.amountNanos, h.createdAt, h.expiresAt]);
  const result = await c.query<{ id: string }>(
    named('settle-records', WRITE_RECORDS, [
      ...columns(holdRows, 6),
      [...settling],
      ...columns(
        batch.map((r) => storedValues(r, ref)),
        STORED_COLUMNS.length,
      ),
      ...columns(
        batch.map((r) => [r.id, r.accountId, r.keyHash, r.createdAt]),
        4,
      ),
    ]),
  );
  const written = new Set(result.rows.map((r) => r.id));
  if (written.size === 0) return;

  const byAccount = new Map<string, bigint>();
  const byKey = new Map<string, { cost: bigint; at: string }>();
  const rollups = new Map<string, RollupRow>();
  for (const r of batch) {
    if (!written.has(r.id)) continue; // settled before: counted then
    addToRollup(rollups, r);
    if (r.costNanos !== 0n) byAccount.set(r.accountId, (byAccount.get(r.accountId) ?? 0n) + r.costNanos);
    const k = byKey.get(r.keyHash);
    if (k === undefined) byKey.set(r.keyHash, { cost: r.costNanos, at: r.createdAt });
    else {
      k.cost += r.costNanos;
      if (r.createdAt > k.at) k.at = r.createdAt;
    }
  }
  // Every table's rows in one fixed order, the tables in a fixed order too: no deadlocks between instances.
  const fine = [...rollups.values()].map(rollupParams).sort(byText((p) => p.slice(0, 6).join('\u0000')));
  await c.query(named('settle-rollup', ROLLUP, columns(fine, 16)));
  const coarse = coarseRollups(rollups.values());
  await c.query(
    named(
      'settle-global-rollup',
      GLOBAL_ROLLUP,
      columns(coarse.global.map(globalRollupParams).sort(byText((p) => p.slice(0, 4).join('\u0000'))), 14),
    ),
  );
  await c.query(
    named(
      'settle-keys-rollup',
      KEYS_ROLLUP,
      columns(coarse.keys.map(keysRollupParams).sort(byText((p) => p.slice(0, 3).join('\u0000'))), 13),
    ),
  );
  if (byAccount.size > 0) {
    const accounts = [...byAccount].sort(byText(([id]) => id));
    await c.query(
      named(
        'settle-balances',
        MOVE_BALANCES,
        columns(
          accounts.map(([id, cost]) => [id, -cost]),
          2,
        ),
      ),
    );
  }
  const keys = [...byKey].sort(byText(([hash]) => hash));
  await c.query(
    named(
      'settle-key-usage',
      KEY_USAGE,
      columns(
        keys.map(([hash, k]) => [hash, k.cost, k.at]),
        3,
      ),
    ),
  );
}
