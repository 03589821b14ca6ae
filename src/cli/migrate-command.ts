import { formatNanos } from '../money/money.ts';
import {
  CopyRefused,
  copySqliteToPostgres,
  createPostgresPool,
  migratePostgres,
  openSqliteSource,
  type CopyResult,
} from '../store/copy-to-postgres.ts';
import { compareFigures, postgresFigures, sqliteColumnsOf, sqliteFigures, type Verification } from '../store/verify-copy.ts';
import { emit, UsageError } from './output.ts';

export interface MigrateValues {
  from: string;
  to: string;
  force?: boolean;
  verifyOnly?: boolean;
  json?: boolean;
}

/** Queries of the copy may take minutes on a large database (the pool's default is 5 s). */
const COPY_QUERY_TIMEOUT_MS = 30 * 60_000;

/**
 * `switchyard migrate --from sqlite:PATH --to postgres://…`: brings the Postgres schema up to
 * date, copies the SQLite database into it (copy-to-postgres.ts: one transaction, refused
 * on a non-empty target unless --force), then verifies the copy (verify-copy.ts) and prints
 * a summary. Returns 0 when every figure matches, 1 otherwise. The URL is never printed
 * (it holds a password).
 */
export async function runMigrate(values: MigrateValues): Promise<number> {
  const path = sqlitePath(values.from);
  if (!/^postgres(ql)?:\/\//i.test(values.to)) throw new UsageError('--to: expected postgres://user:pass@host:port/db');
  const source = openOrRefuse(path);
  const pool = createPostgresPool({ url: values.to, max: 2, queryTimeoutMs: COPY_QUERY_TIMEOUT_MS, connectionTimeoutMs: 10_000 });
  try {
    let copied: CopyResult | null = null;
    if (values.verifyOnly !== true) {
      await migratePostgres(pool);
      try {
        copied = await copySqliteToPostgres(source, pool, { replace: values.force === true });
      } catch (err) {
        if (err instanceof CopyRefused) throw new UsageError(err.message);
        throw err;
      }
    }
    const columns = sqliteColumnsOf(source);
    const verification = compareFigures(sqliteFigures(source, columns), await postgresFigures(pool, columns));
    report(values.json === true, path, copied, verification);
    return verification.ok ? 0 : 1;
  } finally {
    source.close();
    await pool.end();
  }
}

function openOrRefuse(path: string): ReturnType<typeof openSqliteSource> {
  try {
    return openSqliteSource(path);
  } catch (err) {
    if (err instanceof CopyRefused) throw new UsageError(err.message);
    throw err;
  }
}

/** sqlite:PATH or sqlite://PATH (as DATABASE_URL takes it), or a bare path. */
function sqlitePath(from: string): string {
  const m = /^sqlite:(?:\/\/)?(.*)$/i.exec(from);
  const path = m === null ? from : m[1]!;
  if (path === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) throw new UsageError('--from: expected sqlite:PATH (the SQLite database file)');
  return path;
}

function report(json: boolean, path: string, copied: CopyResult | null, v: Verification): void {
  const out = {
    ok: v.ok,
    from: path,
    copied: copied?.rows ?? null,
    not_copied: copied?.skipped ?? null,
    verified: { rows: v.rows, accounts: v.accounts, keys: v.keys, total_balance: formatNanos(BigInt(v.totalBalance)) },
    mismatches: v.mismatches,
  };
  emit(json, out, () => {
    const lines: string[] = [];
    if (copied !== null) {
      lines.push(`copied ${path} into Postgres:`);
      for (const [t, n] of Object.entries(copied.rows)) lines.push(`  ${t.padEnd(20)} ${n} rows`);
      for (const [t, n] of Object.entries(copied.skipped))
        if (n > 0)
          lines.push(`  ${t.padEnd(20)} ${n} rows not copied (credit holds of interrupted requests: released, nothing was charged)`);
    }
    if (v.ok) {
      lines.push(
        `verified: the row counts and contents of ${Object.keys(v.rows).length} tables, and for ${v.accounts} accounts and ${v.keys} keys every balance, ledger sum and key usage, match exactly (total balance $${formatNanos(BigInt(v.totalBalance))})`,
      );
    } else {
      lines.push(`VERIFICATION FAILED: ${v.mismatches.length} difference(s) between SQLite and Postgres:`);
      for (const m of v.mismatches.slice(0, 50)) lines.push(`  ${m}`);
      if (v.mismatches.length > 50) lines.push(`  … and ${v.mismatches.length - 50} more (--json lists them all)`);
    }
    return lines.join('\n');
  });
}
