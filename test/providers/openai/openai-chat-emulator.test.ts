import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { request } from 'undici';
import { openaiAdapter } from '../../../src/providers/openai/openai-adapter.ts';
import { testRequest, useOpenAIEmulator, waitFor } from './openai-test-helpers.ts';

// The emulator itself (test/emulators/openai-chat-emulator.ts): the faults the adapter tests do
// not play, and a check that the official client reads its wire as it reads OpenAI's.

const h = useOpenAIEmulator();

describe('the emulator', () => {
  it('hangs when told to, until the client gives up', async () => {
    h.emu.enqueue({ fault: 'hang' });
    const up = openaiAdapter.encodeRequest(testRequest(), h.endpoint());
    await assert.rejects(
      request(up.url, { method: 'POST', headers: up.headers, body: up.body, dispatcher: h.agent, signal: AbortSignal.timeout(100) }),
      (err: Error) => err.name === 'TimeoutError' || err.name === 'AbortError',
    );
    // The emulator sees the abandoned request too (and the next test starts from a clean count).
    await waitFor(() => h.emu.closedEarly === 1);
  });

  it('counts responses the client abandoned, but not its own resets', async () => {
    h.emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 1 });
    await h.run(testRequest({ stream: true }));
    assert.equal(h.emu.closedEarly, 0);

    // Two events, then the rest never comes: the client always leaves before the end.
    h.emu.enqueue({ fault: 'held', until: new Promise(() => {}), afterChunks: 2, then: { text: 'a b c d e f', chunks: 6 } });
    const up = openaiAdapter.encodeRequest(testRequest({ stream: true }), h.endpoint());
    const ctrl = new AbortController();
    const res = await request(up.url, { method: 'POST', headers: up.headers, body: up.body, dispatcher: h.agent, signal: ctrl.signal });
    for await (const _ of res.body) break;
    ctrl.abort();
    await waitFor(() => h.emu.closedEarly === 1);
  });

  it('speaks the wire the official openai client reads', async () => {
    const client = new OpenAI({ apiKey: 'sk-x', baseURL: h.emu.baseUrl, maxRetries: 0 });
    h.emu.enqueue({ text: 'Hi there', usage: { prompt_tokens: 4, completion_tokens: 2, cached_tokens: 1 } });
    const completion = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(completion.choices[0]!.message.content, 'Hi there');
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 1);

    h.emu.enqueue({ text: 'a b', toolCalls: [{ id: 'call_1', name: 'f', arguments: '{"k":"v"}' }] });
    const stream = client.chat.completions.stream({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'hi' }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    assert.equal(message.content, 'a b');
    assert.deepEqual(
      message.tool_calls?.map((c) => (c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : [])),
      [['call_1', 'f', '{"k":"v"}']],
    );
    assert.equal(final.choices[0]!.finish_reason, 'tool_calls');
    assert.ok(final.usage !== undefined && final.usage !== null);

    h.emu.enqueue({ fault: 'rate-limit', retryAfterSeconds: 1 });
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] }),
      (err: InstanceType<typeof OpenAI.APIError>) => err.status === 429,
    );
    // Recorded as the SDK sent it.
    assert.equal(h.emu.requests.at(-2)!.body.stream, true);
  });
});
