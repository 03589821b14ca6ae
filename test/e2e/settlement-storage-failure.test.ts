import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHookedUpstream as startUpstream, type HookedUpstream as Upstream } from '../support/hooked-upstream.ts';
import { emulatorConfig, postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A gateway whose database stops accepting writes while it serves (read-only file, disk
// full): it must not deliver answers whose charges it cannot record, must refuse new model
// calls before any upstream call, and must recover by itself, losing no charge.

// acme/mock-1 prices: 0.000001 prompt, 0.000002 completion → 100 × 1000 + 20 × 2000 nano-USD.
const COST_NANOS = 140_000n;
const chat = { model: 'acme/mock-1', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] };

describe('settlement when the database refuses writes', () => {
  let up: Upstream;
  let gw: TestGateway;
  let auth: Record<string, string>;
  // Both connections refuse writes: the main thread's (account and key changes) and the
  // writer thread's (settlements, lease). The writer's setting is posted ahead of any
  // settlement that follows, so it applies to them even when not awaited (upstream hooks).
  const writes = (on: boolean): Promise<void> => {
    const sql = `PRAGMA query_only = ${on ? 'OFF' : 'ON'}`;
    gw.db.exec(sql);
    return gw.services.writer!.exec(sql);
  };
  before(async () => {
    up = await startUpstream();
    gw = await startTestGateway({ yaml: emulatorConfig(up.baseUrl), env: { LOCAL_KEY: 'k' }, credits: '10' });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await writes(true);
    await gw.close();
    await up.close();
  });

  test('no answer is delivered whose charge is not written; model calls get 503 until writes recover; no charge is lost', async () => {
    const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'admin', management: true })).key;
    const { record: worker } = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'worker' });
    // A non-streamed request whose own settlement fails: 503 instead of the answer.
    up.onNextRequest = () => void writes(false);
    const failed = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(failed.status, 503, failed.text);
    assert.equal(failed.json.error.code, 'storage_unavailable');
    assert.equal(failed.json.error.type, 'service_unavailable_error');
    assert.doesNotMatch(failed.text, /the paid answer/);
    const failedId = failed.headers.get('x-generation-id');
    assert.ok(failedId);

    // While writes fail, every dialect refuses before any upstream call, in its own error shape.
    const callsBefore = up.calls;
    const refusedChat = await postJson(`${gw.baseUrl}/chat/completions`, { ...chat, stream: true }, auth);
    assert.equal(refusedChat.status, 503);
    assert.equal(refusedChat.json.error.code, 'storage_unavailable');
    assert.ok(refusedChat.headers.get('retry-after'));
    const refusedMessages = await postJson(`${gw.baseUrl}/messages`, chat, { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' });
    assert.equal(refusedMessages.status, 503);
    assert.equal(refusedMessages.json.type, 'error');
    assert.equal(refusedMessages.json.error.code, 'storage_unavailable');
    const refusedResponses = await postJson(`${gw.baseUrl}/responses`, { model: 'acme/mock-1', input: 'hello' }, auth);
    assert.equal(refusedResponses.status, 503);
    assert.equal(refusedResponses.json.error.code, 'storage_unavailable');
    const refusedGemini = await postJson(
      `${gw.origin}/v1beta/models/acme/mock-1:streamGenerateContent?alt=sse`,
      { contents: [{ parts: [{ text: 'hello' }] }] },
      { 'x-goog-api-key': gw.key },
    );
    assert.equal(refusedGemini.status, 503);
    assert.equal(refusedGemini.json.error.status, 'UNAVAILABLE');
    assert.equal(refusedGemini.json.error.details[0].reason, 'STORAGE_UNAVAILABLE');
    assert.equal(up.calls, callsBefore, 'no upstream call while charges cannot be written');
    // Other writes refused by the database are a retryable 503 too, not a 500.
    const patch = await fetch(`${gw.origin}/api/v1/keys/${worker.hash}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${mgmt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'renamed' }),
    });
    assert.equal(patch.status, 503);
    assert.equal(((await patch.json()) as { error: { code: string } }).error.code, 'storage_unavailable');

    // Writes work again: the next request retries the queued charge, is admitted, and its
    // own settlement fails once more (writes switched off on arrival): the stream ends with
    // an in-stream error instead of its usage chunk and [DONE].
    await writes(true);
    up.onNextRequest = () => void writes(false);
    const streamed = await postJson(`${gw.baseUrl}/chat/completions`, { ...chat, stream: true }, auth);
    assert.equal(streamed.status, 200);
    const events = sseData(streamed.text);
    assert.equal(events.includes('[DONE]'), false, streamed.text);
    assert.equal(
      events.some((e: any) => e?.usage !== undefined && e.usage !== null),
      false,
      'no usage chunk delivered',
    );
    const last = events.at(-1) as { error?: { code: string } };
    assert.equal(last.error?.code, 'storage_unavailable', streamed.text);
    const streamedId = streamed.headers.get('x-generation-id');
    assert.ok(streamedId);

    // Recovery, with no restart: the queued charges are written and answers flow again.
    await writes(true);
    const ok = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.choices[0].message.content, 'the paid answer');
    assert.equal(gw.services.settlements.failing, false);

    // Every answer the upstream gave was charged once: 3 × the cost, through the public API.
    const credits = (await (await fetch(`${gw.origin}/api/v1/credits`, { headers: auth })).json()) as {
      data: { total_credits: number; total_usage: number };
    };
    assert.equal(credits.data.total_usage, Number(3n * COST_NANOS) / 1e9);
    const key = (await (await fetch(`${gw.origin}/v1/key?details=true`, { headers: auth })).json()) as { data: { balance: number } };
    assert.equal(key.data.balance, 10 - Number(3n * COST_NANOS) / 1e9);
    for (const id of [failedId, streamedId]) {
      const rec = (await (await fetch(`${gw.origin}/api/v1/generation?id=${id}`, { headers: auth })).json()) as {
        data: { total_cost: number; status: string; error_code: string };
      };
      assert.equal(rec.data.total_cost, Number(COST_NANOS) / 1e9, `${id} was charged once writes recovered`);
      assert.equal(rec.data.status, 'error');
      assert.equal(rec.data.error_code, 'storage_unavailable', 'the record says the answer was not delivered');
    }
  });

  test('a responses stream whose charge cannot be written ends in response.failed, not response.completed', async () => {
    up.onNextRequest = () => void writes(false);
    const res = await postJson(`${gw.baseUrl}/responses`, { model: 'acme/mock-1', input: 'hello', stream: true }, auth);
    assert.equal(res.status, 200);
    const types = sseData(res.text).map((e: any) => e.type);
    assert.ok(types.includes('response.output_text.delta'), res.text);
    assert.equal(types.includes('response.completed'), false);
    assert.deepEqual(types.slice(-2), ['error', 'response.failed']);
    const error = sseData(res.text).find((e: any) => e.type === 'error') as { code: string };
    assert.equal(error.code, 'storage_unavailable');
    await writes(true);
    assert.equal(await gw.services.settlements.retry(), true, 'the queued charge is written once writes work');
  });

  test('a Gemini stream whose charge cannot be written ends in an {error} chunk, without the usage', async () => {
    up.onNextRequest = () => void writes(false);
    const res = await postJson(
      `${gw.origin}/v1beta/models/acme/mock-1:streamGenerateContent?alt=sse`,
      { contents: [{ parts: [{ text: 'hello' }] }] },
      { 'x-goog-api-key': gw.key },
    );
    assert.equal(res.status, 200);
    const chunks = sseData(res.text) as any[];
    assert.ok(
      chunks.some((c) => c.candidates?.[0]?.content.parts[0].text?.length > 0),
      res.text,
    );
    assert.equal(
      chunks.some((c) => c.usageMetadata !== undefined),
      false,
      'no usage delivered',
    );
    assert.equal(chunks.at(-1).error?.details[0].reason, 'STORAGE_UNAVAILABLE', res.text);
    await writes(true);
    assert.equal(await gw.services.settlements.retry(), true, 'the queued charge is written once writes work');
  });

  test('disk full: the answer is refused on the messages endpoint, and its charge is written once space is back', async () => {
    const usageBefore = (
      (await (await fetch(`${gw.origin}/api/v1/credits`, { headers: auth })).json()) as { data: { total_usage: number } }
    ).data.total_usage;
    const db = gw.db;
    db.exec('CREATE TABLE IF NOT EXISTS filler (x BLOB)');
    // On arrival at the upstream the database may not grow, every free page is taken, and
    // the generation records' own pages are packed full: the record cannot be written.
    up.onNextRequest = () => {
      const pages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
      db.exec(`PRAGMA max_page_count = ${pages}`);
      const full = (fill: () => void): void => {
        try {
          for (;;) fill();
        } catch (e) {
          assert.match((e as Error).message, /full/);
        }
      };
      full(() => db.exec('INSERT INTO filler VALUES (randomblob(3000))'));
      const filler =
        db.prepare(`INSERT INTO generation_records (id, created_ms, account_ref, key_ref, streamed, cancelled, cache_hit, is_error,
          tokens_prompt, tokens_completion, tokens_cache_read, tokens_cache_write, tokens_reasoning, cost_nanos)
        VALUES (?, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)`);
      let n = 0;
      full(() => filler.run(`filler-${n++}`));
      // The writer thread's connection may not grow the file either (max_page_count is per connection).
      const filled = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
      void gw.services.writer!.exec(`PRAGMA max_page_count = ${filled}`);
    };
    const headers = { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' };
    const refused = await postJson(`${gw.baseUrl}/messages`, { ...chat, metadata: { user_id: 'user-7' } }, headers);
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.type, 'error');
    assert.equal(refused.json.error.code, 'storage_unavailable');
    const id = refused.headers.get('x-generation-id');

    // Space again: the next request writes the queued charge first, then is served.
    db.exec('DROP TABLE filler');
    db.exec('DELETE FROM generation_records WHERE account_ref = 0');
    db.exec('PRAGMA max_page_count = 1073741823');
    await gw.services.writer!.exec('PRAGMA max_page_count = 1073741823');
    const ok = await postJson(`${gw.baseUrl}/messages`, chat, headers);
    assert.equal(ok.status, 200, ok.text);
    const rec = (await (await fetch(`${gw.origin}/api/v1/generation?id=${id}`, { headers: auth })).json()) as {
      data: { total_cost: number; error_code: string; user: string };
    };
    assert.equal(rec.data.total_cost, Number(COST_NANOS) / 1e9);
    assert.equal(rec.data.error_code, 'storage_unavailable');
    assert.equal(rec.data.user, 'user-7', "the record written late is the request's own");
    const usageAfter = ((await (await fetch(`${gw.origin}/api/v1/credits`, { headers: auth })).json()) as { data: { total_usage: number } })
      .data.total_usage;
    assert.equal(Math.round((usageAfter - usageBefore) * 1e9), Number(2n * COST_NANOS), 'both answers charged, once each');
  });
});
