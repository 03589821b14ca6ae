import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import Anthropic0x from 'anthropic-sdk-0x';
import { request } from 'undici';
import { anthropicAdapter } from '../../../src/providers/anthropic/anthropic-adapter.ts';
import { anthropicRequest, useAnthropicEmulator, waitFor } from './anthropic-test-helpers.ts';

// The emulator itself (test/emulators/anthropic-messages-emulator.ts): the official SDKs read
// its wire as they read Anthropic's, it rejects what the real API rejects, and it hangs and
// counts abandoned answers like the OpenAI one.

const h = useAnthropicEmulator();

async function post(
  body: unknown,
  headers: Record<string, string> = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
): Promise<{ status: number; json: any }> {
  const res = await request(`${h.emu.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    dispatcher: h.agent,
  });
  return { status: res.statusCode, json: await res.body.json() };
}

const USER = [{ role: 'user', content: 'hi' }];

describe('the anthropic emulator', () => {
  it('speaks the wire the 0.x SDK reads (x-api-key, 2023-06-01): messages, streams and errors', async () => {
    const client = new Anthropic0x({ apiKey: 'sk-ant-x', baseURL: h.emu.baseUrl, maxRetries: 0 });
    h.emu.enqueue({ text: 'Hi there', usage: { input_tokens: 4, output_tokens: 2, cache_read_input_tokens: 10 } });
    const message = await client.messages.create({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hi there' }]);
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.cache_read_input_tokens, 10);
    assert.equal(h.emu.requests[0]!.headers['x-api-key'], 'sk-ant-x');
    assert.equal(h.emu.requests[0]!.headers['anthropic-version'], '2023-06-01');

    h.emu.enqueue({
      thinking: 'Plan.',
      signature: 'EqQBsig',
      redacted: 'EmwK',
      text: 'Calling.',
      toolCalls: [{ id: 'toolu_1', name: 'f', arguments: '{"k":"v"}' }],
    });
    const final = await client.messages
      .stream({
        model: 'claude-x',
        max_tokens: 4096,
        messages: [{ role: 'user', content: 'hi' }],
        thinking: { type: 'enabled', budget_tokens: 1024 },
      })
      .finalMessage();
    assert.deepEqual(
      final.content.map((b) => b.type),
      ['thinking', 'redacted_thinking', 'text', 'tool_use'],
    );
    assert.deepEqual(final.content[0], { type: 'thinking', thinking: 'Plan.', signature: 'EqQBsig' });
    assert.deepEqual(final.content[1], { type: 'redacted_thinking', data: 'EmwK' });
    assert.deepEqual(final.content[3], { type: 'tool_use', id: 'toolu_1', name: 'f', input: { k: 'v' } });
    assert.equal(final.stop_reason, 'tool_use');

    h.emu.enqueue({ fault: 'status', status: 529 });
    await assert.rejects(
      client.messages.create({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      (err: unknown) => {
        assert.ok(err instanceof Anthropic0x.APIError);
        assert.equal(err.status, 529);
        assert.equal((err.error as { error: { type: string } }).error.type, 'overloaded_error');
        return true;
      },
    );

    h.emu.enqueue({ fault: 'stream-error', afterChunks: 3 });
    const stream = await client.messages.create({
      model: 'claude-x',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    await assert.rejects(
      async () => {
        for await (const _ of stream) {
          // drain
        }
      },
      (err: unknown) => err instanceof Anthropic0x.APIError && /Overloaded/.test(err.message),
    );
  });

  it('speaks the wire the current SDK reads (Bearer, 2026-10-21)', async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-y', baseURL: h.emu.baseUrl, maxRetries: 0 });
    h.emu.enqueue({ text: 'streamed words here', chunks: 3, usage: { input_tokens: 5, output_tokens: 3 } });
    const final = await client.messages
      .stream({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    assert.deepEqual(final.content, [{ type: 'text', text: 'streamed words here' }]);
    assert.equal(final.usage.output_tokens, 3);
    assert.equal(h.emu.requests[0]!.headers.authorization, 'Bearer sk-ant-y');
    assert.equal(h.emu.requests[0]!.headers['anthropic-version'], '2026-10-21');
  });

  it('rejects what the real API rejects, in its error envelope', async () => {
    const cases: Array<[unknown, Record<string, string> | undefined, number, RegExp]> = [
      [{ model: 'm', max_tokens: 10, messages: USER }, { 'anthropic-version': '2023-06-01' }, 401, /x-api-key/],
      [{ model: 'm', max_tokens: 10, messages: USER }, { 'x-api-key': 'k' }, 400, /anthropic-version/],
      [{ model: 'm', messages: USER }, undefined, 400, /max_tokens/],
      [{ model: 'm', max_tokens: 10, messages: [] }, undefined, 400, /at least one message/],
      [
        { model: 'm', max_tokens: 2000, messages: USER, thinking: { type: 'enabled', budget_tokens: 2000 } },
        undefined,
        400,
        /greater than `thinking.budget_tokens`/,
      ],
      [{ model: 'm', max_tokens: 2000, messages: USER, thinking: { type: 'enabled', budget_tokens: 512 } }, undefined, 400, /1024/],
      [
        { model: 'm', max_tokens: 4000, messages: USER, thinking: { type: 'enabled', budget_tokens: 1024 }, temperature: 0.5 },
        undefined,
        400,
        /temperature/,
      ],
      [
        {
          model: 'm',
          max_tokens: 10,
          messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'r' }] }],
        },
        undefined,
        400,
        /corresponding `tool_use`/,
      ],
      [{ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }, undefined, 400, /non-empty/],
      [
        {
          model: 'm',
          max_tokens: 10,
          messages: [...USER, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] }],
        },
        undefined,
        400,
        /must define tools/,
      ],
      [
        {
          model: 'm',
          max_tokens: 10,
          messages: [
            { role: 'user', content: [1, 2, 3, 4, 5].map((n) => ({ type: 'text', text: `t${n}`, cache_control: { type: 'ephemeral' } })) },
          ],
        },
        undefined,
        400,
        /maximum of 4/,
      ],
    ];
    for (const [body, headers, status, message] of cases) {
      const res = await post(body, headers);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.json.type, 'error');
      assert.match(res.json.error.message, message);
    }
    // Accepted with the interleaved-thinking beta: the budget may then exceed max_tokens.
    const interleaved = await post(
      { model: 'm', max_tokens: 2000, messages: USER, thinking: { type: 'enabled', budget_tokens: 4000 } },
      { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
    );
    assert.equal(interleaved.status, 200);
  });

  it('hangs when told to, until the client gives up', async () => {
    h.emu.enqueue({ fault: 'hang' });
    const up = anthropicAdapter.encodeRequest(anthropicRequest(), h.endpoint());
    await assert.rejects(
      request(up.url, { method: 'POST', headers: up.headers, body: up.body, dispatcher: h.agent, signal: AbortSignal.timeout(100) }),
      (err: Error) => err.name === 'TimeoutError' || err.name === 'AbortError',
    );
    await waitFor(() => h.emu.closedEarly === 1);
  });

  it('counts responses the client abandoned, but not its own resets', async () => {
    h.emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 2 });
    await h.run(anthropicRequest({ stream: true }));
    assert.equal(h.emu.closedEarly, 0);

    // Paced far slower than the client leaves, however busy the machine (the test ends at the abort).
    h.emu.enqueue({ text: 'a b c d e f', chunkDelayMs: 5_000 });
    const up = anthropicAdapter.encodeRequest(anthropicRequest({ stream: true }), h.endpoint());
    const ctrl = new AbortController();
    const res = await request(up.url, { method: 'POST', headers: up.headers, body: up.body, dispatcher: h.agent, signal: ctrl.signal });
    for await (const _ of res.body) break;
    ctrl.abort();
    await waitFor(() => h.emu.closedEarly === 1);
  });
});
