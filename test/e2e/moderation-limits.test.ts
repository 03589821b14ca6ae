import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Moderation's limits: input over its cap, a failing moderation upstream, and a rule whose
// pattern would backtrack catastrophically in a backtracking engine.

const MOD_KEY = 'modkey-9f8e7d6c5b4a';

/** A moderation upstream that fails with 500, repeating the request's headers (its key among them). */
function failingModeration(): Promise<{ server: Server; url: string; calls: number }> {
  const state = { server: undefined as unknown as Server, url: '', calls: 0 };
  state.server = createServer((req, res) => {
    state.calls++;
    req.resume();
    req.on('end', () =>
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `bad: ${JSON.stringify(req.headers)}` } })),
    );
  });
  return new Promise((resolve) =>
    state.server.listen(0, '127.0.0.1', () => {
      state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/v1`;
      resolve(state);
    }),
  );
}

function yaml(extra: string): string {
  return `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
  - id: guarded
    kind: sim
    moderated: true
    options: { chunk_delay_ms: 0 }
models:
  - id: acme/guarded
    context_length: 64000
    endpoints:
      - provider: guarded
        model: g
        pricing: { prompt: "0", completion: "0" }
  - id: acme/mixed
    context_length: 64000
    endpoints:
      - provider: guarded
        model: m1
        pricing: { prompt: "0", completion: "0" }
      - provider: sim
        model: m2
        pricing: { prompt: "0.000001", completion: "0.000001" }
moderation:
${extra}`;
}

describe('moderation limits', () => {
  let capped: TestGateway;
  let failing: TestGateway;
  let slow: TestGateway;
  let up: Awaited<ReturnType<typeof failingModeration>>;
  before(async () => {
    up = await failingModeration();
    capped = await startTestGateway({ yaml: yaml('  max_input_chars: 300\n  rules: [{ name: never, patterns: ["never-said"] }]\n') });
    slow = await startTestGateway({ yaml: yaml('  rules: [{ name: slow, patterns: ["^(a+)+$"] }]\n') });
    failing = await startTestGateway({ yaml: yaml(`  upstream: { base_url: "${up.url}", api_key: "${MOD_KEY}" }\n`) });
  });
  after(async () => {
    await capped.close();
    await failing.close();
    await slow.close();
    up.server.close();
  });

  const ask = (gw: TestGateway, model: string, content: string) =>
    postJson(`${gw.baseUrl}/chat/completions`, { model, messages: [{ role: 'user', content }] }, { authorization: `Bearer ${gw.key}` });

  test('input longer than the moderation cap is refused (413) on moderated endpoints, and served by unmoderated ones', async () => {
    const long = 'x'.repeat(301);
    const refused = await ask(capped, 'acme/guarded', long);
    assert.equal(refused.status, 413, refused.text);
    assert.equal(refused.json.error.code, 'request_too_large');
    assert.match(refused.json.error.message, /longer than moderation reads \(300\)/);
    const served = await ask(capped, 'acme/mixed', long);
    assert.equal(served.status, 200, served.text);
    assert.equal(served.json.provider, 'sim');
  });

  test('a failing moderation upstream: 502 naming it when only moderated endpoints remain, its key nowhere; unmoderated endpoints still serve', async () => {
    const before = up.calls;
    const refused = await ask(failing, 'acme/guarded', 'hello');
    assert.equal(refused.status, 502, refused.text);
    assert.equal(refused.json.error.code, 'provider_error');
    assert.equal(refused.json.error.metadata.provider_name, 'moderation');
    assert.match(
      refused.json.error.message,
      /moderation service answered HTTP 500.*every endpoint that could serve this request is moderated/,
    );
    assert.equal(refused.text.includes(MOD_KEY), false);
    const served = await ask(failing, 'acme/mixed', 'hello');
    assert.equal(served.status, 200, served.text);
    assert.equal(served.json.provider, 'sim');
    assert.equal(up.calls, before + 2, 'both requests were sent to moderation first');
  });

  test('a catastrophic pattern on a 10,000-character input: the verdict comes, and a concurrent request is served', async () => {
    // A backtracking engine needs about 2^10000 steps to find that `a…ab` does not match `^(a+)+$`.
    const [near, other, exact] = await Promise.all([
      ask(slow, 'acme/guarded', `${'a'.repeat(10_000)}b`),
      ask(slow, 'switchyard/sim-fast', 'hello'),
      ask(slow, 'acme/guarded', 'a'.repeat(10_000)),
    ]);
    assert.equal(other.status, 200, other.text);
    assert.equal(near.status, 200, 'no match: served');
    assert.equal(exact.status, 403, 'a match: refused');
    assert.deepEqual(exact.json.error.metadata.reasons, ['slow']);
  });
});
