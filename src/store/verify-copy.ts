import type { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';
import { COPIED_TABLES } from './copy-to-postgres.ts';
import { postgresDigest, sqliteColumns, sqliteDigest } from './table-digest.ts';

// After `switchyard migrate` copied SQLite into Postgres (or on its own, --verify-only): the
// same figures computed by each engine from its own rows must match exactly — rows per
// table; per account the stored balance and the ledger's credits, adjustments and charges
// (the balance is credits + adjustments − charges); per key its usage; and per table a
// digest of its whole content (table-digest.ts). Money as integer text.

/** Per account: the stored balance and the ledger's sums by kind, nano-USD as decimal text. */
interface AccountFigures {
  balance: string;
  credits: string;
  adjustments: string;
  charges: string;
}

export interface Figures {
  rows: Record<string, string>;
  /** Per table, the order-independent digest of every row (table-digest.ts). */
  digests: Record<string, string>;
  accounts: Map<string, AccountFigures>;
  keyUsage: Map<string, string>;
}

const ACCOUNT_FIGURES = `SELECT a.id AS id, a.balance_nanos AS balance,
    coalesce(sum(CASE WHEN l.kind = 'credit' THEN l.amount_nanos END), 0) AS credits,
    coalesce(sum(CASE WHEN l.kind = 'adjustment' THEN l.amount_nanos END), 0) AS adjustments,
    coalesce(sum(CASE WHEN l.kind = 'charge' THEN -l.amount_nanos END), 0) AS charges
  FROM accounts a LEFT JOIN ledger l ON l.account_id = a.id GROUP BY a.id, a.balance_nanos`;
const KEY_USAGE = 'SELECT hash, usage_nanos AS usage FROM api_keys';

type Row = Record<string, unknown>;

/** One engine's figures, from rows its queries return (any integer type: normalized to text). */
function figuresOf(counts: Record<string, unknown>, digests: Record<string, string>, accounts: Row[], keys: Row[]): Figures {
  const text = (v: unknown): string => BigInt(v as string | number | bigint).toString();
  const rows: Record<string, string> = {};
  for (const [t, n] of Object.entries(counts)) rows[t] = text(n);
  return {
    rows,
    digests,
    accounts: new Map(
      accounts.map((a) => [
        String(a.id),
        { balance: text(a.balance), credits: text(a.credits), adjustments: text(a.adjustments), charges: text(a.charges) },
      ]),
    ),
    keyUsage: new Map(keys.map((k) => [String(k.hash), text(k.usage)])),
  };
}

/** The columns of every copied table, as SQLite has them: both engines' digests read these. */
export type TableColumns = Record<string, string[]>;

export function sqliteColumnsOf(db: DatabaseSync): TableColumns {
  return Object.fromEntries(COPIED_TABLES.map((t) => [t.name, sqliteColumns(db, t.name)]));
}

export function sqliteFigures(db: DatabaseSync, columns: TableColumns): Figures {
  const all = (sql: string): Row[] => {
    const s = db.prepare(sql);
    s.setReadBigInts(true);
    return s.all();
  };
  db.exec('BEGIN');
  try {
    const counts: Record<string, unknown> = {};
    const digests: Record<string, string> = {};
    for (const t of COPIED_TABLES) {
      counts[t.name] = all(`SELECT count(*) AS n FROM ${t.name}`)[0]!.n;
      digests[t.name] = sqliteDigest(db, t.name, columns[t.name]!).digest;
    }
    return figuresOf(counts, digests, all(ACCOUNT_FIGURES), all(KEY_USAGE));
  } finally {
    db.exec('COMMIT');
  }
}

export async function postgresFigures(pool: pg.Pool, columns: TableColumns): Promise<Figures> {
  const client = await pool.connect();
  try {
    // One snapshot for every figure.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const counts: Record<string, unknown> = {};
    const digests: Record<string, string> = {};
    for (const t of COPIED_TABLES) {
      counts[t.name] = (await client.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${t.name}`)).rows[0]?.n;
      digests[t.name] = (await postgresDigest(client, t.name, columns[t.name]!)).digest;
    }
    const accounts = (await client.query<Row>(ACCOUNT_FIGURES)).rows;
    const keys = (await client.query<Row>(KEY_USAGE)).rows;
    await client.query('COMMIT');
    return figuresOf(counts, digests, accounts, keys);
  } finally {
    client.release();
  }
}

export interface Verification {
  ok: boolean;
  /** Every difference, as `what: sqlite X, postgres Y`. */
  mismatches: string[];
  rows: Record<string, string>;
  accounts: number;
  keys: number;
  /** The sum of every account's balance (nano-USD, decimal text), as SQLite has it. */
  totalBalance: string;
}

export function compareFigures(sqlite: Figures, postgres: Figures): Verification {
  const mismatches: string[] = [];
  const differ = (what: string, a: string | undefined, b: string | undefined): void => {
    if (a !== b) mismatches.push(`${what}: sqlite ${a ?? 'missing'}, postgres ${b ?? 'missing'}`);
  };
  for (const t of COPIED_TABLES) differ(`rows in ${t.name}`, sqlite.rows[t.name], postgres.rows[t.name]);
  for (const t of COPIED_TABLES) {
    if (sqlite.digests[t.name] !== postgres.digests[t.name])
      mismatches.push(
        `content of ${t.name}: the rows differ (digests ${sqlite.digests[t.name]!.slice(0, 12)}… and ${postgres.digests[t.name]!.slice(0, 12)}…)`,
      );
  }
  for (const id of new Set([...sqlite.accounts.keys(), ...postgres.accounts.keys()])) {
    const a = sqlite.accounts.get(id);
    const b = postgres.accounts.get(id);
    for (const f of ['balance', 'credits', 'adjustments', 'charges'] as const) differ(`account ${id} ${f} (nano-USD)`, a?.[f], b?.[f]);
    // The balance each side computes from its own ledger.
    differ(`account ${id} credits + adjustments − charges (nano-USD)`, a && ledgerBalance(a), b && ledgerBalance(b));
  }
  for (const hash of new Set([...sqlite.keyUsage.keys(), ...postgres.keyUsage.keys()])) {
    differ(`key ${hash.slice(0, 12)}… usage (nano-USD)`, sqlite.keyUsage.get(hash), postgres.keyUsage.get(hash));
  }
  let total = 0n;
  for (const a of sqlite.accounts.values()) total += BigInt(a.balance);
  return {
    ok: mismatches.length === 0,
    mismatches,
    rows: sqlite.rows,
    accounts: sqlite.accounts.size,
    keys: sqlite.keyUsage.size,
    totalBalance: total.toString(),
  };
}

function ledgerBalance(a: AccountFigures): string {
  return (BigInt(a.credits) + BigInt(a.adjustments) - BigInt(a.charges)).toString();
}
