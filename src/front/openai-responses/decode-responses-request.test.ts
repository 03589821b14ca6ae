import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import { assertRequestError } from '../shared/assert-gateway-error.ts';

const MODEL = 'openai/gpt-5';
const decode = (fields: Record<string, unknown>) => decodeResponsesRequest({ model: MODEL, input: 'hi', ...fields });
const FN = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe('decodeResponsesRequest: input', () => {
  it('a string input is one user message; instructions lead as a system message', () => {
    const req = decodeResponsesRequest({ model: MODEL, input: 'Hello', instructions: 'Be brief.' });
    assert.deepEqual(req.messages, [
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
    ]);
    assert.deepEqual(req.models, [{ model: MODEL }]);
    assert.equal(req.stream, false);
  });

  it('developer and system messages stay system messages at their position', () => {
    const req = decode({
      input: [
        { role: 'developer', content: [{ type: 'input_text', text: 'rules' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q1' }] },
        { role: 'system', content: 'mid-conversation note' },
        { role: 'user', content: 'q2' },
      ],
    });
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['system', 'user', 'system', 'user'],
    );
    assert.deepEqual(req.messages[2]!.content, [{ type: 'text', text: 'mid-conversation note' }]);
  });

  it('user parts: text, image (URL and data URI), inline file, audio', () => {
    const req = decode({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: 'https://x.test/a.png', detail: 'high' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
            { type: 'input_file', file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' },
            { type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[0]!.content, [
      { type: 'text', text: 'look' },
      { type: 'image', url: 'https://x.test/a.png', detail: 'high' },
      { type: 'image', url: 'data:image/png;base64,AAAA' },
      { type: 'file', data: 'data:application/pdf;base64,JVBE', mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'audio', data: 'UklG', format: 'wav' },
    ]);
  });

  it('an assistant turn (reasoning, text, function calls) becomes one assistant message; outputs one tool message', () => {
    const req = decode({
      input: [
        { role: 'user', content: 'weather in Oslo and Rome?' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two cities.' }], encrypted_content: 'SIG' },
        { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' },
        { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_a', output: '3C' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: '20C' }] },
      ],
    });
    assert.deepEqual(req.messages.slice(1), [
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Two cities.', signature: 'SIG' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'tool-call', id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_a', name: 'get_weather', content: '3C' },
          { type: 'tool-result', toolCallId: 'call_b', name: 'get_weather', content: [{ type: 'text', text: '20C' }] },
        ],
      },
    ]);
  });

  it("the spec's function_call content part inside an assistant message is a tool call too", () => {
    const req = decode({
      input: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'function_call', function_call: { id: 'call_x', name: 'f', arguments: '{}' } }] },
        { type: 'function_call_output', call_id: 'call_x', output: 'ok' },
      ],
    });
    assert.deepEqual(req.messages[1], { role: 'assistant', content: [{ type: 'tool-call', id: 'call_x', name: 'f', arguments: '{}' }] });
    assert.deepEqual(req.messages[2], { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_x', name: 'f', content: 'ok' }] });
  });

  it('reasoning items: redacted data comes back as redacted reasoning; raw content wins over summaries; empty ones carry nothing', () => {
    const req = decode({
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', summary: [], encrypted_content: 'redacted_thinking:OPAQUE' },
        {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'short' }],
          content: [{ type: 'reasoning_text', text: 'full thought' }],
          encrypted_content: 'S2',
        },
        {
          type: 'reasoning',
          summary: [
            { type: 'summary_text', text: 'a' },
            { type: 'summary_text', text: 'b' },
          ],
        },
        { type: 'reasoning', summary: [], encrypted_content: null },
        { role: 'assistant', content: 'answer' },
      ],
    });
    assert.deepEqual(req.messages[1], {
      role: 'assistant',
      content: [
        { type: 'redacted-reasoning', data: 'OPAQUE' },
        { type: 'reasoning', text: 'full thought', signature: 'S2' },
        { type: 'reasoning', text: 'a\n\nb' },
        { type: 'text', text: 'answer' },
      ],
    });
  });

  it('hosted-tool items are dropped; an empty assistant text leaves no message', () => {
    const req = decode({
      input: [
        { role: 'user', content: 'q' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'again' },
      ],
    });
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['user', 'user'],
    );
  });

  it('the last configuration_update in the input sets the format and the reasoning effort', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const req = decode({
      text: { format: { type: 'json_object' } },
      reasoning: { effort: 'high' },
      input: [
        { role: 'user', content: 'q1' },
        { type: 'configuration_update', text: { format: { type: 'text' } } },
        { role: 'assistant', content: 'a1' },
        { type: 'configuration_update', text: { format: { type: 'json_schema', name: 'n', schema } }, reasoning: { effort: 'low' } },
        { role: 'user', content: 'q2' },
      ],
    });
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.deepEqual(req.responseFormat, { type: 'json_schema', name: 'n', schema });
    assert.deepEqual(req.reasoning, { effort: 'low' });
    assertRequestError(
      () =>
        decode({
          input: [
            { role: 'user', content: 'q' },
            { type: 'configuration_update', reasoning: { effort: 'max-ish' } },
          ],
        }),
      'invalid_parameter',
      'input[1].reasoning.effort',
    );
  });

  it('input errors name the exact path', () => {
    assertRequestError(() => decodeResponsesRequest({ model: MODEL }), 'missing_parameter', 'input');
    assertRequestError(() => decode({ input: [] }), 'invalid_parameter', 'input');
    assertRequestError(() => decode({ input: 42 }), 'invalid_parameter', 'input');
    assertRequestError(() => decode({ input: [{ role: 'robot', content: 'x' }] }), 'invalid_message', 'input[0].role');
    assertRequestError(
      () => decode({ input: [{ role: 'user', content: [{ type: 'video' }] }] }),
      'invalid_message',
      'input[0].content[0].type',
    );
    assertRequestError(
      () => decode({ input: [{ role: 'user', content: [{ type: 'input_text' }] }] }),
      'invalid_message',
      'input[0].content[0].text',
    );
    assertRequestError(
      () => decode({ input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }),
      'invalid_message',
      'input[0].call_id',
    );
    assertRequestError(
      () => decode({ input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }] }),
      'invalid_message',
      'input[0].arguments',
    );
    assertRequestError(() => decode({ input: [{ type: 'function_call_output', call_id: 'c' }] }), 'invalid_message', 'input[0].output');
    assertRequestError(() => decode({ input: [{ type: 'teleport' }] }), 'invalid_message', 'input[0].type');
    assertRequestError(
      () => decode({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x' }] }] }),
      'invalid_message',
      'input[0].content[0].image_url',
    );
    assertRequestError(
      () => decode({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] }),
      'unsupported_content',
      'input[0].content[0].file_id',
    );
    assertRequestError(
      () => decode({ input: [{ role: 'developer', content: [{ type: 'input_image', image_url: 'https://x.test/a.png' }] }] }),
      'invalid_message',
      'input[0].content[0].type',
    );
  });
});

describe('decodeResponsesRequest: stateless', () => {
  it('previous_response_id, store: true, conversation, background and item references are 400s that say why', () => {
    for (const [fields, param] of [
      [{ previous_response_id: 'resp_1' }, 'previous_response_id'],
      [{ store: true }, 'store'],
      [{ conversation: 'conv_1' }, 'conversation'],
      [{ background: true }, 'background'],
      [{ prompt: { id: 'pmpt_1' } }, 'prompt'],
      [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0]'],
    ] as const) {
      const err = assertRequestError(() => decode(fields), 'invalid_parameter', param);
      assert.match(err.message, /stateless|stored/);
    }
  });

  it('an item reference says how to avoid it: send whole items (the AI SDK: providerOptions.openai.store = false)', () => {
    const err = assertRequestError(
      () =>
        decode({
          input: [
            { role: 'user', content: 'hi' },
            { type: 'item_reference', id: 'rs_1' },
          ],
        }),
      'invalid_parameter',
      'input[1]',
    );
    assert.match(err.message, /send the whole items/);
    assert.match(err.message, /providerOptions\.openai\.store = false/);
  });

  it('store: false and a null previous_response_id are fine', () => {
    assert.equal(decode({ store: false, previous_response_id: null }).messages.length, 1);
  });
});

describe('decodeResponsesRequest: tools and formats', () => {
  it('flat and nested function tools are kept; hosted, custom and namespace tools are dropped', () => {
    const req = decode({
      tools: [
        FN,
        { type: 'web_search', external_web_access: false },
        { type: 'namespace', name: 'multi_agent_v1', tools: [{ type: 'function', name: 'spawn', parameters: { type: 'object' } }] },
        { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } },
        { type: 'function', function: { name: 'nested', description: 'd', parameters: { type: 'object' } }, strict: true },
        { type: 'function', name: 'no_params', strict: false },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    assert.deepEqual(req.tools, [
      { name: 'get_weather', parameters: FN.parameters },
      { name: 'nested', description: 'd', parameters: { type: 'object' } },
      { name: 'no_params', parameters: { type: 'object', properties: {} }, strict: false },
    ]);
    assert.deepEqual(req.toolChoice, { type: 'auto' });
    assert.equal(req.parallelToolCalls, false);
  });

  it('when every tool is dropped, no tools, tool_choice or parallel_tool_calls reach the provider', () => {
    const req = decode({ tools: [{ type: 'web_search' }], tool_choice: 'required', parallel_tool_calls: true });
    assert.equal(req.tools, undefined);
    assert.equal(req.toolChoice, undefined);
    assert.equal(req.parallelToolCalls, undefined);
  });

  it('a forced tool_choice needs the tool it forces: a named function in tools, required with tools', () => {
    assertRequestError(
      () => decode({ tools: [FN], tool_choice: { type: 'function', name: 'get_time' } }),
      'invalid_parameter',
      'tool_choice',
    );
    assert.throws(
      () => decode({ tools: [FN], tool_choice: { type: 'function', name: 'get_time' } }),
      /"get_time", which is not in 'tools'/,
    );
    assertRequestError(() => decode({ tool_choice: { type: 'function', name: 'get_weather' } }), 'invalid_parameter', 'tool_choice');
    assertRequestError(() => decode({ tool_choice: 'required' }), 'invalid_parameter', 'tool_choice');
    assertRequestError(() => decode({ tools: [], tool_choice: 'required' }), 'invalid_parameter', 'tool_choice');
    assertRequestError(
      () => decode({ tool_choice: { type: 'allowed_tools', mode: 'required', tools: [] } }),
      'invalid_parameter',
      'tool_choice',
    );
    // Not forcing needs no tools; a tool the gateway dropped (a namespace's function, a custom tool) falls back to auto.
    assert.equal(decode({ tool_choice: 'auto' }).toolChoice, undefined);
    const namespace = {
      type: 'namespace',
      name: 'multi_agent_v1',
      tools: [{ type: 'function', name: 'spawn', parameters: { type: 'object' } }],
    };
    assert.deepEqual(decode({ tools: [FN, namespace], tool_choice: { type: 'function', name: 'spawn' } }).toolChoice, { type: 'auto' });
    assert.deepEqual(
      decode({ tools: [FN, { type: 'custom', name: 'apply_patch' }], tool_choice: { type: 'function', name: 'apply_patch' } }).toolChoice,
      { type: 'auto' },
    );
  });

  it('tool_choice: modes, a named function, allowed_tools, and a hosted tool falling back to auto', () => {
    const other = { type: 'function', name: 'other', parameters: { type: 'object' } };
    assert.deepEqual(decode({ tools: [FN], tool_choice: 'none' }).toolChoice, { type: 'none' });
    assert.deepEqual(decode({ tools: [FN], tool_choice: 'required' }).toolChoice, { type: 'required' });
    assert.deepEqual(decode({ tools: [FN], tool_choice: { type: 'function', name: 'get_weather' } }).toolChoice, {
      type: 'tool',
      name: 'get_weather',
    });
    assert.deepEqual(decode({ tools: [FN], tool_choice: { type: 'web_search' } }).toolChoice, { type: 'auto' });
    const allowed = decode({
      tools: [FN, other],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'other' }] },
    });
    assert.deepEqual(
      allowed.tools!.map((t) => t.name),
      ['other'],
    );
    assert.deepEqual(allowed.toolChoice, { type: 'required' });
    assertRequestError(() => decode({ tools: [FN], tool_choice: 'sometimes' }), 'invalid_parameter', 'tool_choice');
    assertRequestError(() => decode({ tools: [FN], tool_choice: { type: 'function' } }), 'missing_parameter', 'tool_choice.name');
    assertRequestError(() => decode({ tools: [{ type: 'function' }] }), 'missing_parameter', 'tools[0].name');
    assertRequestError(() => decode({ tools: [{ name: 'x' }] }), 'missing_parameter', 'tools[0].type');
    assertRequestError(() => decode({ tools: 'all' }), 'invalid_parameter', 'tools');
  });

  it('text.format is flat; response_format is accepted too; text.format wins', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    assert.deepEqual(decode({ text: { format: { type: 'json_schema', name: 'thing', schema, strict: true } } }).responseFormat, {
      type: 'json_schema',
      name: 'thing',
      schema,
      strict: true,
    });
    assert.deepEqual(decode({ response_format: { type: 'json_object' } }).responseFormat, { type: 'json_object' });
    assert.deepEqual(decode({ response_format: { type: 'json_schema', json_schema: { name: 'n', schema } } }).responseFormat, {
      type: 'json_schema',
      name: 'n',
      schema,
    });
    assert.deepEqual(decode({ text: { format: { type: 'text' } }, response_format: { type: 'json_object' } }).responseFormat, {
      type: 'text',
    });
    assert.equal(decode({ text: { verbosity: 'low' } }).extra.verbosity, 'low');
    assertRequestError(() => decode({ text: { format: { type: 'json_schema', schema } } }), 'missing_parameter', 'text.format.name');
    assertRequestError(() => decode({ text: { format: { type: 'yaml' } } }), 'invalid_parameter', 'text.format.type');
  });
});

describe('decodeResponsesRequest: parameters', () => {
  it('sampling, limits, stops, routing and tracking fields map to the canonical request', () => {
    const req = decode({
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
      seed: 7,
      max_output_tokens: 300,
      stop: 'END',
      metadata: { run: '42' },
      user: 'u1',
      prompt_cache_key: 'k',
      provider: { order: ['a'], allow_fallbacks: false },
      modalities: ['text'],
      mcp: { servers: [{ name: 's' }] },
      include: ['reasoning.encrypted_content'],
      truncation: 'auto',
      service_tier: 'flex',
      client_metadata: { x: 1 },
      frobnicate: true,
    });
    assert.deepEqual(req.sampling, { temperature: 0.3, topP: 0.9, topK: 40, frequencyPenalty: 0.5, presencePenalty: -0.5, seed: 7 });
    assert.equal(req.maxOutputTokens, 300);
    assert.deepEqual(req.stop, ['END']);
    assert.deepEqual(req.metadata, { run: '42' });
    assert.equal(req.user, 'u1');
    assert.equal(req.promptCacheKey, 'k');
    assert.deepEqual(req.provider, { order: ['a'], allowFallbacks: false });
    assert.deepEqual(req.modalities, ['text']);
    assert.deepEqual(req.extra, { service_tier: 'flex' });
    assert.deepEqual(req.mcp, [{ name: 's', form: 'spec' }]);
    assert.equal('frobnicate' in req, false);
  });

  it('range and type errors name the field', () => {
    assertRequestError(() => decode({ temperature: 3 }), 'invalid_parameter', 'temperature');
    assertRequestError(() => decode({ top_p: 1.5 }), 'invalid_parameter', 'top_p');
    assertRequestError(() => decode({ max_output_tokens: 0 }), 'invalid_parameter', 'max_output_tokens');
    assertRequestError(() => decode({ frequency_penalty: -3 }), 'invalid_parameter', 'frequency_penalty');
    assertRequestError(() => decode({ stop: [1] }), 'invalid_parameter', 'stop[0]');
    assertRequestError(() => decode({ metadata: { a: 1 } }), 'invalid_parameter', 'metadata.a');
    assertRequestError(() => decode({ include: 'all' }), 'invalid_parameter', 'include');
    assertRequestError(() => decode({ truncation: 'sometimes' }), 'invalid_parameter', 'truncation');
    assertRequestError(() => decode({ reasoning: { effort: 'extreme' } }), 'invalid_parameter', 'reasoning.effort');
  });

  it('reasoning: effort (minimal included), budget and exclude; a summary setting alone asks for nothing', () => {
    assert.deepEqual(decode({ reasoning: { effort: 'minimal', summary: 'auto' } }).reasoning, { effort: 'minimal' });
    assert.deepEqual(decode({ reasoning: { max_tokens: 2048, exclude: true } }).reasoning, { maxTokens: 2048, exclude: true });
    assert.equal(decode({ reasoning: { summary: 'auto' } }).reasoning, undefined);
  });

  it('with reasoning on, top_k and a forced tool choice are refused, as on the chat endpoint', () => {
    assertRequestError(() => decode({ reasoning: { effort: 'high' }, top_k: 5 }), 'reasoning_conflict', 'top_k');
    assertRequestError(
      () => decode({ reasoning: { effort: 'high' }, tools: [FN], tool_choice: 'required' }),
      'reasoning_conflict',
      'tool_choice',
    );
    assert.deepEqual(decode({ reasoning: { effort: 'none' }, top_k: 5 }).sampling, { topK: 5 });
  });

  it('a body that is not an object is invalid_json', () => {
    assertRequestError(() => decodeResponsesRequest([1]), 'invalid_json');
  });
});

describe('decodeResponsesRequest: inline PDFs counted', () => {
  it('counts input_file PDFs sent inline; absent without one', () => {
    const file = (file_data: string) => ({ type: 'input_file', filename: 'a.pdf', file_data });
    const req = decode({
      input: [{ role: 'user', content: [file('data:application/pdf;base64,JVBERi0xLjQK'), file('data:text/plain;base64,aGk=')] }],
    });
    assert.equal(req.inlinePdfs, 1);
    assert.equal(decode({}).inlinePdfs, undefined);
  });
});
