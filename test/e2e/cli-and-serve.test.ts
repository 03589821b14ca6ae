import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listening, serve as serveProcess, serveEnv, starterKey, stop as stopProcess, type ServeRun } from '../support/serve-process.ts';

// The `switchyard` command as an operator runs it: a separate process on a real database.

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;

function cli(dir: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: '' },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function cliJson(dir: string, ...args: string[]): any {
  const r = cli(dir, ...args, '--json');
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}

interface Served {
  run: ServeRun;
  origin: string;
  /** The starter key, on a first start. */
  key: string | undefined;
}

/** Starts `switchyard serve` on a free port; resolves once it listens and has printed its banner. */
/**
 * Sends `send` until it answers `want` or `withinMs` has passed (the gateway sees another
 * process's writes on its change check, every 100 ms), returning the last status.
 */
async function statusWithin(withinMs: number, send: () => Promise<Response>, want: number): Promise<number> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const res = await send();
    await res.arrayBuffer();
    if (res.status === want || Date.now() >= deadline) return res.status;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function serve(dir: string, firstStart = false): Promise<Served> {
  const run = serveProcess(serveEnv({ SWITCHYARD_DATA_DIR: dir }), ['--port', '0']);
  const origin = await listening(run);
  return { run, origin, key: firstStart ? await starterKey(run) : undefined };
}

async function stop(s: Served): Promise<number | null> {
  return (await stopProcess(s.run)).code;
}

describe('switchyard serve and the operator CLI', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('first start creates the operator and prints a working key once; a restart keeps the data and prints none', async () => {
    const first = await serve(dir, true);
    const key = first.key;
    assert.ok(key, `no key in: ${first.run.stderr}`);
    const models = await fetch(`${first.origin}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(models.status, 200);
    const ids = ((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id);
    assert.ok(ids.includes('switchyard/sim-fast'), 'the sim provider serves with no credentials');
    const chat = await fetch(`${first.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }),
    });
    assert.equal(chat.status, 200, 'the operator default model is used when model is omitted');
    assert.equal(await stop(first), 0);

    const second = await serve(dir);
    const again = await fetch(`${second.origin}/v1/key`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(again.status, 200);
    await stop(second);
    assert.equal(/sk-sy-v1-/.test(second.run.stderr), false, 'the key is printed only on the first start');
  });

  test('accounts, keys and credits commands, with --json', async () => {
    const acct = cliJson(dir, 'accounts', 'create', '--name', 'Acme', '--org', '--credits', '12.5', '--tier', 'tier2');
    assert.match(acct.id, /^acct_/);
    assert.equal(acct.account_type, 'organization');
    assert.equal(acct.tier, 'tier2');
    assert.equal(acct.balance_usd, '12.5', "the API's names: balance (a number) and balance_usd (exact)");

    const key = cliJson(dir, 'keys', 'create', '--account', acct.id, '--name', 'ci', '--limit', '3');
    assert.match(key.key, /^sk-sy-v1-/);
    assert.equal(key.limit_usd, '3');
    assert.equal(key.name, 'ci');

    const listed = cliJson(dir, 'keys', 'list', '--account', acct.id);
    assert.deepEqual(
      listed.map((k: any) => k.hash),
      [key.hash],
    );
    assert.equal(JSON.stringify(listed).includes(key.key), false, 'listing never shows a key');

    const credited = cliJson(dir, 'credits', 'add', '--account', acct.id, '--amount', '0.000000001');
    assert.equal(credited.balance_usd, '12.500000001');

    const accounts = cliJson(dir, 'accounts', 'list');
    assert.ok(accounts.some((a: any) => a.id === acct.id));

    // The new key works against a running gateway until it is revoked.
    const s = await serve(dir);
    try {
      const auth = { authorization: `Bearer ${key.key}` };
      assert.equal((await fetch(`${s.origin}/v1/key`, { headers: auth })).status, 200);
      // Another process's changes count at once in the running gateway: credits...
      const broke = cliJson(dir, 'accounts', 'create', '--name', 'Broke');
      const brokeKey = cliJson(dir, 'keys', 'create', '--account', broke.id).key;
      const ask = (k: string) =>
        fetch(`${s.origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] }),
        });
      assert.equal((await ask(brokeKey)).status, 402);
      cliJson(dir, 'credits', 'add', '--account', broke.id, '--amount', '1');
      assert.equal(await statusWithin(1000, () => ask(brokeKey), 200), 200);
      // ...and revocation, on every endpoint, within the gateway's change check (100 ms; promised: 1 s).
      assert.equal((await ask(key.key)).status, 200);
      const revoked = cliJson(dir, 'keys', 'revoke', key.hash);
      assert.equal(revoked.status, 'revoked');
      assert.equal(await statusWithin(1000, () => ask(key.key), 401), 401);
      assert.equal((await fetch(`${s.origin}/v1/key`, { headers: auth })).status, 401);
    } finally {
      await stop(s);
    }
  });

  test('bad input gets a usage message and exit code 1, not a stack trace', () => {
    const r = cli(dir, 'keys', 'create');
    assert.equal(r.code, 1);
    assert.match(r.err, /required option '--account <id>' not specified/);
    const u = cli(dir, 'frobnicate');
    assert.equal(u.code, 1);
    const bad = cli(dir, 'credits', 'add', '--account', 'acct_nope', '--amount', '5');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /no account/);
    const money = cli(dir, 'credits', 'add', '--account', 'acct_nope', '--amount', 'lots');
    assert.notEqual(money.code, 0);
    assert.doesNotMatch(money.err, /at .*\.ts:\d+/);
  });
});
