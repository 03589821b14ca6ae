import { join } from 'node:path';
import { ConfigError } from './config-error.ts';

type Env = Record<string, string | undefined>;

export const DEFAULT_DATABASE_PATH = './data/switchyard.db';
const DATABASE_FILE = 'switchyard.db';

/**
 * Which database: `DATABASE_URL` wins, then the file's `database.url`. A `sqlite:<path>`
 * (or sqlite://<path>) URL places the SQLite file; a `postgres://` (or postgresql://) URL
 * is returned as `url` (selectBackends, shared/select-backends.ts, then picks the fleet's
 * stores). Without a URL the SQLite file is at `SWITCHYARD_DATA_DIR`, then the file's
 * `database.path`, then ./data/. Other schemes are refused, naming the scheme only.
 */
export function resolveDatabase(env: Env, filePath: string | undefined, fileUrl?: string): { path: string; url?: string } {
  const fromEnv = env.DATABASE_URL !== undefined && env.DATABASE_URL !== '';
  const url = fromEnv ? env.DATABASE_URL! : fileUrl;
  const where = fromEnv ? 'env DATABASE_URL' : 'database.url';
  const dataDir = env.SWITCHYARD_DATA_DIR;
  const defaultPath = dataDir !== undefined && dataDir !== '' ? join(dataDir, DATABASE_FILE) : (filePath ?? DEFAULT_DATABASE_PATH);
  if (url === undefined || url === '') return { path: defaultPath };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return { path: defaultPath, url };
  return { path: sqlitePathFromUrl(url, where) };
}

/** The SQLite file's path alone (see resolveDatabase). */
export function resolveDatabasePath(env: Env, filePath: string | undefined): string {
  return resolveDatabase(env, filePath).path;
}

function sqlitePathFromUrl(url: string, where: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url);
  if (scheme === null)
    throw new ConfigError(where, 'expected sqlite:<path> (e.g. sqlite:./data/switchyard.db) or postgres://user:pass@host:port/db');
  const name = scheme[1]!.toLowerCase();
  if (name !== 'sqlite') {
    // The scheme only: the rest of a database URL usually holds a password.
    throw new ConfigError(where, `the ${name} scheme is not supported; use sqlite:<path> or postgres://user:pass@host:port/db`);
  }
  const rest = url.slice(scheme[0].length);
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new ConfigError(where, 'sqlite: needs a file path (e.g. sqlite:./data/switchyard.db)');
  return path;
}
