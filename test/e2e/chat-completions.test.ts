import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { generationRecord } from '../support/public-api.ts';

const user = (content: string) => [{ role: 'user', content }];

describe('POST /v1/chat/completions against an OpenAI-format upstream', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let auth: Record<string, string>;

  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env: { LOCAL_KEY: 'upstream-secret' } });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  test('a plain request reaches the upstream with its model id and key, and the answer has every response field', async () => {
    emu.enqueue({ text: 'Hi there', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: user('Hello'), temperature: 0.2 }, auth);
    assert.equal(res.status, 200, res.text);
    const sent = emu.requests[0]!;
    assert.equal(sent.body.model, 'mock-model');
    assert.equal(sent.headers.authorization, 'Bearer upstream-secret');
    assert.equal(sent.body.temperature, 0.2);
    assert.equal('top_p' in sent.body, false, 'parameters the client did not set are not invented');
    const b = res.json;
    assert.match(b.id, /^gen-/);
    assert.equal(res.headers.get('x-generation-id'), b.id);
    assert.equal(b.object, 'chat.completion');
    assert.equal(typeof b.created, 'number');
    assert.equal(b.model, 'acme/mock-1');
    assert.equal(b.provider, 'local');
    assert.equal(b.choices[0].index, 0);
    assert.equal(b.choices[0].message.role, 'assistant');
    assert.equal(b.choices[0].message.content, 'Hi there');
    assert.equal(b.choices[0].finish_reason, 'stop');
    assert.equal(b.usage.prompt_tokens, 12);
    assert.equal(b.usage.completion_tokens, 3);
    assert.equal(b.usage.total_tokens, 15);
    // 12 × 0.000001 + 3 × 0.000002 = 0.000018 USD exactly
    assert.equal(b.usage.cost, 0.000018);
  });

  test('the cost is charged to the account exactly, in integer nano-dollars', async () => {
    const before = (await gw.services.stores.accounts.balance(gw.accountId))!;
    emu.enqueue({ text: 'x', usage: { prompt_tokens: 1234, completion_tokens: 567 } });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: user('bill me') }, auth);
    assert.equal(res.status, 200);
    await gw.flush();
    const afterBalance = (await gw.services.stores.accounts.balance(gw.accountId))!;
    // 1234 × 1000 + 567 × 2000 nano-USD
    assert.equal(before - afterBalance, 1234n * 1000n + 567n * 2000n);
    const gen = (await gw.services.stores.generations.getRecord(res.json.id))!;
    assert.equal(gen.tokensPrompt, 1234);
    assert.equal(gen.tokensCompletion, 567);
    assert.equal(gen.provider, 'local');
    assert.equal(gen.status, 'success');
  });

  test('streaming follows the wire format: role chunk, deltas, finish chunk, usage chunk with choices [], [DONE]', async () => {
    emu.enqueue({ text: 'one two three', chunks: 3, usage: { prompt_tokens: 5, completion_tokens: 3 } });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: user('count'), stream: true }, auth);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(emu.requests[0]!.body.stream, true);
    const events = sseData(res.text) as any[];
    assert.equal(events.at(-1), '[DONE]');
    const chunks = events.slice(0, -1);
    for (const c of chunks) {
      assert.equal(c.object, 'chat.completion.chunk');
      assert.equal(c.id, chunks[0].id);
      assert.equal(c.model, 'acme/mock-1');
    }
    assert.equal(chunks[0].choices[0].delta.role, 'assistant');
    const text = chunks
      .flatMap((c) => c.choices)
      .map((ch: any) => ch.delta?.content ?? '')
      .join('');
    assert.equal(text, 'one two three');
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    assert.equal(finish.length, 1);
    assert.equal(finish[0].choices[0].finish_reason, 'stop');
    const last = chunks.at(-1);
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage.prompt_tokens, 5);
    assert.equal(last.usage.completion_tokens, 3);
    assert.equal(typeof last.usage.cost, 'number');
  });

  test('tool calls come back in OpenAI shape, streamed and not', async () => {
    const tools = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    ];
    emu.enqueue({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }], finishReason: 'tool_calls' });
    const plain = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: user('weather?'), tools }, auth);
    assert.equal(plain.status, 200, plain.text);
    assert.deepEqual(emu.requests[0]!.body.tools, tools);
    const msg = plain.json.choices[0].message;
    assert.equal(plain.json.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(msg.tool_calls, [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);

    emu.enqueue({ toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' }], finishReason: 'tool_calls' });
    const streamed = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', messages: user('weather?'), tools, stream: true },
      auth,
    );
    const deltas = (sseData(streamed.text) as any[])
      .filter((c) => c !== '[DONE]' && c.choices[0]?.delta?.tool_calls)
      .flatMap((c) => c.choices[0].delta.tool_calls);
    assert.equal(deltas[0].id, 'call_2');
    assert.equal(deltas[0].function.name, 'get_weather');
    assert.equal(deltas.map((d: any) => d.function.arguments ?? '').join(''), '{"city":"Rome"}');
  });

  test('an upstream 5xx is a 502 provider_error naming the provider, with the raw answer', async () => {
    // The plan's only endpoint: tried, then retried twice, failing each time.
    for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'status', status: 500, body: { error: { message: 'boom', type: 'server_error' } } });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: user('hi') }, auth);
    assert.equal(res.status, 502);
    assert.equal(res.json.error.type, 'provider_error');
    assert.equal(res.json.error.code, 'provider_error');
    assert.equal(res.json.error.metadata.provider_name, 'local');
    assert.deepEqual(res.json.error.metadata.raw, { error: { message: 'boom', type: 'server_error' } });
  });

  test('a malformed upstream body is a 502', async () => {
    // The plan's only endpoint: tried, then retried twice, failing each time.
    for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'malformed-json' });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: user('hi') }, auth);
    assert.equal(res.status, 502);
    assert.equal(res.json.error.type, 'provider_error');
  });

  test('an error after the stream started is a data line holding the error record, then the stream ends', async () => {
    emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 2 });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: user('hi'), stream: true }, auth);
    assert.equal(res.status, 200);
    const events = sseData(res.text) as any[];
    const last = events.at(-1);
    assert.notEqual(last, '[DONE]');
    assert.equal(last.error.type, 'provider_error');
    assert.equal(typeof last.error.message, 'string');
  });

  test('a failure before the first byte of a stream is a plain HTTP error with its status', async () => {
    // The plan's only endpoint: tried, then retried twice, failing each time.
    for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'status', status: 503 });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: user('hi'), stream: true }, auth);
    assert.equal(res.status, 502);
    assert.equal(res.json.error.type, 'provider_error');
  });

  test('an upstream that rejects the request as invalid gives a 400 with its message', async () => {
    emu.enqueue({ fault: 'status', status: 400, body: { error: { message: 'bad stop', type: 'invalid_request_error' } } });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: user('hi') }, auth);
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'upstream_rejected_request');
    assert.equal(res.json.error.metadata.provider_name, 'local');
  });

  test('with timeouts.disconnect_grace_ms 0, a client that disconnects mid-stream cancels the upstream request at once', async () => {
    const quick = await startTestGateway({
      yaml: emulatorConfig(emu.baseUrl),
      env: { LOCAL_KEY: 'upstream-secret' },
      tweak: (c) => (c.timeouts.disconnectGraceMs = 0),
    });
    try {
      // The role chunk and the first word, then the rest never comes: the client leaves first.
      emu.enqueue({
        fault: 'held',
        until: new Promise(() => {}),
        afterChunks: 2,
        then: { text: 'a b c d e f g h i j k l m n o p', chunks: 16 },
      });
      const ctrl = new AbortController();
      const res = await fetch(`${quick.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${quick.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'acme/mock-1', messages: user('long'), stream: true }),
        signal: ctrl.signal,
      });
      const reader = res.body!.getReader();
      await reader.read();
      ctrl.abort();
      await waitFor(() => emu.closedEarly > 0, 10_000);
      const id = res.headers.get('x-generation-id')!;
      let record: any = null;
      for (let tries = 0; tries < 1_000 && record?.cancelled !== true; tries++) {
        await quick.flush();
        record = await generationRecord(quick.origin, quick.key, id).catch(() => null);
        if (record?.cancelled !== true) await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(record.cancelled, true, 'the record says the client cancelled');
    } finally {
      await quick.close();
    }
  });
});

describe('upstream timeouts', () => {
  test('an upstream slower than the attempt timeout gives 408 timeout_error', async () => {
    const emu = await startOpenAIChatEmulator();
    const gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), tweak: (c) => (c.timeouts.attemptMs = 200) });
    try {
      // The plan's only endpoint: tried, then retried twice, failing each time.
      // An upstream that never answers: slower than the attempt timeout however busy the machine.
      for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'hang' });
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/mock-1', messages: user('hi') },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 408);
      assert.equal(res.json.error.type, 'timeout_error');
    } finally {
      await gw.close();
      await emu.close();
    }
  });
});

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail('condition not met in time');
}
