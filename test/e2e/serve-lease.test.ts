import { test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { listening, serve, serveEnv, starterKey, stop, type ServeRun, tempDir } from '../support/serve-process.ts';

// One gateway process per database, however the second one reaches the file.

const HELD = /another switchyard gateway \(pid \d+ on .+, since .+\) is serving .+; one gateway process per database/;

async function firstGateway(): Promise<{ dir: string; s: ServeRun; origin: string; key: string }> {
  const dir = tempDir('switchyard-lease');
  const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dir }), ['--port', '0']);
  const origin = await listening(s);
  const key = await starterKey(s);
  return { dir, s, origin, key };
}

/** Waits for the second gateway to exit, or fails at once when it serves instead. */
async function refused(second: ServeRun): Promise<void> {
  const outcome = await Promise.race([
    second.exited.then((e) => e.code),
    second.waitFor(/listening on/).then(
      () => 'served' as const,
      () => 'exited' as const,
    ),
  ]);
  if (outcome === 'served') {
    await stop(second);
    assert.fail(`a second gateway served the same database:\n${second.stderr}`);
  }
  assert.equal((await second.exited).code, 1, second.stderr);
}

async function stillServes(origin: string, key: string): Promise<number> {
  return (await fetch(`${origin}/v1/key`, { headers: { authorization: `Bearer ${key}` } })).status;
}

test('a second serve on the same database path is refused while the first serves', async () => {
  const first = await firstGateway();
  try {
    const second = serve(serveEnv({ SWITCHYARD_DATA_DIR: first.dir }), ['--port', '0']);
    await refused(second);
    assert.match(second.stderr, new RegExp(`error: ${HELD.source}`));
    assert.doesNotMatch(second.stderr, /listening on/);
    assert.equal(await stillServes(first.origin, first.key), 200);
  } finally {
    await stop(first.s);
  }
});

test('a second serve through a symlink to the same database file is refused', async () => {
  const first = await firstGateway();
  try {
    const link = join(tempDir('switchyard-lease-link'), 'another-name.db');
    symlinkSync(join(first.dir, 'switchyard.db'), link);
    const second = serve(serveEnv({ DATABASE_URL: `sqlite:${link}` }), ['--port', '0']);
    await refused(second);
    assert.match(second.stderr, HELD);
    assert.doesNotMatch(second.stderr, /listening on/);
    assert.equal(await stillServes(first.origin, first.key), 200);
  } finally {
    await stop(first.s);
  }
});

test('after the first gateway is SIGKILLed, a new one starts on the same database', async () => {
  const first = await firstGateway();
  assert.deepEqual(await stop(first.s, 'SIGKILL'), { code: null, signal: 'SIGKILL' });
  const next = serve(serveEnv({ SWITCHYARD_DATA_DIR: first.dir }), ['--port', '0']);
  const origin = await listening(next);
  assert.equal(await stillServes(origin, first.key), 200, 'the same database, the same key');
  assert.deepEqual(await stop(next), { code: 0, signal: null });
});

test('after a clean stop, the next gateway starts without waiting for the lease to expire', async () => {
  const first = await firstGateway();
  assert.deepEqual(await stop(first.s), { code: 0, signal: null });
  const next = serve(serveEnv({ SWITCHYARD_DATA_DIR: first.dir }), ['--port', '0']);
  await listening(next);
  assert.doesNotMatch(next.stderr, /another switchyard gateway/);
  await stop(next);
});

test('a gateway whose lease another process took over stops serving', async () => {
  const first = await firstGateway();
  const db = new DatabaseSync(join(first.dir, 'switchyard.db'));
  db.exec('PRAGMA busy_timeout = 5000');
  db.prepare("UPDATE serve_lease SET holder = 'another gateway'").run();
  db.close();
  const exit = await first.s.exited;
  assert.equal(exit.code, 1, first.s.stderr);
  assert.match(
    first.s.stderr,
    /another process took over the serve lease of this database; stopping, so that two gateways never serve one database: shutting down/,
  );
});
