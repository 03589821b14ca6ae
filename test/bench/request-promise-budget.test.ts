// Issue 29 (seventh round): the promises one model call creates in the gateway's process, a
// budget like the CPU's. Each promise is an allocation and, awaited, a microtask turn: steps
// that answer at once on one node (the in-process rate limits, a key with no in-flight cap, a
// request the response cache does not serve, the in-process credit hold, pricing from the
// upstream's usage, the hold's release) are no longer awaited, the attempt and the pipeline's run add no promise layer of their own, and
// an upstream's stream is read with its events, not an async iterator (a promise a chunk).
// Counted exactly with async_hooks over sequential requests through real HTTP (a callback
// client, so the count is the gateway's) to an OpenAI-format upstream on loopback.

import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startHookedUpstream, type HookedUpstream } from '../support/hooked-upstream.ts';
import { emulatorConfig, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

/** Promises per request: 54 plain and 54 streamed after this round (83 and 89 before it), with a little room for Node's own changes. */
const BUDGET = { plain: 58, streamed: 58 };
const REQUESTS = 20;

let created = 0;
const hook = createHook({
  init(_id, type) {
    if (type === 'PROMISE') created++;
  },
});

function post(origin: string, key: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}/v1/chat/completions`,
      { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('promises per model call', () => {
  let up: HookedUpstream;
  let gw: TestGateway;
  before(async () => {
    up = await startHookedUpstream();
    gw = await startTestGateway({ yaml: emulatorConfig(up.baseUrl), env: { LOCAL_KEY: 'k' }, credits: '10' });
  });
  after(async () => {
    hook.disable();
    await gw.close();
    await up.close();
  });

  async function perRequest(stream: boolean): Promise<number> {
    const body = JSON.stringify({ model: 'acme/mock-1', stream, max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] });
    // Warm: the first requests load code and fill caches.
    for (let i = 0; i < 5; i++) assert.equal((await post(gw.origin, gw.key, body)).status, 200);
    created = 0;
    hook.enable();
    for (let i = 0; i < REQUESTS; i++) {
      const res = await post(gw.origin, gw.key, body);
      assert.equal(res.status, 200, res.text);
    }
    hook.disable();
    return created / REQUESTS;
  }

  test('a plain chat stays within its promise budget', async () => {
    const n = await perRequest(false);
    assert.ok(n <= BUDGET.plain, `${n} promises per plain chat (budget ${BUDGET.plain})`);
  });

  test('a streamed chat stays within its promise budget', async () => {
    const n = await perRequest(true);
    assert.ok(n <= BUDGET.streamed, `${n} promises per streamed chat (budget ${BUDGET.streamed})`);
  });
});
