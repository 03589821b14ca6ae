import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../../src/canonical/request.ts';
import { GatewayError } from '../../../src/errors/gateway-error.ts';
import { anthropicAdapter } from '../../../src/providers/anthropic/anthropic-adapter.ts';
import { anthropicEndpoint, anthropicRequest, useAnthropicEmulator } from './anthropic-test-helpers.ts';
import { JSON_OBJECT_INSTRUCTION } from '../../../src/providers/anthropic/convert-to-anthropic-request.ts';

// What the upstream receives, as recorded by the emulator on the other end of real HTTP. The
// emulator rejects what the real API rejects, so every request here is also one Anthropic takes.

const h = useAnthropicEmulator();

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

async function sent(req = anthropicRequest(), endpoint = h.endpoint()): Promise<any> {
  const ex = await h.run(req, endpoint);
  assert.equal(ex.status, 200, `the emulator accepted the request: ${JSON.stringify(ex.error?.metadata?.raw)}`);
  return h.lastBody();
}

describe('anthropic adapter over HTTP: requests', () => {
  it('sends a minimal request with the auth and version headers and a default max_tokens', async () => {
    const body = await sent();
    const r = h.emu.requests[0]!;
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/v1/messages');
    assert.equal(r.headers['x-api-key'], 'sk-ant-test');
    assert.equal(r.headers['anthropic-version'], '2023-06-01');
    assert.equal(r.headers.authorization, undefined);
    assert.equal(r.headers['anthropic-beta'], undefined);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.deepEqual(body, {
      model: 'claude-test',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('takes max_tokens from the request, else from the endpoint', async () => {
    assert.equal((await sent(anthropicRequest({ maxOutputTokens: 100 }), h.endpoint({}, { maxOutputTokens: 64_000 }))).max_tokens, 100);
    assert.equal((await sent(anthropicRequest(), h.endpoint({}, { maxOutputTokens: 64_000 }))).max_tokens, 64_000);
  });

  it('accepts a base URL that already ends in /v1 and adds operator headers', async () => {
    await sent(
      anthropicRequest(),
      h.endpoint({ baseUrl: `${h.emu.baseUrl}/v1/`, apiKey: '', headers: { authorization: 'Bearer proxy-token' } }),
    );
    const r = h.emu.requests[0]!;
    assert.equal(r.path, '/v1/messages');
    assert.equal(r.headers['x-api-key'], undefined);
    assert.equal(r.headers.authorization, 'Bearer proxy-token');
    assert.equal(
      anthropicAdapter.encodeRequest(anthropicRequest(), anthropicEndpoint({ baseUrl: 'https://api.anthropic.com' })).url,
      'https://api.anthropic.com/v1/messages',
    );
  });

  it('streams with stream: true and nothing else added', async () => {
    await h.run(anthropicRequest({ stream: true }));
    assert.equal(h.lastBody().stream, true);
    assert.equal('stream_options' in h.lastBody(), false);
  });

  it('hoists leading system messages with their cache_control, keeps a later one in place, merges roles', async () => {
    const messages: Message[] = [
      { role: 'system', content: [{ type: 'text', text: 'You are terse.', cacheControl: { type: 'ephemeral', ttl: '1h' } }] },
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Answer in French.' },
          { type: 'text', text: '' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      { role: 'user', content: [{ type: 'text', text: 'Anyone there?', cacheControl: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Oui.' }] },
      { role: 'system', content: [{ type: 'text', text: 'Now switch to English.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Why?' }] },
    ];
    const body = await sent(anthropicRequest({ messages }));
    assert.deepEqual(body.system, [
      { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'Answer in French.' },
    ]);
    assert.deepEqual(body.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hello' },
          { type: 'text', text: 'Anyone there?', cache_control: { type: 'ephemeral' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Oui.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Now switch to English.' },
          { type: 'text', text: 'Why?' },
        ],
      },
    ]);
  });

  it('sends a tool round trip as tool_use and tool_result blocks, results first in the user turn', async () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', cacheControl: { type: 'ephemeral' } },
          { type: 'tool-call', id: 'functions.get_weather:1', name: 'get_weather', arguments: '{"city": "Ro' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', content: 'sunny' }] },
      { role: 'user', content: [{ type: 'text', text: 'And be quick.' }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'functions.get_weather:1',
            content: [
              { type: 'text', text: 'rain' },
              { type: 'image', url: 'data:image/png;base64,iVBORw0K' },
            ],
            isError: true,
            cacheControl: { type: 'ephemeral', ttl: '5m' },
          },
        ],
      },
    ];
    const body = await sent(anthropicRequest({ messages, tools: [WEATHER_TOOL] }));
    assert.deepEqual(body.messages.slice(1), [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' }, cache_control: { type: 'ephemeral' } },
          // Broken JSON from another provider's model still replays; the id is made valid for Anthropic.
          { type: 'tool_use', id: 'functions_get_weather_1', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
          {
            type: 'tool_result',
            tool_use_id: 'functions_get_weather_1',
            content: [
              { type: 'text', text: 'rain' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } },
            ],
            is_error: true,
            cache_control: { type: 'ephemeral', ttl: '5m' },
          },
          { type: 'text', text: 'And be quick.' },
        ],
      },
    ]);
  });

  it('declares the tools a replayed conversation used when the request gives none, and forbids calling them', async () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_1', content: '3C' },
          { type: 'tool-result', toolCallId: 'call_2', content: '20C' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Summarize.' }] },
    ];
    const body = await sent(anthropicRequest({ messages }));
    assert.deepEqual(body.tools, [{ name: 'get_weather', input_schema: { type: 'object' } }]);
    assert.deepEqual(body.tool_choice, { type: 'none' });
  });

  it('replays signed reasoning and redacted reasoning unchanged and in order, dropping unsigned reasoning', async () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Think.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'from another provider' },
          { type: 'reasoning', text: 'Let me see.', signature: 'EqQBsig1==' },
          { type: 'redacted-reasoning', data: 'EmwKAhgBEgy3va' },
          { type: 'reasoning', text: '', signature: 'EqQBsig2==' },
          { type: 'text', text: 'Done.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Again.' }] },
    ];
    const body = await sent(anthropicRequest({ messages }));
    assert.deepEqual(body.messages[1].content, [
      { type: 'thinking', thinking: 'Let me see.', signature: 'EqQBsig1==' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va' },
      { type: 'thinking', thinking: '', signature: 'EqQBsig2==' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('drops an assistant message left empty, keeping the turns alternating', async () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'unsigned' }] },
      { role: 'user', content: [{ type: 'text', text: 'b' }] },
    ];
    const body = await sent(anthropicRequest({ messages }));
    assert.deepEqual(body.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
  });

  it('maps images and files to image and document blocks', async () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'image', url: 'data:image/jpeg;base64,/9j/4AAQ', cacheControl: { type: 'ephemeral' } },
          { type: 'image', url: 'https://example.com/cat.png', detail: 'low' },
          { type: 'file', data: 'JVBERi0xLjQ=', mediaType: 'application/pdf', filename: 'report.pdf' },
          { type: 'file', data: 'data:application/pdf;base64,JVBERi0xLjU=' },
          { type: 'file', data: 'JVBERi0xLjY=' },
          { type: 'file', data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=' },
          { type: 'file', url: 'https://example.com/paper.pdf', mediaType: 'application/pdf' },
          { type: 'file', data: 'R0lGODlh', mediaType: 'image/gif' },
          { type: 'text', text: 'Summarize.' },
        ],
      },
    ];
    const body = await sent(anthropicRequest({ messages }));
    assert.deepEqual(body.messages[0].content, [
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' }, cache_control: { type: 'ephemeral' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' }, title: 'report.pdf' },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjU=' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjY=' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello world' } },
      { type: 'document', source: { type: 'url', url: 'https://example.com/paper.pdf' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: 'R0lGODlh' } },
      { type: 'text', text: 'Summarize.' },
    ]);
  });

  it('refuses audio and files Anthropic cannot read with unsupported_content, before any request', () => {
    const cases: Message[] = [
      { role: 'user', content: [{ type: 'audio', data: 'UklGR', format: 'wav' }] },
      {
        role: 'user',
        content: [{ type: 'file', data: 'UEsDBBQ', mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }],
      },
    ];
    for (const m of cases) {
      assert.throws(
        () => anthropicAdapter.encodeRequest(anthropicRequest({ messages: [m] }), anthropicEndpoint()),
        (err: unknown) => {
          assert.ok(err instanceof GatewayError);
          assert.equal(err.code, 'unsupported_content');
          assert.equal(err.status, 400);
          return true;
        },
      );
    }
  });

  it('maps sampling, stops, user and tools; drops what the Messages API has no field for', async () => {
    const body = await sent(
      anthropicRequest({
        sampling: { temperature: 0.3, topK: 40, frequencyPenalty: 0.5, presencePenalty: 0.1, seed: 7, logitBias: { '1': 2 }, minP: 0.1 },
        stop: ['END', '  ', '\n'],
        user: 'user-123',
        tools: [
          { ...WEATHER_TOOL, strict: true, cacheControl: { type: 'ephemeral', ttl: '1h' } },
          { name: 'now', parameters: {} },
        ],
        toolChoice: { type: 'required' },
        parallelToolCalls: false,
        promptCacheKey: 'pck',
        modalities: ['text'],
        extra: { service_tier: 'flex' },
      }),
    );
    assert.deepEqual(body, {
      model: 'claude-test',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      temperature: 0.3,
      top_k: 40,
      stop_sequences: ['END'],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          input_schema: WEATHER_TOOL.parameters,
          strict: true,
          cache_control: { type: 'ephemeral', ttl: '1h' },
        },
        { name: 'now', input_schema: { type: 'object' } },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      metadata: { user_id: 'user-123' },
    });
  });

  it("clamps temperature to Anthropic's range, and sends temperature rather than both it and top_p", async () => {
    assert.equal((await sent(anthropicRequest({ sampling: { temperature: 1.7 } }))).temperature, 1);
    const both = await sent(anthropicRequest({ sampling: { temperature: 0.5, topP: 0.9 } }));
    assert.equal(both.temperature, 0.5);
    assert.equal('top_p' in both, false);
    assert.equal((await sent(anthropicRequest({ sampling: { topP: 0.9 } }))).top_p, 0.9);
  });

  it('maps each tool choice, and sends none without tools', async () => {
    const choices = [
      [{ type: 'auto' }, { type: 'auto' }],
      [{ type: 'none' }, { type: 'none' }],
      [
        { type: 'tool', name: 'get_weather' },
        { type: 'tool', name: 'get_weather' },
      ],
    ] as const;
    for (const [choice, wire] of choices) {
      assert.deepEqual((await sent(anthropicRequest({ tools: [WEATHER_TOOL], toolChoice: choice }))).tool_choice, wire);
    }
    const noTools = await sent(anthropicRequest({ toolChoice: { type: 'auto' }, parallelToolCalls: false }));
    assert.equal('tool_choice' in noTools, false);
    assert.equal('tools' in noTools, false);
  });

  it("honours the endpoint's parameter set", async () => {
    const narrow = h.endpoint({}, { supportedParameters: new Set(['max_tokens', 'tools']) });
    const body = await sent(
      anthropicRequest({
        sampling: { temperature: 0.2 },
        stop: ['x'],
        user: 'u',
        reasoning: { effort: 'high' },
        tools: [WEATHER_TOOL],
        toolChoice: { type: 'required' },
      }),
      narrow,
    );
    assert.deepEqual(Object.keys(body).sort(), ['max_tokens', 'messages', 'model', 'tools']);
  });

  it('sends json_schema as output_config.format and asks for JSON in words for json_object', async () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false };
    const withSchema = await sent(anthropicRequest({ responseFormat: { type: 'json_schema', name: 'thing', schema, strict: true } }));
    assert.deepEqual(withSchema.output_config, { format: { type: 'json_schema', schema } });
    assert.equal('system' in withSchema, false);

    const jsonObject = await sent(
      anthropicRequest({
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be helpful.', cacheControl: { type: 'ephemeral' } }] },
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        ],
        responseFormat: { type: 'json_object' },
      }),
    );
    assert.deepEqual(jsonObject.system, [
      { type: 'text', text: 'Be helpful.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: JSON_OBJECT_INSTRUCTION },
    ]);
    assert.equal('output_config' in jsonObject, false);
  });
});

describe('anthropic adapter over HTTP: thinking', () => {
  it('turns an effort into a budget below max_tokens', async () => {
    const cases = [
      ['low', 1024],
      ['medium', 8192],
      ['high', 24_576],
    ] as const;
    for (const [effort, budget] of cases) {
      const body = await sent(anthropicRequest({ reasoning: { effort } }), h.endpoint({}, { maxOutputTokens: 64_000 }));
      assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: budget }, effort);
      assert.equal(body.max_tokens, 64_000);
    }
    // On, with neither effort nor budget: medium.
    assert.deepEqual((await sent(anthropicRequest({ reasoning: { enabled: true } }))).thinking, { type: 'enabled', budget_tokens: 8192 });
  });

  it('takes a token budget as given, raised to the minimum, and raises max_tokens above it', async () => {
    const body = await sent(anthropicRequest({ reasoning: { maxTokens: 2000 }, maxOutputTokens: 1000 }));
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 2000 });
    assert.equal(body.max_tokens, 3000, 'the budget plus the output the client asked for');

    const small = await sent(anthropicRequest({ reasoning: { maxTokens: 100 }, maxOutputTokens: 5000 }));
    assert.deepEqual(small.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.equal(small.max_tokens, 5000);

    // Within the model's maximum output: the budget gives way.
    const capped = await sent(
      anthropicRequest({ reasoning: { maxTokens: 60_000 }, maxOutputTokens: 32_000 }),
      h.endpoint({}, { maxOutputTokens: 64_000 }),
    );
    assert.equal(capped.max_tokens, 64_000);
    assert.equal(capped.thinking.budget_tokens, 60_000);
    const squeezed = await sent(anthropicRequest({ reasoning: { maxTokens: 70_000 } }), h.endpoint({}, { maxOutputTokens: 64_000 }));
    assert.deepEqual([squeezed.max_tokens, squeezed.thinking.budget_tokens], [64_000, 63_999]);
  });

  it('hidden reasoning (exclude) asks Anthropic for display: omitted; shown reasoning sends no display', async () => {
    const hidden = await sent(anthropicRequest({ reasoning: { maxTokens: 2000, exclude: true } }));
    assert.deepEqual(hidden.thinking, { type: 'enabled', budget_tokens: 2000, display: 'omitted' });
    const byEffort = await sent(anthropicRequest({ reasoning: { effort: 'low', exclude: true } }));
    assert.deepEqual(byEffort.thinking, { type: 'enabled', budget_tokens: 1024, display: 'omitted' });
    const shown = await sent(anthropicRequest({ reasoning: { maxTokens: 2000, exclude: false } }));
    assert.deepEqual(shown.thinking, { type: 'enabled', budget_tokens: 2000 });
    // Nothing to omit when there is no thinking.
    assert.equal('thinking' in (await sent(anthropicRequest({ reasoning: { enabled: false, exclude: true } }))), false);
  });

  it('sends no thinking when reasoning is off, disabled or absent', async () => {
    for (const reasoning of [
      undefined,
      { enabled: false },
      { effort: 'none' as const },
      { maxTokens: 0 },
      { enabled: false, effort: 'high' as const },
    ]) {
      assert.equal('thinking' in (await sent(anthropicRequest({ reasoning }))), false, JSON.stringify(reasoning));
    }
  });

  it('drops temperature, top_k, low top_p and forced tool choices under thinking', async () => {
    const body = await sent(
      anthropicRequest({
        reasoning: { effort: 'low' },
        sampling: { temperature: 0.2, topK: 5, topP: 0.5 },
        tools: [WEATHER_TOOL],
        toolChoice: { type: 'tool', name: 'get_weather' },
      }),
    );
    assert.ok(body.thinking !== undefined);
    for (const key of ['temperature', 'top_k', 'top_p']) assert.equal(key in body, false, key);
    assert.deepEqual(body.tool_choice, { type: 'auto' });
    assert.equal((await sent(anthropicRequest({ reasoning: { effort: 'low' }, sampling: { topP: 0.97 } }))).top_p, 0.97);
  });

  it('asks for interleaved thinking when reasoning meets tools under auto, and only then', async () => {
    const beta = async (over: Parameters<typeof anthropicRequest>[0], endpoint = h.endpoint()): Promise<unknown> => {
      await sent(anthropicRequest(over), endpoint);
      return h.emu.requests.at(-1)!.headers['anthropic-beta'];
    };
    assert.equal(await beta({ reasoning: { effort: 'low' }, tools: [WEATHER_TOOL] }), 'interleaved-thinking-2025-05-14');
    assert.equal(
      await beta({ reasoning: { effort: 'low' }, tools: [WEATHER_TOOL], toolChoice: { type: 'auto' } }),
      'interleaved-thinking-2025-05-14',
    );
    assert.equal(await beta({ reasoning: { effort: 'low' }, tools: [WEATHER_TOOL], toolChoice: { type: 'none' } }), undefined);
    assert.equal(await beta({ reasoning: { effort: 'low' } }), undefined);
    assert.equal(await beta({ tools: [WEATHER_TOOL] }), undefined);
    // An operator's own betas are kept beside it.
    assert.equal(
      await beta(
        { reasoning: { effort: 'low' }, tools: [WEATHER_TOOL] },
        h.endpoint({ headers: { 'anthropic-beta': 'context-1m-2025-08-07' } }),
      ),
      'context-1m-2025-08-07,interleaved-thinking-2025-05-14',
    );
  });

  it('goes without thinking when a replayed tool loop has no thinking block to start it', async () => {
    const loop = (assistantFirst: Message['content'][number] | null): Message[] => [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [
          ...(assistantFirst === null ? [] : [assistantFirst]),
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ] as never,
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', content: '3C' }] },
    ];
    const fromOpenAI = await sent(anthropicRequest({ messages: loop(null), tools: [WEATHER_TOOL], reasoning: { effort: 'low' } }));
    assert.equal('thinking' in fromOpenAI, false);
    const fromAnthropic = await sent(
      anthropicRequest({
        messages: loop({ type: 'reasoning', text: 'Oslo.', signature: 'EqQBx' }),
        tools: [WEATHER_TOOL],
        reasoning: { effort: 'low' },
      }),
    );
    assert.deepEqual(fromAnthropic.thinking, { type: 'enabled', budget_tokens: 1024 });
  });
});
