import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MasterKey } from '../../auth/byok-cipher.ts';
import { WebhookSecrets } from './webhook-secrets.ts';

// Which key seals webhook signing secrets (docs/security.md#webhook-secrets): byok.master_key
// when configured; else, on SQLite, a key the gateway generates once in its data directory
// (webhook-secrets.key, 32 random bytes, mode 0600), so the database file alone never holds
// a secret that opens. A fleet on Postgres has no shared directory: without byok.master_key
// no webhook can be registered (503 webhook_secrets_not_configured).

export const LOCAL_KEY_FILE = 'webhook-secrets.key';

/** The local key file beside a SQLite database at `dbPath`; null for an in-memory database. */
export function localKeyPath(dbPath: string): string | null {
  return dbPath === '' || dbPath === ':memory:' ? null : join(dirname(resolve(dbPath)), LOCAL_KEY_FILE);
}

/**
 * The local key at `path`: read, or made (mode 0600, never overwritten: written whole to a file
 * of its own, then linked to `path`, so processes racing, `serve --workers`, all read the one
 * that won and never a half-written one) when `create`; null when absent and not created. A
 * file readable by others is narrowed to 0600; one that holds no 256-bit key stops the start.
 */
export function readLocalKey(path: string, create: boolean): MasterKey | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    if (!create) return null;
    const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      unlinkSync(draft);
    }
    text = readFileSync(path, 'utf8');
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const key = MasterKey.parse(text);
  if (key === null) throw new Error(`${path} does not hold a 256-bit key (the webhook secrets' local key); restore it from a backup`);
  return key;
}

/**
 * The webhook secrets' keys for this gateway: `master` (byok.master_key) or, on SQLite
 * (`sqlitePath` non-null) without one, the local key file (made on first use). With a master
 * key the local file, if any, still opens the rows it sealed (re-sealed at start).
 */
export function webhookSecretsFor(master: MasterKey | null, sqlitePath: string | null): WebhookSecrets {
  if (sqlitePath === null) return new WebhookSecrets(master);
  const path = localKeyPath(sqlitePath);
  // An in-memory database lives as long as the process: so may its key.
  const local = path === null ? MasterKey.parse(randomBytes(32).toString('hex')) : readLocalKey(path, master === null);
  return new WebhookSecrets(master ?? local, local === null ? [] : [local]);
}
