import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, SIM_ONLY, type TestGateway } from '../support/test-gateway.ts';
import { startOpenAITasksEmulator, type OpenAITasksEmulator } from '../emulators/openai-tasks-emulator.ts';

// Speech is streamed to the client as the provider's audio arrives, its last piece held
// back until the request is settled (server/binary-answer.ts, docs/audio.md).

const HALF = 512 * 1024;

function pattern(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

describe('speech streamed as it arrives', () => {
  let gw: TestGateway;
  let slow: OpenAITasksEmulator;
  let cut: OpenAITasksEmulator;
  let release: () => void = () => {};
  let upstreamDone = false;
  before(async () => {
    slow = await startOpenAITasksEmulator();
    slow.handle('/v1/audio/speech', (_req, res) => {
      const released = new Promise<void>((resolve) => (release = resolve));
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.write(pattern(HALF, 1));
      void released.then(() => {
        upstreamDone = true;
        res.end(pattern(HALF, 2));
      });
    });
    cut = await startOpenAITasksEmulator();
    cut.handle('/v1/audio/speech', (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.write(pattern(HALF, 3), () => res.socket?.destroy());
    });
    gw = await startTestGateway({
      yaml: `${SIM_ONLY}  - { id: slow, kind: openai, base_url: ${slow.baseUrl} }
  - { id: cut, kind: openai, base_url: ${cut.baseUrl} }
models:
  - id: acme/slow-tts
    kind: speech
    context_length: 8192
    endpoints:
      - { provider: slow, model: t, pricing: { prompt: "0", completion: "0", character: "0.000015" } }
  - id: acme/cut-tts
    kind: speech
    context_length: 8192
    endpoints:
      - { provider: cut, model: t, pricing: { prompt: "0", completion: "0", character: "0.000015" } }
`,
    });
  });
  after(async () => {
    release();
    await slow.close();
    await cut.close();
    await gw?.close();
  });

  test('the first bytes reach the client while the provider still speaks; the last come once the request is charged', async () => {
    const res = await fetch(`${gw.baseUrl}/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/slow-tts', voice: 'alloy', input: 'Streaming speech' }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/mpeg');
    assert.equal(res.headers.get('content-length'), null, 'streamed, not sent whole');
    const id = res.headers.get('x-generation-id');
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    const first = await reader.read();
    assert.ok(!first.done && first.value.length > 0);
    chunks.push(first.value);
    assert.equal(upstreamDone, false, 'bytes arrived before the provider finished');
    // Not settled yet: no record of it.
    await gw.flush();
    const before = await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } });
    assert.equal(before.status, 404);
    release();
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      chunks.push(next.value);
    }
    assert.ok(Buffer.concat(chunks).equals(Buffer.concat([pattern(HALF, 1), pattern(HALF, 2)])), 'every byte, in order');
    await gw.flush();
    const record = (await (
      await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } })
    ).json()) as { data: { total_cost: number } };
    // 16 characters at $0.000015.
    assert.equal(record.data.total_cost, 0.00024);
  });

  test('a provider that breaks mid-answer leaves the client an incomplete answer, never a clean end', async () => {
    const client = new OpenAI({ apiKey: gw.key, baseURL: gw.baseUrl, maxRetries: 0 });
    const res = await client.audio.speech.create({ model: 'acme/cut-tts', voice: 'alloy', input: 'Cut short' });
    assert.equal(res.status, 200);
    await assert.rejects(res.arrayBuffer());
    await gw.flush();
    const record = await fetch(`${gw.baseUrl}/generation?id=${res.headers.get('x-generation-id')}`, {
      headers: { authorization: `Bearer ${gw.key}` },
    });
    const data = ((await record.json()) as { data: { status: string; error_code: string; total_cost: number } }).data;
    // Recorded as failed, and charged its characters as a vendor charges a speech it began (9 × $0.000015).
    assert.deepEqual([data.status, data.error_code, data.total_cost], ['error', 'provider_error', 0.000135]);
  });
});
