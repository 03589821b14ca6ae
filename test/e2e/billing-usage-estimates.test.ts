import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../../src/canonical/bpe-tokenizers.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// An upstream that sends no usage: the answer is charged the o200k count of its prompt
// and of what the upstream produced, and reports those tokens, in every dialect, streamed
// or not, and in the generation record. acme/mock-1: $0.000001 prompt, $0.000002 completion.

const PROMPT = '오늘 날씨가 좋네요. What is the weather like in Seoul today?';
const ANSWER = '서울은 맑고 따뜻합니다 — sunny and warm, about 24°C.';
/** OpenAI chat framing (3 + 4 per message) around the one user message. */
const PROMPT_TOKENS = 7 + countTokens(PROMPT, 'o200k_base');
const COMPLETION_TOKENS = countTokens(ANSWER, 'o200k_base');
const COST_NANOS = BigInt(PROMPT_TOKENS) * 1000n + BigInt(COMPLETION_TOKENS) * 2000n;

interface Dialect {
  name: string;
  /** The path, or (Gemini: the method names the streaming) the path for streamed or not. */
  path: string | ((stream: boolean) => string);
  body(stream: boolean): Record<string, unknown>;
  /** [prompt, completion] from a whole answer. */
  whole(json: any): [number, number];
  /** [prompt, completion] from a streamed answer's events. */
  streamed(events: any[]): [number, number];
}

const DIALECTS: Dialect[] = [
  {
    name: 'chat completions',
    path: '/v1/chat/completions',
    body: (stream) => ({ model: 'acme/mock-1', stream, messages: [{ role: 'user', content: PROMPT }] }),
    whole: (j) => [j.usage.prompt_tokens, j.usage.completion_tokens],
    streamed: (events) => {
      const last = events.filter((e) => e !== '[DONE]').at(-1);
      return [last.usage.prompt_tokens, last.usage.completion_tokens];
    },
  },
  {
    name: 'responses',
    path: '/v1/responses',
    body: (stream) => ({ model: 'acme/mock-1', stream, input: PROMPT }),
    whole: (j) => [j.usage.input_tokens, j.usage.output_tokens],
    streamed: (events) => {
      const done = events.find((e) => e?.type === 'response.completed');
      return [done.response.usage.input_tokens, done.response.usage.output_tokens];
    },
  },
  {
    name: 'messages',
    path: '/v1/messages',
    body: (stream) => ({ model: 'acme/mock-1', stream, max_tokens: 1000, messages: [{ role: 'user', content: PROMPT }] }),
    whole: (j) => [j.usage.input_tokens, j.usage.output_tokens],
    streamed: (events) => {
      const delta = events.filter((e) => e?.type === 'message_delta').at(-1);
      return [delta.usage.input_tokens, delta.usage.output_tokens];
    },
  },
  {
    name: 'gemini',
    path: (stream) => `/v1beta/models/acme/mock-1:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    body: () => ({ contents: [{ role: 'user', parts: [{ text: PROMPT }] }] }),
    whole: (j) => [j.usageMetadata.promptTokenCount, j.usageMetadata.candidatesTokenCount],
    streamed: (events) => {
      const last = events.at(-1);
      return [last.usageMetadata.promptTokenCount, last.usageMetadata.candidatesTokenCount];
    },
  },
];

describe('an upstream that reports no usage', () => {
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

  for (const d of DIALECTS) {
    for (const stream of [false, true]) {
      test(`${d.name}, ${stream ? 'streamed' : 'not streamed'}: charged the o200k count of prompt and answer, and reports those tokens`, async () => {
        emu.reset();
        emu.enqueue({ text: ANSWER, omitUsage: true });
        const path = typeof d.path === 'string' ? d.path : d.path(stream);
        const res = await postJson(`${gw.origin}${path}`, d.body(stream), { authorization: `Bearer ${gw.key}` });
        assert.equal(res.status, 200, res.text);
        const [prompt, completion] = stream ? d.streamed(sseData(res.text)) : d.whole(res.json);
        assert.deepEqual([prompt, completion], [PROMPT_TOKENS, COMPLETION_TOKENS]);
        await gw.flush();
        const record = (await gw.services.stores.generations.getRecord(res.headers.get('x-generation-id')!))!;
        assert.equal(record.tokensPrompt, PROMPT_TOKENS);
        assert.equal(record.tokensCompletion, COMPLETION_TOKENS);
        assert.equal(record.costNanos, COST_NANOS);
        const api = await fetch(`${gw.baseUrl.replace('/v1', '')}/api/v1/generation?id=${record.id}`, {
          headers: { authorization: `Bearer ${gw.key}` },
        });
        const data = ((await api.json()) as any).data;
        assert.equal(data.tokens_prompt, PROMPT_TOKENS);
        assert.equal(data.tokens_completion, COMPLETION_TOKENS);
        assert.ok(data.total_cost > 0);
      });
    }
  }

  test('a stream the upstream cuts short is charged by estimate: the prompt and what it produced, counted with o200k', async () => {
    emu.reset();
    emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 4, then: { text: ANSWER, chunks: 8 } });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, DIALECTS[0]!.body(true), { authorization: `Bearer ${gw.key}` });
    assert.equal(res.status, 200);
    const events = sseData(res.text) as any[];
    const sent = events.map((e) => e?.choices?.[0]?.delta?.content ?? '').join('');
    assert.ok(sent.length > 0 && sent.length < ANSWER.length, `sent ${JSON.stringify(sent)}`);
    assert.ok(
      events.some((e) => e?.error !== undefined),
      'the stream ends with an error',
    );
    await gw.flush();
    const record = (await gw.services.stores.generations.getRecord(res.headers.get('x-generation-id')!))!;
    const completion = countTokens(sent, 'o200k_base');
    assert.equal(record.tokensPrompt, PROMPT_TOKENS);
    assert.equal(record.tokensCompletion, completion);
    assert.equal(record.costNanos, BigInt(PROMPT_TOKENS) * 1000n + BigInt(completion) * 2000n);
  });
});
