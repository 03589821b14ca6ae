import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The database cannot be used as it is: the message names the path and the cause. */
export class DatabaseAccessError extends Error {}

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Before SQLite opens `path`: creates its folder (and missing parents) private to this
 * user, creates the database file private to this user (SQLite gives the -wal and -shm
 * files the database file's mode), and refuses a folder or file this process cannot
 * write, so a gateway never starts on a database its first write would fail on.
 * Existing folders and files keep the modes the operator gave them.
 */
export function prepareDatabaseFiles(path: string): void {
  const dir = dirname(resolve(path));
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  } catch (err) {
    throw new DatabaseAccessError(`cannot create the database folder ${dir}: ${describe(err)}`);
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new DatabaseAccessError(`cannot write the database ${path}: its folder ${dir} is not writable (${describe(err)})`);
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch (err) {
      throw new DatabaseAccessError(`cannot write the database ${path}: ${file} is not writable (${describe(err)})`);
    }
  }
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new DatabaseAccessError(`cannot create the database ${path}: ${describe(err)}`);
    }
  }
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const what: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOTDIR: 'a path component is not a folder',
  };
  return e.code !== undefined && what[e.code] !== undefined ? `${what[e.code]}, ${e.code}` : e.message;
}
