import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fastLaneEventCount } from '../../src/providers/anthropic/anthropic-stream-decoder.ts';
import { startAnthropicEmulator, type AnthropicEmulator } from '../emulators/anthropic-messages-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The pass-through fast lane for the messages dialect on an Anthropic upstream
// (docs/architecture.md, "Decisions"): plain `text_delta` events are read by string
// comparison, not decoded and re-encoded, and reach the client with the text bytes the
// upstream sent; the rest of the stream (message_start with the gateway's id and model,
// message_delta with usage and cost, message_stop last) is unchanged.

interface Event {
  event: string;
  data: string;
}

function events(text: string): Event[] {
  return text
    .split('\n\n')
    .filter((b) => b.length > 0)
    .map((b) => {
      const lines = b.split('\n');
      return { event: lines.find((l) => l.startsWith('event: '))!.slice(7), data: lines.find((l) => l.startsWith('data: '))!.slice(6) };
    });
}

describe('the streamed messages fast lane', () => {
  let anth: AnthropicEmulator;
  let gw: TestGateway;
  let auth: Record<string, string>;

  before(async () => {
    anth = await startAnthropicEmulator();
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - { id: anth, kind: anthropic, base_url: ${anth.baseUrl}, api_key: k }
models:
  - id: acme/claude
    context_length: 100000
    endpoints:
      - { provider: anth, model: claude-x, pricing: { prompt: "0.000001", completion: "0.000002" } }
`,
    });
    auth = { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' };
  });
  after(async () => {
    await gw.close();
    await anth.close();
  });
  beforeEach(() => anth.reset());

  test('plain text deltas take the fast lane and reach the client with the text bytes the upstream sent', async () => {
    const pieces = ['Fast ', 'lane: ', 'café ', '☕ ', 'done.'];
    anth.enqueue({ text: pieces.join(''), usage: { input_tokens: 7, output_tokens: 5 } });
    const taken = fastLaneEventCount();
    const res = await postJson(
      `${gw.origin}/v1/messages`,
      { model: 'acme/claude', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(fastLaneEventCount() - taken, pieces.length, 'every text delta went through the fast lane');
    const evs = events(res.text);
    const deltas = evs.filter((e) => e.event === 'content_block_delta').map((e) => e.data);
    assert.deepEqual(
      deltas,
      pieces.map((p) => `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(p)}}}`),
    );
    assert.deepEqual(
      evs.map((e) => e.event),
      [
        'message_start',
        'content_block_start',
        ...pieces.map(() => 'content_block_delta'),
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    const start = JSON.parse(evs[0]!.data).message;
    assert.equal(start.id, res.headers.get('x-generation-id'));
    assert.equal(start.model, 'acme/claude');
    const delta = JSON.parse(evs.at(-2)!.data);
    assert.equal(delta.usage.output_tokens, 5);
    assert.equal(delta.usage.cost, 7 * 0.000001 + 5 * 0.000002);
  });

  test('a text delta JSON must escape takes the full decode, and the client reads the same text', async () => {
    const text = 'Say "hi"\nthen \\ go';
    anth.enqueue({ text, chunks: 1 });
    const taken = fastLaneEventCount();
    const res = await postJson(
      `${gw.origin}/v1/messages`,
      { model: 'acme/claude', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(fastLaneEventCount() - taken, 0);
    const got = events(res.text)
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => JSON.parse(e.data).delta.text)
      .join('');
    assert.equal(got, text);
  });
});
