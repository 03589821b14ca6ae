import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './open-database.ts';
import { ServeLeaseHeld, ServeLock } from './serve-lock.ts';

// Two connections stand for two gateway processes: the lease lives in the database file,
// so what one connection holds another one sees, whatever path it opened the file by.
// Time is a hand-driven clock; the heartbeat timer is left at its default and not awaited.

const dbPath = () => join(mkdtempSync(join(tmpdir(), 'switchyard-lock-')), 'switchyard.db');

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

test('a second holder on the same database is refused while the first lease is live', () => {
  const path = dbPath();
  const c = clock();
  const first = ServeLock.acquire(openDatabase(path), path, { now: c.now, ttlMs: 5_000 });
  c.advance(4_999);
  assert.throws(
    () => ServeLock.acquire(openDatabase(path), path, { now: c.now }),
    (err: unknown) => {
      assert.ok(err instanceof ServeLeaseHeld);
      assert.match(err.message, new RegExp(`another switchyard gateway \\(pid ${process.pid} on .+\\) is serving`));
      assert.equal(err.holder.expiresAt, 1_005_000);
      return true;
    },
  );
  first.release();
});

test('a second holder reaching the same file through a symlink is refused', () => {
  const path = dbPath();
  const link = join(mkdtempSync(join(tmpdir(), 'switchyard-link-')), 'other-name.db');
  const first = ServeLock.acquire(openDatabase(path), path);
  symlinkSync(path, link);
  assert.throws(() => ServeLock.acquire(openDatabase(link), link), ServeLeaseHeld);
  first.release();
});

test('a lease nobody renewed past its expiry is taken over, and the old holder learns it lost it', () => {
  const path = dbPath();
  const c = clock();
  const lost: string[] = [];
  const first = ServeLock.acquire(openDatabase(path), path, { now: c.now, ttlMs: 5_000, onLost: (r) => lost.push(r) });
  c.advance(5_000);
  const second = ServeLock.acquire(openDatabase(path), path, { now: c.now, ttlMs: 5_000 });
  assert.equal(second.held, true);
  first.renew();
  assert.equal(first.held, false);
  assert.deepEqual(lost, ['another process took over the serve lease of this database']);
  second.release();
});

test('renewing pushes the expiry forward, so a live holder is never taken over', () => {
  const path = dbPath();
  const c = clock();
  const first = ServeLock.acquire(openDatabase(path), path, { now: c.now, ttlMs: 5_000 });
  for (let i = 0; i < 10; i++) {
    c.advance(1_000);
    first.renew();
  }
  assert.equal(first.held, true);
  assert.throws(() => ServeLock.acquire(openDatabase(path), path, { now: c.now }), ServeLeaseHeld);
  first.release();
});

test('renewals that fail while the database refuses writes do not stop the gateway; it renews again once writes succeed', () => {
  const path = dbPath();
  const c = clock();
  const db = openDatabase(path);
  const lost: string[] = [];
  const lock = ServeLock.acquire(db, path, { now: c.now, ttlMs: 5_000, onLost: (r) => lost.push(r) });
  db.exec('PRAGMA query_only = ON'); // every write now fails, as on a read-only or full disk
  c.advance(10_000);
  lock.renew();
  assert.equal(lock.held, true, 'a database refusing writes fails closed through settlement; the lease is not given up');
  db.exec('PRAGMA query_only = OFF');
  lock.renew();
  assert.equal(lock.held, true);
  assert.deepEqual(lost, []);
  assert.throws(() => ServeLock.acquire(openDatabase(path), path, { now: c.now }), ServeLeaseHeld, 'the renewed lease is live again');
  lock.release();
});

test('a gateway whose lease another process took while its writes failed stops at its next successful renewal', () => {
  const path = dbPath();
  const c = clock();
  const db = openDatabase(path);
  const lost: string[] = [];
  const lock = ServeLock.acquire(db, path, { now: c.now, ttlMs: 5_000, onLost: (r) => lost.push(r) });
  db.exec('PRAGMA query_only = ON');
  c.advance(6_000);
  lock.renew();
  const other = ServeLock.acquire(openDatabase(path), path, { now: c.now });
  db.exec('PRAGMA query_only = OFF');
  lock.renew();
  assert.equal(lock.held, false);
  assert.match(lost[0] ?? '', /another process took over/);
  other.release();
});

test('release lets the next holder in at once', () => {
  const path = dbPath();
  const c = clock();
  ServeLock.acquire(openDatabase(path), path, { now: c.now }).release();
  const next = ServeLock.acquire(openDatabase(path), path, { now: c.now });
  assert.equal(next.held, true);
  next.release();
});

test('a database that cannot be written is refused when the lease is taken, naming the path', () => {
  const path = dbPath();
  openDatabase(path).close();
  const readOnly = new DatabaseSync(path, { readOnly: true });
  assert.throws(
    () => ServeLock.acquire(readOnly, path),
    (err: unknown) => {
      assert.ok(!(err instanceof ServeLeaseHeld));
      assert.match((err as Error).message, new RegExp(`^cannot write the database ${path}: .*readonly`));
      return true;
    },
  );
});
