import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testRequest, useOpenAIEmulator } from './openai-test-helpers.ts';

// What the upstream receives, as recorded by the emulator on the other end of real HTTP.

const h = useOpenAIEmulator();

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('openai adapter over HTTP: requests', () => {
  it('sends a minimal request with nothing the client did not set', async () => {
    await h.run(testRequest());
    assert.equal(h.emu.requests.length, 1);
    const r = h.emu.requests[0]!;
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/v1/chat/completions');
    assert.equal(r.headers.authorization, 'Bearer sk-test');
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.deepEqual(r.body, { model: 'gpt-test', messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('streams with stream_options.include_usage and nothing else added', async () => {
    await h.run(testRequest({ stream: true }));
    assert.deepEqual(h.emu.requests[0]!.body, {
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('omits authorization without an api key, strips a trailing slash and adds provider headers', async () => {
    await h.run(testRequest(), h.endpoint({ apiKey: '', baseUrl: `${h.emu.baseUrl}/`, headers: { 'x-org': 'acme' } }));
    const r = h.emu.requests[0]!;
    assert.equal(r.path, '/v1/chat/completions');
    assert.equal(r.headers.authorization, undefined);
    assert.equal(r.headers['x-org'], 'acme');
  });

  it('sends max_completion_tokens to OpenAI itself and max_tokens to a generic server', async () => {
    await h.run(testRequest({ maxOutputTokens: 64 }), h.endpoint({ profile: 'openai' }));
    await h.run(testRequest({ maxOutputTokens: 64 }), h.endpoint());
    assert.equal(h.emu.requests[0]!.body.max_completion_tokens, 64);
    assert.equal('max_tokens' in h.emu.requests[0]!.body, false);
    assert.equal(h.emu.requests[1]!.body.max_tokens, 64);
    assert.equal('max_completion_tokens' in h.emu.requests[1]!.body, false);
  });

  it('maps sampling, tools, tool choice and the rest; drops what OpenAI does not take', async () => {
    const req = testRequest({
      sampling: {
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        minP: 0.05,
        topA: 0.1,
        frequencyPenalty: 0.5,
        presencePenalty: -0.5,
        repetitionPenalty: 1.1,
        seed: 7,
        logitBias: { '50256': -100 },
      },
      stop: ['END'],
      tools: [{ ...WEATHER_TOOL, strict: true }],
      toolChoice: { type: 'tool', name: 'get_weather' },
      parallelToolCalls: false,
      reasoning: { effort: 'low', maxTokens: 1000 },
      user: 'u-1',
      promptCacheKey: 'pck',
      extra: { verbosity: 'low', store: true, foo: 1 },
    });
    await h.run(req, h.endpoint({ profile: 'openai' }));
    assert.deepEqual(h.emu.requests[0]!.body, {
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
      seed: 7,
      logit_bias: { '50256': -100 },
      stop: ['END'],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_TOOL.parameters, strict: true },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      reasoning_effort: 'low',
      user: 'u-1',
      prompt_cache_key: 'pck',
      verbosity: 'low',
    });
  });

  it('passes top_k, min_p and repetition_penalty to a generic server, and no extras', async () => {
    const req = testRequest({ sampling: { topK: 40, minP: 0.05, topA: 0.1, repetitionPenalty: 1.1 }, extra: { verbosity: 'low' } });
    await h.run(req);
    const body = h.emu.requests[0]!.body;
    assert.equal(body.top_k, 40);
    assert.equal(body.min_p, 0.05);
    assert.equal(body.repetition_penalty, 1.1);
    assert.equal('top_a' in body, false);
    assert.equal('verbosity' in body, false);
  });

  it('sends JSON mode and json_schema response formats in the chat shape', async () => {
    await h.run(testRequest({ responseFormat: { type: 'json_object' } }));
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    await h.run(testRequest({ responseFormat: { type: 'json_schema', name: 'thing', schema, strict: true, description: 'A thing' } }));
    assert.deepEqual(h.emu.requests[0]!.body.response_format, { type: 'json_object' });
    assert.deepEqual(h.emu.requests[1]!.body.response_format, {
      type: 'json_schema',
      json_schema: { name: 'thing', schema, strict: true, description: 'A thing' },
    });
  });

  it('sends a tool round trip as assistant tool_calls and tool messages', async () => {
    const req = testRequest({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'two cities', signature: 'sig' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'call_1', content: 'sunny' },
            {
              type: 'tool-result',
              toolCallId: 'call_2',
              content: [
                { type: 'text', text: 'rain' },
                { type: 'image', url: 'https://x/y.png' },
                { type: 'text', text: '12C' },
              ],
            },
          ],
        },
      ],
      tools: [WEATHER_TOOL],
      toolChoice: { type: 'auto' },
    });
    await h.run(req);
    const body = h.emu.requests[0]!.body;
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: 'rain\n12C' },
    ]);
    assert.equal(body.tool_choice, 'auto');
  });
});
