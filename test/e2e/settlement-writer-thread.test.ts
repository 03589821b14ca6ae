import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';
import { startHookedUpstream, type HookedUpstream } from '../support/hooked-upstream.ts';
import { runCliJson } from '../support/run-cli.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Settlements are committed by the gateway's SQLite writer thread, on its own connection
// (src/store/sqlite/sqlite-writer/): what it commits is what the main thread reads right after
// the answer; its own commits are not mistaken for another process's changes, while the
// operator CLI's are seen without any request asking; and when the thread dies, the
// answers whose charges it cannot write are refused (503) and the charges are written,
// once, by the thread started in its place.

// acme/mock-1 prices: 0.000001 prompt, 0.000002 completion → 100 × 1000 + 20 × 2000 nano-USD.
const COST_NANOS = 140_000n;
const chat = { model: 'acme/mock-1', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] };

/** Resolves once a committed batch holds the record `id`. */
function committed(gw: TestGateway, id: string): Promise<void> {
  return new Promise((resolve) => {
    gw.services.settlements.onCommitted((batch: readonly SettlementRecord[]) => {
      if (batch.some((r) => r.id === id)) resolve();
    });
  });
}

describe('the SQLite writer thread', () => {
  let up: HookedUpstream;
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    up = await startHookedUpstream();
    // A new thread only when a write asks for one, so the test decides when it runs again.
    gw = await startTestGateway({
      yaml: emulatorConfig(up.baseUrl),
      env: { LOCAL_KEY: 'k' },
      credits: '10',
      writer: { restartMs: 600_000 },
    });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await up.close();
  });

  const credits = async (): Promise<{ total_credits: number; total_usage: number }> =>
    (
      (await (await fetch(`${gw.origin}/api/v1/credits`, { headers: auth })).json()) as {
        data: { total_credits: number; total_usage: number };
      }
    ).data;

  test('a settlement it committed is what the main thread reads right after the answer', async () => {
    const usageBefore = (await credits()).total_usage;
    for (const stream of [false, true]) {
      const res = await postJson(`${gw.baseUrl}/chat/completions`, { ...chat, stream }, auth);
      assert.equal(res.status, 200, res.text);
      const id = res.headers.get('x-generation-id');
      const rec = (await (await fetch(`${gw.origin}/api/v1/generation?id=${id}`, { headers: auth })).json()) as {
        data: { total_cost: number; status: string };
      };
      assert.equal(rec.data.total_cost, Number(COST_NANOS) / 1e9, `${stream ? 'streamed' : 'whole'} answer's record at once`);
      assert.equal(rec.data.status, 'success');
    }
    assert.equal(Math.round(((await credits()).total_usage - usageBefore) * 1e9), Number(2n * COST_NANOS));
  });

  test("the start-up's compaction shrinks the thread's heap, and the thread commits after it", async () => {
    const writer = gw.services.writer!;
    const before = await writer.heapStatistics();
    await gw.services.compactHeapAfterStart();
    const after = await writer.heapStatistics();
    assert.ok(after.total_heap_size < before.total_heap_size, `writer heap ${before.total_heap_size} → ${after.total_heap_size} bytes`);
    assert.equal((globalThis as { gc?: unknown }).gc, undefined, "no gc function left to the main thread's code");
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(res.status, 200, res.text);
    const id = res.headers.get('x-generation-id');
    const rec = (await (await fetch(`${gw.origin}/api/v1/generation?id=${id}`, { headers: auth })).json()) as {
      data: { total_cost: number };
    };
    assert.equal(rec.data.total_cost, Number(COST_NANOS) / 1e9);
  });

  test("its own commits are not another process's changes; the CLI's are seen without a request asking", async () => {
    // Whatever this process's main thread wrote before (the test's account and key) is seen first.
    await gw.seeCliChanges();
    let heard = 0;
    gw.services.writer!.onExternalChange(() => heard++);
    for (let i = 0; i < 3; i++) assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, auth)).status, 200);
    await gw.seeCliChanges();
    assert.equal(heard, 0, 'settlements written by the writer thread drop no cache');

    const { key, hash } = runCliJson(gw.dir, 'keys', 'create', '--account', gw.accountId, '--name', 'to revoke');
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 200);
    await gw.seeCliChanges(); // the key's creation: heard of before listening for the revocation
    const seen = new Promise<void>((resolve) => gw.services.writer!.onExternalChange(resolve));
    runCliJson(gw.dir, 'keys', 'revoke', hash);
    // Noticed by the writer's own periodic check (every 100 ms), not by a request.
    await seen;
    const refused = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
    assert.equal(refused.status, 401, refused.text);
  });

  test('killed while a request runs: its answer is refused with 503 storage_unavailable, then the charge is written once by a new thread', async () => {
    const before = await credits();
    up.onNextRequest = () => void gw.services.writer!.crash();
    const failed = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(failed.status, 503, failed.text);
    assert.equal(failed.json.error.code, 'storage_unavailable');
    assert.doesNotMatch(failed.text, /the paid answer/);
    const id = failed.headers.get('x-generation-id')!;
    assert.ok(id);

    // The queue retries; the first retry asks for a new thread, a later one writes the charge.
    await committed(gw, id);
    assert.equal(gw.services.settlements.failing, false);
    const ok = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(ok.status, 200, ok.text);

    const rec = (await (await fetch(`${gw.origin}/api/v1/generation?id=${id}`, { headers: auth })).json()) as {
      data: { total_cost: number; error_code: string };
    };
    assert.equal(rec.data.total_cost, Number(COST_NANOS) / 1e9);
    assert.equal(rec.data.error_code, 'storage_unavailable', 'the record says the answer was not delivered');
    const after = await credits();
    assert.equal(Math.round((after.total_usage - before.total_usage) * 1e9), Number(2n * COST_NANOS), 'both answers charged, once each');
    const charges = gw.db.prepare('SELECT count(*) AS n FROM ledger WHERE generation_id = ?').get(id) as { n: number };
    assert.equal(charges.n, 1);
    const holds = gw.db.prepare('SELECT count(*) AS n FROM reservations').get() as { n: number };
    assert.equal(holds.n, 0, 'no hold row left behind');
  });
});
