import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  BIN,
  descendants,
  killLeft,
  listening,
  REPO,
  run,
  serveEnv,
  starterKey,
  untilGone,
  type ServeRun,
  tempDir,
} from '../support/serve-process.ts';

// Stopping the gateway the way operators start it: `npm start` (npm, its shell, the
// gateway) and the launcher re-running itself under the bundled Node 24. A signal to the
// outermost process must stop every process of the tree and free the port, and a launcher
// that dies must not leave its gateway behind.

const missingDataDir = () => join(tempDir('switchyard-signals'), 'data', 'nested');

/** An npm to run `npm start` with: the one running this test, or one on PATH. */
function npm(): string[] | null {
  const cli = process.env.npm_execpath;
  if (cli !== undefined && cli.endsWith('.js') && existsSync(cli)) return [process.execPath, cli];
  return spawnSync('npm', ['--version']).status === 0 ? ['npm'] : null;
}

/** A Node older than 22.18 outside node_modules (the system one), so the launcher re-spawns. */
function oldNode(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue;
    const bin = join(dir, 'node');
    if (!existsSync(bin)) continue;
    const v = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim().split('.').map(Number);
    if (v.length === 3 && (v[0]! < 22 || (v[0] === 22 && v[1]! < 18))) return bin;
  }
  return null;
}

async function started(s: ServeRun): Promise<{ origin: string; port: number; tree: number[] }> {
  const origin = await listening(s);
  const key = await starterKey(s);
  const status = (await fetch(`${origin}/v1/key`, { headers: { authorization: `Bearer ${key}` } })).status;
  assert.equal(status, 200);
  const tree = [s.child.pid!, ...descendants(s.child.pid!)];
  return { origin, port: Number(new URL(origin).port), tree };
}

const npmCommand = npm();
test('SIGTERM to `npm start` stops the whole process tree and frees the port', { skip: npmCommand === null && 'no npm' }, async () => {
  const [command, ...pre] = npmCommand!;
  const s = run(command!, [...pre, 'start'], { cwd: REPO, env: serveEnv({ SWITCHYARD_DATA_DIR: missingDataDir(), PORT: '0' }) });
  const { port, tree } = await started(s);
  assert.ok(tree.length >= 2, `npm and the gateway at least: ${tree.join(', ')}`);
  try {
    // npm start gives the gateway glibc's allocator settings (docs/operations.md, "Memory and GC").
    const gateway = tree.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('bin/switchyard.mjs'));
    assert.ok(gateway !== undefined, `a gateway in ${tree.join(', ')}`);
    const environ = readFileSync(`/proc/${gateway}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}`), 'MALLOC_ARENA_MAX');
    assert.ok(environ.includes(`MALLOC_TRIM_THRESHOLD_=${process.env.MALLOC_TRIM_THRESHOLD_ ?? '131072'}`), 'MALLOC_TRIM_THRESHOLD_');
    s.child.kill('SIGTERM');
    await s.exited;
    assert.deepEqual(await untilGone(tree, port), [], s.stderr);
    assert.match(s.stderr, /SIGTERM: shutting down/);
  } finally {
    killLeft(tree);
  }
});

test('an `npm start` killed with SIGKILL takes its gateway with it', { skip: npmCommand === null && 'no npm' }, async () => {
  const [command, ...pre] = npmCommand!;
  const s = run(command!, [...pre, 'start'], { cwd: REPO, env: serveEnv({ SWITCHYARD_DATA_DIR: missingDataDir(), PORT: '0' }) });
  const { port, tree } = await started(s);
  try {
    s.child.kill('SIGKILL');
    await s.exited;
    assert.deepEqual(await untilGone(tree, port), []);
  } finally {
    killLeft(tree);
  }
});

const old = oldNode();
test(
  'SIGTERM to the launcher under an old Node reaches the gateway it re-spawned',
  { skip: old === null && 'no Node < 22.18 on PATH' },
  async () => {
    const s = run(old!, [BIN, 'serve', '--port', '0'], { env: serveEnv({ SWITCHYARD_DATA_DIR: missingDataDir() }) });
    const { port, tree } = await started(s);
    assert.equal(tree.length, 2, `the launcher and the gateway: ${tree.join(', ')}`);
    try {
      s.child.kill('SIGTERM');
      assert.deepEqual(await s.exited, { code: 0, signal: null }, s.stderr);
      assert.deepEqual(await untilGone(tree, port), []);
      assert.match(s.stderr, /SIGTERM: shutting down/);
    } finally {
      killLeft(tree);
    }
  },
);

test('a launcher killed with SIGKILL takes its gateway with it', { skip: old === null && 'no Node < 22.18 on PATH' }, async () => {
  const s = run(old!, [BIN, 'serve', '--port', '0'], { env: serveEnv({ SWITCHYARD_DATA_DIR: missingDataDir() }) });
  const { port, tree } = await started(s);
  try {
    s.child.kill('SIGKILL');
    assert.deepEqual(await s.exited, { code: null, signal: 'SIGKILL' });
    assert.deepEqual(await untilGone(tree, port), []);
  } finally {
    killLeft(tree);
  }
});
