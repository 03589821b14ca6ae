import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertRequestError } from '../shared/assert-gateway-error.ts';
import { decodeMessagesRequest } from './decode-messages-request.ts';
import { decodeCountTokensRequest } from './count-message-tokens.ts';

const base = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] };
const tool = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

describe('decodeMessagesRequest: top-level fields', () => {
  it('a minimal request: model, max_tokens, one user message; nothing invented', () => {
    const req = decodeMessagesRequest(base);
    assert.deepEqual(req.models, [{ model: 'anthropic/claude-sonnet-4.5' }]);
    assert.equal(req.maxOutputTokens, 1024);
    assert.deepEqual(req.messages, [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
    assert.deepEqual(req.sampling, {});
    assert.equal(req.stream, false);
    for (const key of ['tools', 'toolChoice', 'reasoning', 'stop', 'user', 'responseFormat']) assert.equal(key in req, false, key);
  });

  it('bare model names are passed on as written (the catalog resolves them)', () => {
    assert.deepEqual(decodeMessagesRequest({ ...base, model: 'claude-sonnet-4-5-20250929' }).models, [
      { model: 'claude-sonnet-4-5-20250929' },
    ]);
  });

  it('max_tokens is required and at least 1; count_tokens does not need it', () => {
    const { max_tokens: _omit, ...noMax } = base;
    assertRequestError(() => decodeMessagesRequest(noMax), 'missing_parameter', 'max_tokens');
    assertRequestError(() => decodeMessagesRequest({ ...base, max_tokens: 0 }), 'invalid_parameter', 'max_tokens');
    assertRequestError(() => decodeMessagesRequest({ ...base, max_tokens: 1.5 }), 'invalid_parameter', 'max_tokens');
    assert.equal(decodeCountTokensRequest(noMax).maxOutputTokens, undefined);
  });

  it('messages are required, an array, with at least one message', () => {
    assertRequestError(() => decodeMessagesRequest({ model: 'm', max_tokens: 5 }), 'missing_parameter', 'messages');
    assertRequestError(() => decodeMessagesRequest({ ...base, messages: 'hi' }), 'invalid_parameter', 'messages');
    assertRequestError(() => decodeMessagesRequest({ ...base, messages: [] }), 'invalid_parameter', 'messages');
    assertRequestError(() => decodeMessagesRequest([base]), 'invalid_json');
  });

  it('temperature 0..2 and top_p 0..1 are carried; top_k is validated but ignored', () => {
    const req = decodeMessagesRequest({ ...base, temperature: 1.5, top_p: 0.9, top_k: 40 });
    assert.deepEqual(req.sampling, { temperature: 1.5, topP: 0.9 });
    assertRequestError(() => decodeMessagesRequest({ ...base, temperature: 2.1 }), 'invalid_parameter', 'temperature');
    assertRequestError(() => decodeMessagesRequest({ ...base, top_p: 1.1 }), 'invalid_parameter', 'top_p');
    assertRequestError(() => decodeMessagesRequest({ ...base, top_k: -1 }), 'invalid_parameter', 'top_k');
  });

  it('stop_sequences → stop; an empty list sets nothing', () => {
    assert.deepEqual(decodeMessagesRequest({ ...base, stop_sequences: ['\n\nHuman:', 'END'] }).stop, ['\n\nHuman:', 'END']);
    assert.equal('stop' in decodeMessagesRequest({ ...base, stop_sequences: [] }), false);
    assertRequestError(() => decodeMessagesRequest({ ...base, stop_sequences: 'END' }), 'invalid_parameter', 'stop_sequences');
    assertRequestError(() => decodeMessagesRequest({ ...base, stop_sequences: ['a', 1] }), 'invalid_parameter', 'stop_sequences[1]');
  });

  it('metadata.user_id → user, other metadata ignored', () => {
    const userId = JSON.stringify({ device_id: 'abc', session_id: 's1' });
    const req = decodeMessagesRequest({ ...base, metadata: { user_id: userId, other: 1 } });
    assert.equal(req.user, userId);
    assert.equal(req.metadata, undefined);
    assertRequestError(() => decodeMessagesRequest({ ...base, metadata: { user_id: 7 } }), 'invalid_parameter', 'metadata.user_id');
  });

  it('stream, Anthropic-only fields and unknown fields', () => {
    const req = decodeMessagesRequest({
      ...base,
      stream: true,
      service_tier: 'auto',
      container: null,
      context_management: { edits: [] },
      cache_control: { type: 'ephemeral' },
      inference_geo: 'us',
      speed: 'fast',
      frobnicate: true,
    });
    assert.equal(req.stream, true);
    assert.deepEqual(req.extra, {});
  });

  it('the gateway routing fields work here too', () => {
    const req = decodeMessagesRequest({ ...base, models: ['openai/gpt-4.1'], provider: { only: ['anthropic'] } });
    assert.deepEqual(
      req.models.map((m) => m.model),
      ['anthropic/claude-sonnet-4.5', 'openai/gpt-4.1'],
    );
    assert.deepEqual(req.provider, { only: ['anthropic'] });
  });
});

describe('decodeMessagesRequest: system and messages', () => {
  it('system as a string becomes the first system message; an empty one is nothing', () => {
    const req = decodeMessagesRequest({ ...base, system: 'Be brief.' });
    assert.deepEqual(req.messages[0], { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] });
    assert.equal(decodeMessagesRequest({ ...base, system: '' }).messages.length, 1);
  });

  it('system as blocks keeps each block and its cache_control (ttl too)', () => {
    const req = decodeMessagesRequest({
      ...base,
      system: [
        { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Project rules.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      ],
    });
    assert.deepEqual(req.messages[0], {
      role: 'system',
      content: [
        { type: 'text', text: 'You are Claude Code.', cacheControl: { type: 'ephemeral' } },
        { type: 'text', text: 'Project rules.', cacheControl: { type: 'ephemeral', ttl: '1h' } },
      ],
    });
    assertRequestError(() => decodeMessagesRequest({ ...base, system: [{ type: 'image' }] }), 'invalid_message', 'system[0].type');
    assertRequestError(() => decodeMessagesRequest({ ...base, system: 5 }), 'invalid_parameter', 'system');
  });

  it('a role:"system" entry inside messages stays a system message at its position', () => {
    const req = decodeMessagesRequest({
      ...base,
      messages: [
        { role: 'user', content: 'one' },
        { role: 'system', content: 'Reminder: be careful.' },
        { role: 'user', content: [{ type: 'text', text: 'two' }] },
      ],
    });
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['user', 'system', 'user'],
    );
    assert.deepEqual(req.messages[1], { role: 'system', content: [{ type: 'text', text: 'Reminder: be careful.' }] });
  });

  it('roles other than user, assistant and system are refused', () => {
    assertRequestError(
      () => decodeMessagesRequest({ ...base, messages: [{ role: 'tool', content: 'x' }] }),
      'invalid_message',
      'messages[0].role',
    );
    assertRequestError(() => decodeMessagesRequest({ ...base, messages: [{ content: 'x' }] }), 'invalid_message', 'messages[0].role');
    assertRequestError(() => decodeMessagesRequest({ ...base, messages: [{ role: 'user' }] }), 'invalid_message', 'messages[0].content');
    assertRequestError(
      () => decodeMessagesRequest({ ...base, messages: [{ role: 'user', content: 5 }] }),
      'invalid_message',
      'messages[0].content',
    );
    assertRequestError(() => decodeMessagesRequest({ ...base, messages: ['hi'] }), 'invalid_message', 'messages[0]');
  });

  it('images: base64 becomes a data: URI, url stays a URL, files and bad media types are refused', () => {
    const req = decodeMessagesRequest({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
              cache_control: { type: 'ephemeral' },
            },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            { type: 'text', text: 'What are these?' },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[0]!.content, [
      { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=', cacheControl: { type: 'ephemeral' } },
      { type: 'image', url: 'https://example.com/cat.jpg' },
      { type: 'text', text: 'What are these?' },
    ]);
    const image = (source: unknown) => ({ ...base, messages: [{ role: 'user', content: [{ type: 'image', source }] }] });
    assertRequestError(
      () => decodeMessagesRequest(image({ type: 'base64', media_type: 'image/tiff', data: 'x' })),
      'invalid_message',
      'messages[0].content[0].source.media_type',
    );
    assertRequestError(
      () => decodeMessagesRequest(image({ type: 'base64', media_type: 'image/png' })),
      'invalid_message',
      'messages[0].content[0].source.data',
    );
    assertRequestError(() => decodeMessagesRequest(image({ type: 'file', file_id: 'file_1' })), 'unsupported_content');
    assertRequestError(() => decodeMessagesRequest(image(undefined)), 'invalid_message', 'messages[0].content[0].source');
  });

  it('assistant blocks: text, tool_use (input as JSON text), thinking with signature, redacted_thinking, in order', () => {
    const req = decodeMessagesRequest({
      ...base,
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Need the tool.', signature: 'EsEC-sig' },
            { type: 'redacted_thinking', data: 'ENCRYPTED' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' }, cache_control: { type: 'ephemeral' } },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[1], {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Need the tool.', signature: 'EsEC-sig' },
        { type: 'redacted-reasoning', data: 'ENCRYPTED' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}', cacheControl: { type: 'ephemeral' } },
      ],
    });
  });

  it('a thinking block with an empty signature carries none (it came from a provider without signatures)', () => {
    const req = decodeMessagesRequest({
      ...base,
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm', signature: '' },
            { type: 'text', text: 'ok' },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[1]!.content[0], { type: 'reasoning', text: 'hm' });
  });

  it('an empty assistant string or text block carries nothing', () => {
    const req = decodeMessagesRequest({
      ...base,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '' },
        { role: 'assistant', content: [{ type: 'text', text: '' }] },
      ],
    });
    assert.deepEqual(req.messages[1], { role: 'assistant', content: [] });
    assert.deepEqual(req.messages[2], { role: 'assistant', content: [] });
  });

  it('tool_result blocks become a tool message first, then the rest of the user content; the tool name is found', () => {
    const req = decodeMessagesRequest({
      ...base,
      messages: [
        { role: 'user', content: 'Weather in Oslo and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here you go.' },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '3°C', cache_control: { type: 'ephemeral' } },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'unavailable' }], is_error: true },
          ],
        },
      ],
    });
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['user', 'assistant', 'tool', 'user'],
    );
    assert.deepEqual(req.messages[2], {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'toolu_1', content: '3°C', name: 'get_weather', cacheControl: { type: 'ephemeral' } },
        {
          type: 'tool-result',
          toolCallId: 'toolu_2',
          content: [{ type: 'text', text: 'unavailable' }],
          name: 'get_weather',
          isError: true,
        },
      ],
    });
    assert.deepEqual(req.messages[3], { role: 'user', content: [{ type: 'text', text: 'Here you go.' }] });
  });

  it('a message of tool results only is just the tool message; a result without content is empty text', () => {
    const req = decodeMessagesRequest({
      ...base,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'noop', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1' }] },
      ],
    });
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['user', 'assistant', 'tool'],
    );
    assert.deepEqual(req.messages[2]!.content, [{ type: 'tool-result', toolCallId: 't1', content: '', name: 'noop' }]);
  });

  it('unsupported content types get a clear unsupported_content; blocks in the wrong role are invalid', () => {
    const user = (block: unknown) => ({ ...base, messages: [{ role: 'user', content: [block] }] });
    const assistant = (block: unknown) => ({
      ...base,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [block] },
      ],
    });
    for (const type of ['search_result']) {
      const err = assertRequestError(
        () => decodeMessagesRequest(user({ type, source: {} })),
        'unsupported_content',
        'messages[0].content[0].type',
      );
      assert.match(err.message, new RegExp(type));
    }
    assertRequestError(
      () => decodeMessagesRequest(assistant({ type: 'server_tool_use', id: 'x', name: 'y', input: {} })),
      'unsupported_content',
      'messages[1].content[0].type',
    );
    // An earlier answer's MCP calls, replayed by the assistant, are dropped (docs/tools.md); from the user they are refused.
    for (const type of ['mcp_tool_use', 'mcp_tool_result']) {
      assert.deepEqual(decodeMessagesRequest(assistant({ type, id: 'x', name: 'y', input: {} })).messages[1], {
        role: 'assistant',
        content: [],
      });
      assertRequestError(
        () => decodeMessagesRequest(user({ type, id: 'x', name: 'y', input: {} })),
        'unsupported_content',
        'messages[0].content[0].type',
      );
    }
    assertRequestError(
      () => decodeMessagesRequest(user({ type: 'tool_result', tool_use_id: 't', content: [{ type: 'document' }] })),
      'unsupported_content',
      'messages[0].content[0].content[0].type',
    );
    assertRequestError(() => decodeMessagesRequest(user({ type: 'video' })), 'invalid_message', 'messages[0].content[0].type');
    assertRequestError(
      () => decodeMessagesRequest(user({ type: 'tool_use', id: 'a', name: 'b', input: {} })),
      'invalid_message',
      'messages[0].content[0].type',
    );
    assertRequestError(
      () => decodeMessagesRequest(user({ type: 'thinking', thinking: 'x' })),
      'invalid_message',
      'messages[0].content[0].type',
    );
    assertRequestError(
      () => decodeMessagesRequest(assistant({ type: 'tool_result', tool_use_id: 'a' })),
      'invalid_message',
      'messages[1].content[0].type',
    );
    assertRequestError(
      () => decodeMessagesRequest(assistant({ type: 'image', source: {} })),
      'invalid_message',
      'messages[1].content[0].type',
    );
  });

  it('required block fields are named when missing or mistyped', () => {
    const user = (block: unknown) => ({ ...base, messages: [{ role: 'user', content: [block] }] });
    const assistant = (block: unknown) => ({
      ...base,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [block] },
      ],
    });
    assertRequestError(() => decodeMessagesRequest(user({ type: 'text' })), 'invalid_message', 'messages[0].content[0].text');
    assertRequestError(() => decodeMessagesRequest(user({ text: 'x' })), 'invalid_message', 'messages[0].content[0].type');
    assertRequestError(
      () => decodeMessagesRequest(user({ type: 'tool_result', content: 'x' })),
      'invalid_message',
      'messages[0].content[0].tool_use_id',
    );
    assertRequestError(
      () => decodeMessagesRequest(user({ type: 'tool_result', tool_use_id: 't', is_error: 'yes' })),
      'invalid_message',
      'messages[0].content[0].is_error',
    );
    assertRequestError(
      () => decodeMessagesRequest(assistant({ type: 'tool_use', name: 'f', input: {} })),
      'invalid_message',
      'messages[1].content[0].id',
    );
    assertRequestError(
      () => decodeMessagesRequest(assistant({ type: 'tool_use', id: 'a', name: 'f', input: '{}' })),
      'invalid_message',
      'messages[1].content[0].input',
    );
    assertRequestError(
      () => decodeMessagesRequest(assistant({ type: 'thinking', signature: 's' })),
      'invalid_message',
      'messages[1].content[0].thinking',
    );
    assertRequestError(
      () => decodeMessagesRequest(assistant({ type: 'redacted_thinking' })),
      'invalid_message',
      'messages[1].content[0].data',
    );
  });

  it('at most 4 cache_control blocks, counted over system, tools and messages together', () => {
    const cc = { type: 'ephemeral' };
    const four = {
      ...base,
      system: [{ type: 'text', text: 's', cache_control: cc }],
      tools: [{ ...tool, cache_control: cc }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a', cache_control: cc },
            { type: 'text', text: 'b', cache_control: cc },
          ],
        },
      ],
    };
    assert.doesNotThrow(() => decodeMessagesRequest(four));
    const five = {
      ...four,
      messages: [{ role: 'user', content: [...four.messages[0]!.content, { type: 'text', text: 'c', cache_control: cc }] }],
    };
    assertRequestError(() => decodeMessagesRequest(five), 'too_many_cache_control_blocks', 'messages[0].content[2].cache_control');
    assertRequestError(
      () =>
        decodeMessagesRequest({
          ...base,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'persistent' } }] }],
        }),
      'invalid_message',
      'messages[0].content[0].cache_control.type',
    );
    assertRequestError(
      () =>
        decodeMessagesRequest({
          ...base,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral', ttl: '2h' } }] }],
        }),
      'invalid_message',
      'messages[0].content[0].cache_control.ttl',
    );
  });
});

describe('decodeMessagesRequest: tools and tool_choice', () => {
  it('custom tools: input_schema → parameters, cache_control kept, unknown fields ignored', () => {
    const req = decodeMessagesRequest({
      ...base,
      tools: [
        { ...tool, cache_control: { type: 'ephemeral' }, defer_loading: false, eager_input_streaming: true, input_examples: [] },
        { type: 'custom', name: 'noop' },
      ],
    });
    assert.deepEqual(req.tools, [
      { name: 'get_weather', description: 'Weather', parameters: tool.input_schema, cacheControl: { type: 'ephemeral' } },
      { name: 'noop', parameters: { type: 'object', properties: {} } },
    ]);
  });

  it('versioned server tools are dropped; no tools left means no tools', () => {
    const req = decodeMessagesRequest({ ...base, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }, tool] });
    assert.deepEqual(
      req.tools!.map((t) => t.name),
      ['get_weather'],
    );
    assert.equal('tools' in decodeMessagesRequest({ ...base, tools: [{ type: 'bash_20250124', name: 'bash' }] }), false);
  });

  it('malformed tools are refused, naming the field', () => {
    assertRequestError(() => decodeMessagesRequest({ ...base, tools: {} }), 'invalid_parameter', 'tools');
    assertRequestError(() => decodeMessagesRequest({ ...base, tools: [{ input_schema: {} }] }), 'missing_parameter', 'tools[0].name');
    assertRequestError(() => decodeMessagesRequest({ ...base, tools: [{ name: '' }] }), 'invalid_parameter', 'tools[0].name');
    assertRequestError(
      () => decodeMessagesRequest({ ...base, tools: [{ name: 'f', input_schema: 'object' }] }),
      'invalid_parameter',
      'tools[0].input_schema',
    );
    assertRequestError(
      () => decodeMessagesRequest({ ...base, tools: [{ name: 'f', cache_control: { type: 'x' } }] }),
      'invalid_parameter',
      'tools[0].cache_control.type',
    );
  });

  it('tool_choice: auto, any → required, tool → named, none; disable_parallel_tool_use ignored', () => {
    const choice = (tool_choice: unknown) => decodeMessagesRequest({ ...base, tools: [tool], tool_choice });
    assert.deepEqual(choice({ type: 'auto', disable_parallel_tool_use: true }).toolChoice, { type: 'auto' });
    assert.deepEqual(choice({ type: 'any' }).toolChoice, { type: 'required' });
    assert.deepEqual(choice({ type: 'tool', name: 'get_weather' }).toolChoice, { type: 'tool', name: 'get_weather' });
    assert.deepEqual(choice({ type: 'none' }).toolChoice, { type: 'none' });
    assert.equal(choice({ type: 'auto', disable_parallel_tool_use: true }).parallelToolCalls, undefined);
    assertRequestError(() => choice('auto'), 'invalid_parameter', 'tool_choice');
    assertRequestError(() => choice({ type: 'required' }), 'invalid_parameter', 'tool_choice.type');
    assertRequestError(() => choice({ type: 'tool' }), 'missing_parameter', 'tool_choice.name');
  });

  it('a forced tool_choice needs the tool it forces: tool must name one of tools, any needs tools', () => {
    const decode = (extra: Record<string, unknown>) => decodeMessagesRequest({ ...base, ...extra });
    assertRequestError(
      () => decode({ tools: [tool], tool_choice: { type: 'tool', name: 'get_time' } }),
      'invalid_parameter',
      'tool_choice',
    );
    assert.throws(() => decode({ tools: [tool], tool_choice: { type: 'tool', name: 'get_time' } }), /"get_time", which is not in 'tools'/);
    assertRequestError(() => decode({ tool_choice: { type: 'tool', name: 'get_weather' } }), 'invalid_parameter', 'tool_choice');
    assertRequestError(() => decode({ tool_choice: { type: 'any' } }), 'invalid_parameter', 'tool_choice');
    assert.throws(
      () => decode({ tools: [], tool_choice: { type: 'any' } }),
      /\{type: 'any'\} forces a tool call, but the request has no 'tools'/,
    );
    // Not forcing needs no tools; forcing a server tool the gateway dropped falls back to auto.
    assert.deepEqual(decode({ tool_choice: { type: 'auto' } }).toolChoice, { type: 'auto' });
    assert.deepEqual(decode({ tool_choice: { type: 'none' } }).toolChoice, { type: 'none' });
    const server = { type: 'web_search_20250305', name: 'web_search' };
    assert.deepEqual(decode({ tools: [tool, server], tool_choice: { type: 'tool', name: 'web_search' } }).toolChoice, { type: 'auto' });
    assert.deepEqual(decode({ tools: [server], tool_choice: { type: 'any' } }).toolChoice, { type: 'auto' });
  });
});

describe('decodeMessagesRequest: thinking', () => {
  it('enabled with budget_tokens → reasoning on with that budget', () => {
    const req = decodeMessagesRequest({ ...base, max_tokens: 16000, thinking: { type: 'enabled', budget_tokens: 10000 } });
    assert.deepEqual(req.reasoning, { enabled: true, maxTokens: 10000 });
  });

  it('the budget may exceed max_tokens (interleaved thinking with tools and tool_choice auto)', () => {
    const req = decodeMessagesRequest({
      ...base,
      max_tokens: 4096,
      tools: [tool],
      tool_choice: { type: 'auto' },
      thinking: { type: 'enabled', budget_tokens: 20000 },
    });
    assert.deepEqual(req.reasoning, { enabled: true, maxTokens: 20000 });
  });

  it('adaptive → reasoning on, effort from output_config; display omitted → exclude', () => {
    const req = decodeMessagesRequest({ ...base, thinking: { type: 'adaptive', display: 'omitted' }, output_config: { effort: 'medium' } });
    assert.deepEqual(req.reasoning, { enabled: true, effort: 'medium', exclude: true });
    assert.deepEqual(decodeMessagesRequest({ ...base, thinking: { type: 'adaptive' } }).reasoning, { enabled: true });
  });

  it('disabled → reasoning off; effort alone does not switch reasoning on', () => {
    assert.deepEqual(decodeMessagesRequest({ ...base, thinking: { type: 'disabled' } }).reasoning, { enabled: false });
    assert.equal(decodeMessagesRequest({ ...base, output_config: { effort: 'high' } }).reasoning, undefined);
  });

  it('bad thinking objects are refused', () => {
    assertRequestError(
      () => decodeMessagesRequest({ ...base, thinking: { type: 'enabled' } }),
      'missing_parameter',
      'thinking.budget_tokens',
    );
    assertRequestError(
      () => decodeMessagesRequest({ ...base, thinking: { type: 'enabled', budget_tokens: 0 } }),
      'invalid_parameter',
      'thinking.budget_tokens',
    );
    assertRequestError(() => decodeMessagesRequest({ ...base, thinking: { type: 'on' } }), 'invalid_parameter', 'thinking.type');
    assertRequestError(() => decodeMessagesRequest({ ...base, thinking: true }), 'invalid_parameter', 'thinking');
    assertRequestError(
      () => decodeMessagesRequest({ ...base, thinking: { type: 'adaptive' }, output_config: { effort: 'extreme' } }),
      'invalid_parameter',
      'output_config.effort',
    );
  });

  it('top_k and a forced tool_choice are refused while thinking is on, not otherwise', () => {
    const thinking = { type: 'enabled', budget_tokens: 2048 };
    assertRequestError(() => decodeMessagesRequest({ ...base, thinking, top_k: 5 }), 'reasoning_conflict', 'top_k');
    assertRequestError(() => decodeMessagesRequest({ ...base, thinking: { type: 'adaptive' }, top_k: 5 }), 'reasoning_conflict', 'top_k');
    assertRequestError(
      () => decodeMessagesRequest({ ...base, thinking, tools: [tool], tool_choice: { type: 'any' } }),
      'reasoning_conflict',
      'tool_choice',
    );
    assertRequestError(
      () => decodeMessagesRequest({ ...base, thinking, tools: [tool], tool_choice: { type: 'tool', name: 'get_weather' } }),
      'reasoning_conflict',
      'tool_choice',
    );
    assert.doesNotThrow(() => decodeMessagesRequest({ ...base, thinking, tools: [tool], tool_choice: { type: 'none' } }));
    assert.doesNotThrow(() =>
      decodeMessagesRequest({ ...base, thinking: { type: 'disabled' }, top_k: 5, tools: [tool], tool_choice: { type: 'any' } }),
    );
  });

  it('output_config.format json_schema → structured output', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    assert.deepEqual(decodeMessagesRequest({ ...base, output_config: { format: { type: 'json_schema', schema } } }).responseFormat, {
      type: 'json_schema',
      name: 'output',
      schema,
    });
    assertRequestError(
      () => decodeMessagesRequest({ ...base, output_config: { format: { type: 'json_schema' } } }),
      'missing_parameter',
      'output_config.format.schema',
    );
    assertRequestError(
      () => decodeMessagesRequest({ ...base, output_config: { format: { type: 'xml' } } }),
      'invalid_parameter',
      'output_config.format.type',
    );
  });
});

describe('decodeMessagesRequest: document blocks', () => {
  const user = (...content: unknown[]) => decodeMessagesRequest({ ...base, messages: [{ role: 'user', content }] });
  it('a base64 PDF becomes a file part named by its title, and is counted; text and URL documents are not counted', () => {
    const req = user(
      {
        type: 'document',
        title: 'r.pdf',
        source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' },
        cache_control: { type: 'ephemeral' },
      },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello' } },
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
    );
    assert.deepEqual(req.messages[0]!.content, [
      { type: 'file', data: 'JVBERi0xLjQK', mediaType: 'application/pdf', filename: 'r.pdf', cacheControl: { type: 'ephemeral' } },
      { type: 'file', data: Buffer.from('hello').toString('base64'), mediaType: 'text/plain' },
      { type: 'file', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
    ]);
    assert.equal(req.inlinePdfs, 1);
    assert.equal(decodeMessagesRequest(base).inlinePdfs, undefined);
  });

  it('refuses a document without a source, of another media type, or from uploaded content', () => {
    assertRequestError(() => user({ type: 'document' }), 'invalid_message', 'messages[0].content[0].source');
    assertRequestError(
      () => user({ type: 'document', source: { type: 'base64', media_type: 'image/png', data: 'x' } }),
      'invalid_message',
      'messages[0].content[0].source.media_type',
    );
    assertRequestError(
      () => user({ type: 'document', source: { type: 'content', content: [] } }),
      'unsupported_content',
      'messages[0].content[0].source.type',
    );
    assertRequestError(
      () => user({ type: 'document', source: { type: 'url', url: 'ftp://x' } }),
      'invalid_message',
      'messages[0].content[0].source.url',
    );
  });
});
