import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServeLock } from './serve-lock.ts';

const db = () => join(mkdtempSync(join(tmpdir(), 'switchyard-lock-')), 'switchyard.db');

test('a second gateway on the same database is refused while the first runs', () => {
  const path = db();
  const first = ServeLock.acquire(path);
  // Another live process owns it: our parent, say.
  writeFileSync(`${path}.serve-lock`, String(process.ppid));
  assert.throws(() => ServeLock.acquire(path), /another switchyard gateway \(pid \d+\) is serving/);
  writeFileSync(`${path}.serve-lock`, String(process.pid));
  first.release();
  assert.equal(existsSync(`${path}.serve-lock`), false);
});

test('a lock left by a process that died is taken over', () => {
  const path = db();
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(`${path}.serve-lock`, dead.stdout);
  const lock = ServeLock.acquire(path);
  lock.release();
});
