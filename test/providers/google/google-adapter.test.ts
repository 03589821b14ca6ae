import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { loadGeminiFixture } from '../../emulators/gemini-emulator.ts';
import { foldStreamParts } from '../../../src/canonical/fold-stream-parts.ts';
import type { CanonicalResponse } from '../../../src/canonical/response.ts';
import type { Message } from '../../../src/canonical/request.ts';
import { SKIP_SIGNATURE } from '../../../src/providers/google/gemini-tool-call-id.ts';
import { partsOfType, testRequest, textOf, useGeminiEmulator } from './google-test-helpers.ts';

// The google adapter against the Gemini emulator over real HTTP: requests, answers
// (recorded-shape fixtures and scripted ones), streamed and not, and failures.

const h = useGeminiEmulator();

const WEATHER = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** The answer with ids and raw usage left out, to compare a streamed and a plain one. */
function comparable(r: CanonicalResponse): unknown {
  return { ...r, id: undefined, usage: r.usage === null ? null : { ...r.usage, raw: undefined } };
}

describe('google adapter over HTTP: requests', () => {
  it('posts to :generateContent and :streamGenerateContent?alt=sse with x-goog-api-key', async () => {
    await h.run(testRequest());
    await h.run(testRequest({ stream: true }));
    const [plain, streamed] = h.emu.requests;
    assert.equal(plain!.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(streamed!.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    assert.equal(plain!.headers['x-goog-api-key'], 'gm-test');
    assert.equal(plain!.headers.authorization, undefined);
    assert.deepEqual(plain!.body, { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
  });

  it('is told a bad key apart from a bad request: Gemini answers both with 400', async () => {
    const ex = await h.run(testRequest(), h.endpoint('gemini-2.5-flash', { apiKey: 'wrong' }));
    assert.equal(ex.status, 400);
    assert.equal(ex.error!.code, 'provider_error');
    assert.equal(ex.error!.retryable, true, 'another provider may still serve');
    assert.doesNotMatch(ex.error!.message, /API key/);
  });
});

describe('google adapter over HTTP: answers', () => {
  it('decodes text, chunk by chunk when streamed, to the same answer', async () => {
    const step = { text: 'One two three four', usage: { promptTokenCount: 7, candidatesTokenCount: 4 } };
    h.emu.enqueue(step, step);
    const plain = await h.run(testRequest());
    const streamed = await h.run(testRequest({ stream: true }));
    assert.deepEqual(
      plain.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish', 'usage'],
    );
    assert.deepEqual(
      partsOfType(streamed.parts, 'text-delta').map((p) => p.text),
      ['One ', 'two ', 'three ', 'four'],
    );
    assert.deepEqual(streamed.parts.filter((p) => p.type === 'usage').length, 1, 'running usage becomes one part');
    const a = foldStreamParts(plain.parts).response;
    assert.deepEqual(comparable(a), comparable(foldStreamParts(streamed.parts).response));
    assert.deepEqual(a.finish, { unified: 'stop', raw: 'STOP' });
    assert.deepEqual({ ...a.usage, raw: undefined }, { input: 7, cacheRead: 0, cacheWrite: 0, output: 4, reasoning: 0, raw: undefined });
    assert.equal(a.model, 'gemini-2.5-flash');
  });

  it('surfaces thoughts as reasoning and counts them as output (recorded shape)', async () => {
    const fixture = loadGeminiFixture('gemini-2.5-thoughts');
    for (const stream of [false, true]) {
      h.emu.enqueue({ replay: fixture });
      const { response } = foldStreamParts((await h.run(testRequest({ stream, reasoning: { effort: 'low' } }))).parts);
      assert.deepEqual(
        response.content,
        [
          { type: 'reasoning', text: "**Counting letters**\n\nI need to count the r's in strawberry." },
          { type: 'text', text: 'There are **3** "r"s in strawberry.' },
        ],
        `stream=${stream}`,
      );
      assert.equal(response.usage?.output, 13 + 256);
      assert.equal(response.usage?.reasoning, 256);
    }
    assert.deepEqual(h.emu.requests[0]!.body.generationConfig, { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
  });

  it('normalizes usage: cached and tool-use prompt tokens, thoughts as output (recorded shape)', async () => {
    h.emu.enqueue({ replay: loadGeminiFixture('gemini-2.5-complete-usage') });
    const usage = partsOfType((await h.run(testRequest())).parts, 'usage')[0]!.usage;
    assert.deepEqual(
      { ...usage, raw: undefined },
      { input: 19 + 63, cacheRead: 3, cacheWrite: 0, output: 4 + 56, reasoning: 56, raw: undefined },
    );
    assert.equal((usage.raw as { totalTokenCount: number }).totalTokenCount, usage.input + usage.output);
  });

  it('keeps a Gemini 3 thought signature across a tool round trip when the client returns only the id', async () => {
    const fixture = loadGeminiFixture('gemini-3-tool-call');
    const signature = (fixture.chunks[0] as any).candidates[0].content.parts[0].thoughtSignature as string;
    const model = 'gemini-3-pro-preview';
    for (const stream of [false, true]) {
      h.emu.reset();
      h.emu.enqueue({ replay: fixture }, { text: 'Sunny in Paris.' });
      const first = foldStreamParts((await h.run(testRequest({ stream, tools: [WEATHER] }), h.endpoint(model))).parts).response;
      assert.deepEqual(first.finish, { unified: 'tool_calls', raw: 'STOP' });
      const call = first.content[0]!;
      assert.ok(call.type === 'tool-call');
      assert.equal(call.signature, signature);
      assert.equal(call.arguments, '{"city":"Paris"}');
      assert.match(call.id, /^gsig_/);
      // A chat client sends back the id, the name and the arguments: nothing else.
      const history: Message[] = [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: call.id, name: call.name, arguments: call.arguments }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: call.id, content: '{"temp":21}' }] },
      ];
      const second = await h.run(testRequest({ stream, tools: [WEATHER], messages: history }), h.endpoint(model));
      assert.equal(second.status, 200, 'the emulator refuses a Gemini 3 history without the signature');
      assert.equal(textOf(second.parts), 'Sunny in Paris.');
      const replayed = h.emu.requests[1]!.body.contents;
      assert.deepEqual(replayed[1], {
        role: 'model',
        parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: signature }],
      });
      assert.deepEqual(replayed[2], {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { output: '{"temp":21}' } } }],
      });
    }
  });

  it('falls back to the skip sentinel for a call another provider made', async () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'call_abc123', name: 'get_weather', arguments: '{"city":"Rome"}' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_abc123', content: 'rain' }] },
    ];
    const ex = await h.run(testRequest({ tools: [WEATHER], messages: history }), h.endpoint('gemini-3-pro-preview'));
    assert.equal(ex.status, 200);
    assert.equal(h.emu.requests[0]!.body.contents[1].parts[0].thoughtSignature, SKIP_SIGNATURE);
  });

  it('decodes parallel calls, only the first signed, in order and apart', async () => {
    for (const stream of [false, true]) {
      h.emu.enqueue({ replay: loadGeminiFixture('gemini-3-parallel-tool-calls') });
      const { response } = foldStreamParts((await h.run(testRequest({ stream, tools: [WEATHER] }))).parts);
      const calls = response.content.filter((c) => c.type === 'tool-call');
      assert.deepEqual(
        calls.map((c) => c.type === 'tool-call' && [c.arguments, c.signature !== undefined]),
        [
          ['{"city":"Paris"}', true],
          ['{"city":"Tokyo"}', false],
        ],
      );
      assert.notEqual(calls[0]!.type === 'tool-call' && calls[0]!.id, calls[1]!.type === 'tool-call' && calls[1]!.id);
      assert.equal(response.finish?.unified, 'tool_calls');
    }
  });

  it('drops the trailing empty signed text part (recorded shape)', async () => {
    h.emu.enqueue({ replay: loadGeminiFixture('gemini-3-text-trailing-signature') });
    const { response } = foldStreamParts((await h.run(testRequest({ stream: true }))).parts);
    assert.deepEqual(response.content, [{ type: 'text', text: 'There are **3** "r"s in strawberry.' }]);
  });

  it('maps a blocked prompt and safety finishes to content_filter, MAX_TOKENS to length', async () => {
    for (const stream of [false, true]) {
      h.emu.enqueue({ replay: loadGeminiFixture('gemini-prompt-blocked') });
      const blocked = foldStreamParts((await h.run(testRequest({ stream }))).parts);
      assert.equal(blocked.error, null);
      assert.deepEqual(blocked.response.finish, { unified: 'content_filter', raw: 'PROHIBITED_CONTENT' });
      assert.deepEqual(blocked.response.content, []);
    }
    for (const [raw, unified] of [
      ['SAFETY', 'content_filter'],
      ['RECITATION', 'content_filter'],
      ['MAX_TOKENS', 'length'],
      ['MALFORMED_FUNCTION_CALL', 'error'],
      ['OTHER', 'stop'],
    ] as const) {
      h.emu.enqueue({ text: 'cut', finishReason: raw });
      assert.deepEqual(partsOfType((await h.run(testRequest({ stream: true }))).parts, 'finish')[0]!.reason, { unified, raw });
    }
  });

  it('frames its stream with \\r\\n\\r\\n and no terminator, like Gemini', async () => {
    const res = await request(`${h.emu.baseUrl}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'gm-test' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'a b' }] }] }),
    });
    const text = await res.body.text();
    assert.match(text, /^data: \{.*\}\r\n\r\ndata: \{.*"finishReason":"STOP".*\}\r\n\r\n$/s);
  });
});

describe('google adapter over HTTP: errors', () => {
  it("turns INVALID_ARGUMENT into upstream_rejected_request with Gemini's message", async () => {
    h.emu.enqueue({
      fault: 'status',
      status: 400,
      body: { error: { code: 400, message: 'Penalty is not enabled for models/gemini-2.5-flash', status: 'INVALID_ARGUMENT' } },
    });
    const ex = await h.run(testRequest({ sampling: { presencePenalty: 1 } }));
    assert.equal(ex.status, 400);
    assert.equal(ex.error!.code, 'upstream_rejected_request');
    assert.equal(ex.error!.retryable, false);
    assert.equal(ex.error!.message, 'Penalty is not enabled for models/gemini-2.5-flash');
    // The emulator also enforces Gemini's own rules: an empty conversation is refused.
    const empty = await h.run(testRequest({ messages: [{ role: 'user', content: [] }] }));
    assert.equal(empty.error!.code, 'upstream_rejected_request');
    assert.match(empty.error!.message, /contents is not specified/);
  });

  it('turns 429 RESOURCE_EXHAUSTED into a retryable provider_error with the retry delay', async () => {
    h.emu.enqueue({ fault: 'rate-limit', retryAfterSeconds: 34 });
    const ex = await h.run(testRequest({ stream: true }));
    assert.equal(ex.error!.code, 'provider_error');
    assert.equal(ex.error!.retryable, true);
    assert.equal(ex.error!.metadata?.retry_after_seconds, 34);
    assert.equal((ex.error!.metadata?.raw as { error: { status: string } }).error.status, 'RESOURCE_EXHAUSTED');
  });

  it('turns a 5xx into a retryable provider_error', async () => {
    h.emu.enqueue({
      fault: 'status',
      status: 503,
      body: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
    });
    const ex = await h.run(testRequest());
    assert.equal(ex.error!.code, 'provider_error');
    assert.equal(ex.error!.retryable, true);
    assert.match(ex.error!.message, /503: The model is overloaded/);
  });

  it('turns an error chunk in the stream into an error part after what arrived', async () => {
    h.emu.enqueue({
      fault: 'stream-error',
      afterChunks: 1,
      error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' },
    });
    const ex = await h.run(testRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'error'],
    );
    assert.match(partsOfType(ex.parts, 'error')[0]!.error.message, /Internal error encountered/);
  });

  it('turns malformed JSON into an error part, streamed and not', async () => {
    for (const stream of [false, true]) {
      h.emu.enqueue({ fault: 'malformed-json' });
      const ex = await h.run(testRequest({ stream }));
      assert.equal(ex.parts.at(-1)!.type, 'error', `stream=${stream}`);
    }
  });

  it('ends a stream cut before its finish with an error part', async () => {
    h.emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 2 });
    const ex = await h.run(testRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'text-delta', 'usage', 'error'],
    );
    assert.match(partsOfType(ex.parts, 'error')[0]!.error.message, /ended before completion/);
  });
});
