import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { nanosToNumber } from '../../src/money/money.ts';
import { generationRecord } from '../support/public-api.ts';
import { emulatorConfig } from '../support/test-gateway.ts';

// The gateway killed with SIGKILL in the middle of a burst: every answer a client received
// whole has its charge on disk, and at restart the holds of interrupted requests are
// released, leaving the ledger and the balance in agreement. The strict promise
// (`timeouts.hold_journal_ms: 0`): every request at the upstream has its hold row; the
// default in-flight journal's promise is billing-hold-journal.test.ts's.

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;

describe('crash safety of the ledger', () => {
  let emu: OpenAIChatEmulator;
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    emu = await startOpenAIChatEmulator();
    dir = mkdtempSync(join(tmpdir(), 'switchyard-crash-'));
    writeFileSync(join(dir, 'config.yaml'), emulatorConfig(emu.baseUrl, 'timeouts: { hold_journal_ms: 0 }\n'));
    env = { ...(process.env as Record<string, string>), SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: join(dir, 'config.yaml') };
  });
  after(async () => {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function cli(...args: string[]): any {
    const r = spawnSync(process.execPath, [BIN, ...args, '--json'], { env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  }

  async function serve(): Promise<{ child: ChildProcess; origin: string }> {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const origin = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    return { child, origin };
  }

  test('SIGKILL during a burst loses no charge; stale holds are reconciled at restart', async () => {
    cli('init'); // the CLI creates a database only in serve or init
    const account = cli('accounts', 'create', '--name', 'crash', '--credits', '10', '--tier', 'enterprise');
    const { key } = cli('keys', 'create', '--account', account.id);
    const { child, origin } = await serve();

    // 30 requests: the first 10 the upstream receives are answered at once, the other 20
    // never are. The gateway dies once the 10 answers are with their clients and all 30
    // requests are at the upstream: 10 charges must be on disk, 20 holds left stale.
    const N = 30;
    const ANSWERED = 10;
    for (let i = 0; i < ANSWERED; i++) {
      emu.enqueue({ text: `answer ${i}`, usage: { prompt_tokens: 100 + i, completion_tokens: 10 + i } });
    }
    for (let i = ANSWERED; i < N; i++) emu.enqueue({ fault: 'hang' });
    let received = 0;
    const { promise: answered, resolve: allAnswered } = Promise.withResolvers<void>();
    const outcomes = Array.from({ length: N }, () =>
      fetch(`${origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'acme/mock-1', max_tokens: 200, messages: [{ role: 'user', content: 'go' }] }),
      })
        .then(async (res) => {
          const outcome = { status: res.status, id: res.headers.get('x-generation-id'), body: await res.text() };
          if (++received === ANSWERED) allAnswered();
          return outcome;
        })
        .catch(() => null),
    );
    // Killed the moment the last request reaches the upstream, whatever the machine's load:
    // the promise is that a request reaches its upstream only once its hold row is on disk,
    // so no delay here can make the test pass when that promise is broken (issue 23 §7).
    await Promise.all([answered, emu.whenRequests(N)]);
    child.kill('SIGKILL');
    const settled = await Promise.all(outcomes);
    const completed = settled.filter(
      (o): o is { status: number; id: string; body: string } => o !== null && o.status === 200 && o.body.includes('"usage"'),
    );
    assert.equal(completed.length, ANSWERED, 'the answered requests completed, the hung ones did not');

    // Restart: the holds of the interrupted requests are released.
    const again = await serve();
    try {
      const db = new DatabaseSync(join(dir, 'switchyard.db'));
      db.exec('PRAGMA busy_timeout = 2000');
      const held = db.prepare('SELECT count(*) AS n FROM reservations').get() as { n: number };
      assert.equal(Number(held.n), 0);
      const acct = db.prepare('SELECT balance_nanos FROM accounts WHERE id = ?').get(account.id) as { balance_nanos: number };
      // Each answer a client received has its cost on record, as the public API shows it.
      let charged = 0n;
      for (const c of completed) {
        const usage = JSON.parse(c.body).usage;
        const cost = BigInt(usage.prompt_tokens) * 1000n + BigInt(usage.completion_tokens) * 2000n;
        charged += cost;
        const record = await generationRecord(again.origin, key, c.id);
        assert.equal(record.status, 'success', `the answer ${c.id} the client received is recorded`);
        assert.equal(record.total_cost, nanosToNumber(cost), `the answer ${c.id} has its charge`);
      }
      const credits = (await (await fetch(`${again.origin}/api/v1/credits`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
        data: { total_usage: number };
      };
      assert.equal(credits.data.total_usage, nanosToNumber(charged), 'usage is the delivered answers and nothing else');
      const sum = db.prepare('SELECT coalesce(sum(amount_nanos), 0) AS s FROM ledger WHERE account_id = ?').get(account.id) as {
        s: number;
      };
      assert.equal(acct.balance_nanos, sum.s, 'the balance is the sum of its ledger');
      const interrupted = db.prepare("SELECT count(*) AS n FROM generations WHERE error_code = 'interrupted'").get() as { n: number };
      assert.equal(Number(interrupted.n), N - ANSWERED, 'each interrupted request leaves a record');
      db.close();
    } finally {
      again.child.kill('SIGTERM');
      await new Promise((r) => again.child.once('exit', r));
    }
  });
});
