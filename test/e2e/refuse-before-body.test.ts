import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { postLargeBody } from '../support/raw-http.ts';
import { allPages, createAdminKey } from '../support/admin-client.ts';

// A key holder cannot make the gateway read, parse or hold a body it will refuse anyway:
// what the key and the announced size decide (a negative balance, a body larger than the
// key's tier takes, a rate limit that refused the key moments ago) is answered from the
// headers while the client is still sending. Bodies that are read and are large parse off
// the event loop, and one built of millions of tiny values is refused before it is parsed.

const LARGE = 15 * 1024 * 1024;
const HEAD = '{"model":"switchyard/sim-fast","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}';

async function keyOf(gw: TestGateway, tier: string, credits: string): Promise<string> {
  const account = await gw.services.accountService.createAccount({ name: `${tier} ${credits}`, type: 'user', tier, creditsUsd: credits });
  return (await gw.services.accountService.createKey({ accountId: account.id, name: 'k' })).key;
}

describe('model calls refused from the key and the headers, before the body', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}tiers:\n  tiny:\n    requests_per_minute: 100\n    requests_per_day: 2\n` });
  });
  after(() => gw.close());

  test('a key whose account balance is negative: 402 while the body is still arriving', async () => {
    const account = await gw.services.accountService.createAccount({ name: 'overdrawn', type: 'user', tier: 'tier2', creditsUsd: '1' });
    await gw.services.accountService.adjustCredits(account.id, '-3', 'overdraft for the test');
    const created = await gw.services.accountService.createKey({ accountId: account.id, name: 'k' });
    const res = await postLargeBody(`${gw.baseUrl}/chat/completions`, { authorization: `Bearer ${created.key}` }, HEAD, LARGE);
    assert.equal(res.status, 402, JSON.stringify(res.json));
    assert.equal(res.json.error.code, 'insufficient_quota');
    assert.ok(res.sentWhenAnswered < res.total, `answered after ${res.sentWhenAnswered} of ${res.total} bytes`);
    assert.equal(res.headers.connection, 'close');
    // Counted per key and reason like any refusal.
    await gw.flush();
    const admin = (await createAdminKey(gw)).key;
    const counts = await allPages(`${gw.origin}/api/v1/admin/refusals?key=${created.record.hash}`, admin);
    assert.deepEqual(
      counts.map((c: any) => [c.reason, c.count]),
      [['insufficient_quota', 1]],
    );
  });

  test("a body larger than the key's tier takes (free: 4 MiB): 413 before it is read", async () => {
    const key = await keyOf(gw, 'free', '0');
    const res = await postLargeBody(`${gw.baseUrl}/messages`, { 'x-api-key': key, 'anthropic-version': '2023-06-01' }, HEAD, LARGE);
    assert.equal(res.status, 413, JSON.stringify(res.json));
    assert.equal(res.json.type, 'error', 'in the messages dialect');
    assert.match(res.json.error.message, /Free tier/);
    assert.ok(res.sentWhenAnswered < res.total);
  });

  test('a key its daily limit refused is refused again from the headers until the limit lifts', async () => {
    const key = await keyOf(gw, 'tiny', '10');
    const small = { model: 'switchyard/sim-fast', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] };
    const send = () =>
      fetch(`${gw.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(small),
      });
    assert.equal((await send()).status, 200);
    assert.equal((await send()).status, 200);
    const third = await send();
    assert.equal(third.status, 429);
    const res = await postLargeBody(`${gw.baseUrl}/chat/completions`, { authorization: `Bearer ${key}` }, HEAD, LARGE);
    assert.equal(res.status, 429, JSON.stringify(res.json));
    assert.ok(Number(res.headers['retry-after']) >= 1);
    assert.ok(res.sentWhenAnswered < res.total, `answered after ${res.sentWhenAnswered} of ${res.total} bytes`);
  });
});

describe('large bodies parse off the event loop', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  test('15 MB of five million empty objects: 413 naming the value limit, and the event loop never stalls on it', async () => {
    const body = `{"model":"switchyard/sim-fast","messages":[${'{},'.repeat(5_000_000)}{}]}`;
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const res = await fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body,
    });
    delay.disable();
    assert.equal(res.status, 413);
    assert.match(((await res.json()) as any).error.message, /more than 100000 JSON values/);
    // JSON.parse of this body alone blocks for over a second; the scan runs on the parse thread.
    assert.ok(delay.max / 1e6 < 400, `event loop stalled ${(delay.max / 1e6).toFixed(0)} ms`);
  });

  test('a large body of few values (a 6 MB image) is parsed off the loop and served', async () => {
    const image = `data:image/png;base64,${'A'.repeat(6 * 1024 * 1024)}`;
    const body = JSON.stringify({
      model: 'switchyard/sim-fast',
      max_tokens: 5,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: image } },
          ],
        },
      ],
    });
    const res = await fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body,
    });
    const json: any = await res.json();
    assert.ok(res.status === 200 || json.error?.code !== 'invalid_json', JSON.stringify(json).slice(0, 300));
    assert.equal(res.status, 200, JSON.stringify(json).slice(0, 300));
  });

  test('a malformed large body is invalid_json, as a small one is', async () => {
    const body = `{"model":"switchyard/sim-fast","messages":[${'"x",'.repeat(90_000)}`;
    const res = await fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body,
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as any).error.code, 'invalid_json');
  });
});
