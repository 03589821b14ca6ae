import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { countTokens } from '../../src/canonical/bpe-tokenizers.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { splitText } from '../emulators/split-text.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A client that reads part of a stream and leaves: the gateway reads the upstream on, for a
// bounded time, to charge what the provider bills; when no usage comes, a conservative
// estimate that counts hidden reasoning. Prices: $0.000001 prompt, $0.000002 completion.

function yaml(baseUrl: string): string {
  return `sim: false
providers:
  - { id: local, kind: openai, base_url: "${baseUrl}" }
models:
  - id: acme/thinker
    name: Thinker
    context_length: 32000
    capabilities: [text, streaming, reasoning]
    endpoints:
      - provider: local
        model: thinker-1
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;
}

/** Resolves when the gateway's side of the next connection it accepts has closed. */
function gatewaySocketClosed(gw: TestGateway): Promise<void> {
  return new Promise((resolve) => {
    gw.app.server.once('connection', (socket) => socket.once('close', () => resolve()));
  });
}

/**
 * Streams a chat completion over a raw socket, destroys the socket as soon as the first
 * answer text arrives, and resolves with the generation id once its settlement commits.
 */
function readThenLeave(gw: TestGateway, body: Record<string, unknown>): Promise<string> {
  const committed = new Set<string>();
  let wanted: string | null = null;
  let settle: (id: string) => void = () => {};
  const settled = new Promise<string>((resolve) => {
    settle = resolve;
  });
  gw.services.settlements.onCommitted((batch) => {
    for (const r of batch) {
      committed.add(r.id);
      if (r.id === wanted) settle(r.id);
    }
  });
  const url = new URL(`${gw.baseUrl}/chat/completions`);
  const req = request(
    {
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.key}` },
    },
    (res) => {
      wanted = String(res.headers['x-generation-id']);
      if (committed.has(wanted)) settle(wanted);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (/"content":"[^"]/.test(chunk)) res.socket.destroy();
      });
      res.on('error', () => {});
    },
  );
  req.on('error', () => {});
  req.end(JSON.stringify({ ...body, stream: true }));
  return settled;
}

describe('a client that leaves a stream', () => {
  let emu: OpenAIChatEmulator;
  before(async () => {
    emu = await startOpenAIChatEmulator();
  });
  after(() => emu.close());

  test("is charged the upstream's real usage, sent after it left", async () => {
    const gw = await startTestGateway({ yaml: yaml(emu.baseUrl), credits: '10' });
    try {
      emu.reset();
      // 5,000 output tokens, nearly all hidden reasoning. The role and the first piece of text
      // go out; the rest and the usage only once the gateway has seen the client leave.
      emu.enqueue({
        text: 'The answer is forty-two, as computed.',
        chunks: 6,
        usage: { prompt_tokens: 40, completion_tokens: 5_000, reasoning_tokens: 4_900 },
        pauseAfter: { events: 2, until: gatewaySocketClosed(gw) },
      });
      const id = await readThenLeave(gw, { model: 'acme/thinker', messages: [{ role: 'user', content: 'Think hard.' }] });
      const record = (await gw.services.stores.generations.getRecord(id))!;
      assert.equal(record.cancelled, true);
      assert.equal(record.tokensPrompt, 40);
      assert.equal(record.tokensCompletion, 5_000);
      assert.equal(record.tokensReasoning, 4_900);
      assert.equal(record.costNanos, 40n * 1000n + 5_000n * 2000n);
      assert.equal(emu.closedEarly, 0, 'the upstream answer was read to its end');
    } finally {
      await gw.close();
    }
  });

  test('whose upstream never sends usage is charged the o200k estimate, hidden reasoning included, once the grace ends', async () => {
    const gw = await startTestGateway({
      yaml: yaml(emu.baseUrl),
      credits: '10',
      tweak: (c) => {
        c.timeouts.disconnectGraceMs = 50;
      },
    });
    try {
      emu.reset();
      // Two words of text, then nothing: no more content, no usage, the connection held open.
      emu.enqueue({ fault: 'stall-after-headers', afterChunks: 3 });
      const prompt = 'Think hard.';
      const id = await readThenLeave(gw, {
        model: 'acme/thinker',
        max_tokens: 3000,
        reasoning: { max_tokens: 2000 },
        messages: [{ role: 'user', content: prompt }],
      });
      const record = (await gw.services.stores.generations.getRecord(id))!;
      const visible = splitText('Hello from thinker-1', undefined).slice(0, 2).join('');
      const promptTokens = 7 + countTokens(prompt, 'o200k_base');
      const output = countTokens(visible, 'o200k_base') + 2000;
      assert.equal(record.cancelled, true);
      assert.equal(record.tokensPrompt, promptTokens);
      assert.equal(record.tokensCompletion, output);
      assert.equal(record.tokensReasoning, 2000);
      assert.equal(record.costNanos, BigInt(promptTokens) * 1000n + BigInt(output) * 2000n);
    } finally {
      await gw.close();
    }
  });
});
