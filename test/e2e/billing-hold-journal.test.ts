import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { startHookedUpstream, type HookedUpstream } from '../support/hooked-upstream.ts';
import { generationRecord } from '../support/public-api.ts';
import { BIN, listening, serve, serveEnv, stop, type ServeRun } from '../support/serve-process.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The in-flight journal (timeouts.hold_journal_ms, docs/billing.md "Reserve, then settle"):
// the credit hold is taken before the upstream call as ever, but its durable row is not
// waited for. It rides with the next batch the settlement queue writes anyway, or goes
// `hold_journal_ms` after the admission at the latest; a request settled before that writes
// no row at all. The promise: a request still in flight one interval after its start has
// its row, and a crash then records it as interrupted at the restart. (The strict promise,
// `hold_journal_ms: 0`: billing-hold-before-upstream.test.ts and billing-crash.test.ts.)

const chat = { model: 'acme/mock-1', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] };

/** Counts every row ever inserted into `reservations` (a trigger: the writer thread's inserts included). */
function countHoldInserts(db: DatabaseSync): () => number {
  db.exec(`CREATE TABLE IF NOT EXISTS test_hold_inserts (id TEXT NOT NULL);
    CREATE TRIGGER IF NOT EXISTS test_count_hold_inserts AFTER INSERT ON reservations
    BEGIN INSERT INTO test_hold_inserts (id) VALUES (new.id); END;`);
  return () => Number((db.prepare('SELECT count(*) AS n FROM test_hold_inserts').get() as { n: number }).n);
}

describe('the in-flight journal: hold rows ride with the next batch', () => {
  let up: HookedUpstream;
  let gw: TestGateway;
  let auth: Record<string, string>;
  let inserts: () => number;
  before(async () => {
    up = await startHookedUpstream();
    // An interval no loaded machine reaches between a request's admission and its settlement
    // here: every row written below was written with a batch, never by the timer.
    gw = await startTestGateway({
      yaml: emulatorConfig(up.baseUrl, 'timeouts: { hold_journal_ms: 10000 }\n'),
      env: { LOCAL_KEY: 'k' },
      credits: '10',
    });
    auth = { authorization: `Bearer ${gw.key}` };
    inserts = countHoldInserts(gw.db);
  });
  after(async () => {
    await gw.close();
    await up.close();
  });

  test('a request answered at once writes no hold row at all, and is settled and recorded', async () => {
    let rowsAtArrival = -1;
    up.onNextRequest = () => {
      rowsAtArrival = Number((gw.db.prepare('SELECT count(*) AS n FROM reservations').get() as { n: number }).n);
    };
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(res.status, 200, res.text);
    assert.equal(rowsAtArrival, 0, 'the request went upstream without waiting for a hold row');
    assert.equal(inserts(), 0, 'no hold row was ever inserted');
    const record = await generationRecord(gw.origin, gw.key, res.headers.get('x-generation-id')!);
    assert.equal(record.status, 'success');
    assert.equal(record.total_cost, 0.00014, '100 prompt × 1,000 + 20 completion × 2,000 nano-USD');
    assert.equal(gw.services.reservations.outstanding, 0, 'its credit hold was released');
  });

  test("a request in flight has its hold row written with another request's settlement batch", async () => {
    const before = inserts();
    const { promise: release, resolve: answerFirst } = Promise.withResolvers<void>();
    const { promise: arrived, resolve: firstArrived } = Promise.withResolvers<void>();
    up.onNextRequest = () => {
      firstArrived();
      return release;
    };
    const first = postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    await arrived;
    // The second request is answered at once: its settlement's batch carries the first's hold row.
    const second = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(second.status, 200, second.text);
    const rows = gw.db.prepare('SELECT id FROM reservations').all() as Array<{ id: string }>;
    assert.equal(rows.length, 1, 'the request still in flight has its row once the batch committed');
    assert.notEqual(rows[0]!.id, second.headers.get('x-generation-id'));
    answerFirst();
    const done = await first;
    assert.equal(done.status, 200, done.text);
    assert.equal(rows[0]!.id, done.headers.get('x-generation-id'), 'the row was the first request’s');
    assert.equal(inserts() - before, 1, "the first request's row, and none for the second");
    assert.equal(Number((gw.db.prepare('SELECT count(*) AS n FROM reservations').get() as { n: number }).n), 0, 'removed at settlement');
  });

  test('a database that refuses writes: the request admitted goes upstream, its answer is refused and its charge kept; the next is refused before the upstream', async () => {
    const callsBefore = up.calls;
    // The writer thread refuses every write from here; the queue does not know it until it writes.
    await gw.services.writer!.exec('PRAGMA query_only = ON');
    try {
      const admitted = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
      assert.equal(up.calls, callsBefore + 1, 'admitted without waiting for a row: it reached the upstream');
      assert.equal(admitted.status, 503, admitted.text);
      assert.equal(admitted.json.error.code, 'storage_unavailable', 'the answer is not delivered: its charge is not on disk');
      assert.equal(gw.services.settlements.failing, true);
      const refused = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.json.error.code, 'storage_unavailable');
      assert.equal(up.calls, callsBefore + 1, 'while failing, nothing goes upstream');
      await gw.services.writer!.exec('PRAGMA query_only = OFF');
      assert.equal(await gw.services.settlements.retry(), true, 'the kept charge is written once writes work');
      const record = await generationRecord(gw.origin, gw.key, admitted.headers.get('x-generation-id')!);
      assert.equal(record.total_cost, 0.00014, 'the upstream billed it: it is charged');
      assert.equal(record.error_code, 'storage_unavailable', 'the record says the answer was not delivered');
    } finally {
      await gw.services.writer!.exec('PRAGMA query_only = OFF');
    }
  });
});

describe('the in-flight journal: a request in flight after the interval survives a SIGKILL in the crash record', () => {
  let emu: OpenAIChatEmulator;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const runs: ServeRun[] = [];
  before(async () => {
    emu = await startOpenAIChatEmulator();
    dir = mkdtempSync(join(tmpdir(), 'switchyard-journal-'));
    writeFileSync(join(dir, 'config.yaml'), emulatorConfig(emu.baseUrl, 'timeouts: { hold_journal_ms: 100 }\n'));
    env = serveEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: join(dir, 'config.yaml') });
  });
  after(async () => {
    for (const r of runs) if (r.child.exitCode === null && r.child.signalCode === null) await stop(r);
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function cli(...args: string[]): any {
    const r = spawnSync(process.execPath, [BIN, ...args, '--json'], { env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  }

  async function start(): Promise<{ run: ServeRun; origin: string }> {
    const run = serve(env, ['--port', '0']);
    runs.push(run);
    return { run, origin: await listening(run) };
  }

  test('its hold row is committed once the interval ran out, and the restart records it as interrupted', async () => {
    cli('init');
    const account = cli('accounts', 'create', '--name', 'journal', '--credits', '10', '--tier', 'enterprise');
    const { key } = cli('keys', 'create', '--account', account.id);
    const { run, origin } = await start();
    emu.enqueue({ fault: 'hang' });
    const hung = fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(chat),
    }).catch(() => null);
    await emu.whenRequests(1);
    // No other request settles: only the journal's timer can write the row. Polled until it is there.
    const db = new DatabaseSync(join(dir, 'switchyard.db'));
    db.exec('PRAGMA busy_timeout = 2000');
    let id: string | undefined;
    for (;;) {
      id = (db.prepare('SELECT id FROM reservations').get() as { id: string } | undefined)?.id;
      if (id !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 10)); // the poll's pace, not a wait for time to pass
    }
    run.child.kill('SIGKILL');
    await run.exited;
    assert.equal(await hung, null, 'the client saw its connection cut');

    const again = await start();
    const interrupted = db.prepare("SELECT count(*) AS n FROM generations WHERE id = ? AND error_code = 'interrupted'").get(id) as {
      n: number;
    };
    assert.equal(Number(interrupted.n), 1, 'the request killed in flight is in the crash record');
    assert.equal(Number((db.prepare('SELECT count(*) AS n FROM reservations').get() as { n: number }).n), 0, 'its hold released');
    const record = await generationRecord(again.origin, key, id);
    assert.equal(record.total_cost, 0, 'nothing charged for it');
    db.close();
  });
});
