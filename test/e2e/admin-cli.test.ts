import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The operator's way to an admin key: the first start says how, the CLI makes one, and the
// running gateway takes it for the admin API (and refuses it for models).

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;
const env = (dir: string) => ({
  ...process.env,
  SWITCHYARD_DATA_DIR: dir,
  SWITCHYARD_CONFIG: '',
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
});

describe('admin keys from the CLI', () => {
  let dir: string;
  let child: ChildProcess;
  let banner = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-admin-cli-'));
    child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: env(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.setEncoding('utf8');
    // The banner's last line is the admin-key hint.
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${banner}`)));
      child.stderr!.on('data', (d: string) => {
        banner += d;
        if (/--admin\n\n/.test(banner)) resolve();
      });
    });
  });
  after(async () => {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test('the first start tells how to create an admin key; the key it makes works on the admin API and cannot call models', async () => {
    const origin = /listening on (http:\/\/[\d.]+:\d+)/.exec(banner)![1]!;
    const account = /created the operator account (acct_\S+) /.exec(banner)![1]!;
    assert.match(banner, new RegExp(`switchyard keys create --account ${account} --name ops --admin`));
    // Not a terminal: no secret printed at all; the starter key is in the file the banner names.
    assert.doesNotMatch(banner, /sk-sy-v1-/);
    assert.ok(banner.includes(`    ${join(dir, 'first-start-key.txt')}\n`), banner);

    const made = spawnSync(process.execPath, [BIN, 'keys', 'create', '--account', account, '--name', 'ops', '--admin', '--json'], {
      env: env(dir),
      encoding: 'utf8',
    });
    assert.equal(made.status, 0, made.stderr);
    const out = JSON.parse(made.stdout);
    assert.equal(out.kind, 'admin');
    const auth = { authorization: `Bearer ${out.key}` };
    const accounts = await fetch(`${origin}/api/v1/admin/accounts`, { headers: auth });
    assert.equal(accounts.status, 200);
    assert.ok(((await accounts.json()) as any).data.some((a: any) => a.id === account));
    const chat = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(chat.status, 403);

    const both = spawnSync(process.execPath, [BIN, 'keys', 'create', '--account', account, '--admin', '--management'], {
      env: env(dir),
      encoding: 'utf8',
    });
    assert.notEqual(both.status, 0);
  });
});
