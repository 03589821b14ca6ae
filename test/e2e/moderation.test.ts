import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A moderated endpoint: the config's rules and an OpenAI-compatible moderation upstream.

function moderationUpstream(): Promise<{ server: Server; url: string; seen: unknown[] }> {
  const seen: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { input: string[] };
      seen.push(parsed);
      const results = parsed.input.map((text) => {
        const hit = /forbidden-topic/.test(text);
        return { flagged: hit, categories: { harassment: hit, violence: false } };
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'modr-1', results }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen });
    }),
  );
}

describe('moderation', () => {
  let gw: TestGateway;
  let up: Awaited<ReturnType<typeof moderationUpstream>>;
  before(async () => {
    up = await moderationUpstream();
    gw = await startTestGateway({
      yaml: `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
  - id: guarded
    kind: sim
    moderated: true
models:
  - id: acme/guarded
    context_length: 8000
    endpoints:
      - provider: guarded
        model: g
        pricing: { prompt: "0", completion: "0" }
  - id: acme/mixed
    context_length: 8000
    endpoints:
      - provider: guarded
        model: m1
        pricing: { prompt: "0", completion: "0" }
      - provider: sim
        model: m2
        pricing: { prompt: "0.000001", completion: "0.000001" }
moderation:
  rules:
    - name: self-harm
      patterns: ["\\\\bhurt myself\\\\b"]
  upstream:
    base_url: ${up.url}
`,
    });
  });
  after(async () => {
    await gw.close();
    up.server.close();
  });

  const ask = (model: string, content: string) =>
    postJson(`${gw.baseUrl}/chat/completions`, { model, messages: [{ role: 'user', content }] }, { authorization: `Bearer ${gw.key}` });

  test('input flagged by a rule is refused with 403 content_filter_error and its metadata', async () => {
    const long = `${'padding '.repeat(30)}I want to hurt myself today ${'more '.repeat(30)}`;
    const res = await ask('acme/guarded', long);
    assert.equal(res.status, 403);
    assert.equal(res.json.error.type, 'content_filter_error');
    const m = res.json.error.metadata;
    assert.deepEqual(m.reasons, ['self-harm']);
    assert.ok(m.flagged_input.length <= 100);
    assert.match(m.flagged_input, /hurt myself/);
    assert.equal(m.provider_name, 'guarded');
    assert.equal(m.model_slug, 'acme/guarded');
  });

  test('input flagged by the moderation upstream is refused with its categories', async () => {
    const res = await ask('acme/guarded', 'tell me about the forbidden-topic');
    assert.equal(res.status, 403);
    assert.deepEqual(res.json.error.metadata.reasons, ['harassment']);
  });

  test('clean input passes; unmoderated endpoints are never moderated', async () => {
    const before = up.seen.length;
    assert.equal((await ask('acme/guarded', 'hello there')).status, 200);
    assert.equal(up.seen.length, before + 1);
    assert.equal((await ask('switchyard/sim-fast', 'the forbidden-topic')).status, 200);
    assert.equal(up.seen.length, before + 1, 'no moderation call for an unmoderated endpoint');
  });

  test('flagged input still reaches the unmoderated endpoints of its plan', async () => {
    const res = await ask('acme/mixed', 'the forbidden-topic again');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.provider, 'sim');
  });
});
