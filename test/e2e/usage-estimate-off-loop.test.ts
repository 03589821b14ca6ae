import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The 302 ms stall of issue 14: the first answer without upstream usage loaded the BPE
// encodings (~190 ms of synchronous module evaluation) on the event loop, stalling every
// request in flight. Its counts now come from the tokenizer thread: the gateway's own
// thread (this test process, which runs the gateway in-process) never loads gpt-tokenizer,
// and the charge is the same o200k count as before.

const PROMPT = 'How many tokens does a gateway count when the upstream says nothing?';
const ANSWER = 'It counts them itself, with o200k_base, on its tokenizer thread.';

let emu: OpenAIChatEmulator;
let gw: TestGateway;
before(async () => {
  emu = await startOpenAIChatEmulator();
  gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), credits: '10' });
});
after(async () => {
  await gw.close();
  await emu.close();
});

const tokenizerLoadedHere = (): boolean => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('gpt-tokenizer'));

test("answers without usage, streamed or not, are charged their o200k count without loading a tokenizer on the event loop's thread", async () => {
  const records = [];
  for (const stream of [false, true]) {
    emu.enqueue({ text: ANSWER, omitUsage: true });
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', stream, messages: [{ role: 'user', content: PROMPT }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    await gw.flush();
    records.push((await gw.services.stores.generations.getRecord(res.headers.get('x-generation-id')!))!);
  }
  assert.equal(tokenizerLoadedHere(), false, 'gpt-tokenizer was loaded on the main thread');
  // Only now, in this thread, the expected counts (OpenAI chat framing: 3 + 4 per message).
  const { countTokens } = await import('../../src/canonical/bpe-tokenizers.ts');
  for (const record of records) {
    assert.equal(record.tokensPrompt, 7 + countTokens(PROMPT, 'o200k_base'));
    assert.equal(record.tokensCompletion, countTokens(ANSWER, 'o200k_base'));
    assert.equal(record.costNanos, BigInt(record.tokensPrompt) * 1000n + BigInt(record.tokensCompletion) * 2000n);
  }
});
