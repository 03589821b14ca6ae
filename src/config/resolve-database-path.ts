import { join } from 'node:path';
import { ConfigError } from './config-error.ts';

type Env = Record<string, string | undefined>;

export const DEFAULT_DATABASE_PATH = './data/switchyard.db';
const DATABASE_FILE = 'switchyard.db';

/**
 * Where the SQLite file lives: `DATABASE_URL` (sqlite:<path> or sqlite://<path>) wins,
 * then `SWITCHYARD_DATA_DIR`, then the file's `database.path`, then ./data/.
 * Other schemes are refused rather than ignored, so a Postgres URL meant for a later
 * version never silently lands the data in a local file.
 */
export function resolveDatabasePath(env: Env, filePath: string | undefined): string {
  const url = env.DATABASE_URL;
  if (url !== undefined && url !== '') return sqlitePathFromUrl(url);
  const dataDir = env.SWITCHYARD_DATA_DIR;
  if (dataDir !== undefined && dataDir !== '') return join(dataDir, DATABASE_FILE);
  return filePath ?? DEFAULT_DATABASE_PATH;
}

function sqlitePathFromUrl(url: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url);
  if (scheme === null) throw new ConfigError('env DATABASE_URL', 'expected sqlite:<path> (e.g. sqlite:./data/switchyard.db)');
  const name = scheme[1]!.toLowerCase();
  if (name !== 'sqlite') {
    // The scheme only: the rest of a database URL usually holds a password.
    throw new ConfigError('env DATABASE_URL', `the ${name} scheme is not supported yet; use sqlite:<path>`);
  }
  const rest = url.slice(scheme[0].length);
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new ConfigError('env DATABASE_URL', 'sqlite: needs a file path (e.g. sqlite:./data/switchyard.db)');
  return path;
}
