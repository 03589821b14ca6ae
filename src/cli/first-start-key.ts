import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { GatewayConfig } from '../config/types.ts';

// The operator's starter key, made on the first start, must reach the operator and nobody
// else. A terminal is the operator's own: the key is printed there. Anything else (a pipe,
// a file, journald, a container's log driver) usually ends in shipped logs: the key goes to
// a file only the gateway's user can read, and the output names that file.

export const FIRST_START_KEY_FILE = 'first-start-key.txt';

/** Where the starter key went: printed (`shown`), or written to `path`, or nowhere (`failed` says why). */
export type KeyDelivery = { kind: 'shown' } | { kind: 'file'; path: string } | { kind: 'failed'; reason: string };

/**
 * The folder the key file goes into: the SQLite database's folder; with Postgres (or an
 * in-memory database) SWITCHYARD_DATA_DIR, else ./data — the folder a SQLite gateway would
 * use — created private to this user when missing.
 */
export function firstStartKeyFolder(config: GatewayConfig, env: Record<string, string | undefined>): string {
  if (config.database.url === undefined && config.database.path !== ':memory:') return dirname(resolve(config.database.path));
  const dataDir = env.SWITCHYARD_DATA_DIR;
  return resolve(dataDir !== undefined && dataDir !== '' ? dataDir : './data');
}

/**
 * Delivers the key: shown when `interactive`, else written (mode 0600) into `folder`; when
 * that folder cannot be written, into a private temporary folder; when neither can, nowhere.
 */
export function deliverStarterKey(key: string, interactive: boolean, folder: string): KeyDelivery {
  if (interactive) return { kind: 'shown' };
  try {
    return { kind: 'file', path: writeKeyFile(folder, key) };
  } catch (err) {
    try {
      return { kind: 'file', path: writeKeyFile(mkdtempSync(join(tmpdir(), 'switchyard-key-')), key) };
    } catch {
      return {
        kind: 'failed',
        reason: `cannot write ${join(folder, FIRST_START_KEY_FILE)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      };
    }
  }
}

function writeKeyFile(folder: string, key: string): string {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, FIRST_START_KEY_FILE);
  // A file left by an earlier first start (of a database since removed) is replaced, never
  // written through: `wx` creates it anew, with its mode, and refuses a symlink planted there.
  rmSync(path, { force: true });
  writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return path;
}
