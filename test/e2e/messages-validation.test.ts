import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Every rule of the spec's messages request table, over HTTP: a violation is a 400 in
// Anthropic's envelope, with the catalogue's code and a message naming the field; what real
// clients send beyond the table is accepted.

const msgs = [{ role: 'user', content: 'hi' }];
const base = { model: 'switchyard/sim-fast', max_tokens: 64, messages: msgs };
const tool = { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
const thinking = { type: 'enabled', budget_tokens: 1024 };
const userBlock = (block: unknown) => ({ ...base, messages: [{ role: 'user', content: [block] }] });
const assistantBlock = (block: unknown) => ({
  ...base,
  messages: [
    { role: 'user', content: 'x' },
    { role: 'assistant', content: [block] },
    { role: 'user', content: 'y' },
  ],
});
const cc = { type: 'ephemeral' };

// [what, body, expected code, a word the message must contain]
const CASES: Array<[string, unknown, string, string]> = [
  ['malformed JSON', '{"model": ', 'invalid_json', 'JSON'],
  ['a JSON array body', '[1,2]', 'invalid_json', 'object'],
  ['missing max_tokens', { model: 'switchyard/sim-fast', messages: msgs }, 'missing_parameter', 'max_tokens'],
  ['max_tokens of 0', { ...base, max_tokens: 0 }, 'invalid_parameter', 'max_tokens'],
  ['missing messages', { model: 'switchyard/sim-fast', max_tokens: 64 }, 'missing_parameter', 'messages'],
  ['empty messages', { ...base, messages: [] }, 'invalid_parameter', 'messages'],
  ['a bad role', { ...base, messages: [{ role: 'tool', content: 'x' }] }, 'invalid_message', 'role'],
  ['a message without content', { ...base, messages: [{ role: 'user' }] }, 'invalid_message', 'content'],
  ['system of the wrong type', { ...base, system: 42 }, 'invalid_parameter', 'system'],
  ['temperature above 2', { ...base, temperature: 2.5 }, 'invalid_parameter', 'temperature'],
  ['top_p above 1', { ...base, top_p: 1.5 }, 'invalid_parameter', 'top_p'],
  ['a negative top_k', { ...base, top_k: -1 }, 'invalid_parameter', 'top_k'],
  ['stop_sequences not an array', { ...base, stop_sequences: 'STOP' }, 'invalid_parameter', 'stop_sequences'],
  ['tools not an array', { ...base, tools: { get_weather: {} } }, 'invalid_parameter', 'tools'],
  ['a tool without a name', { ...base, tools: [{ input_schema: { type: 'object' } }] }, 'missing_parameter', 'name'],
  [
    'a tool with a non-object input_schema',
    { ...base, tools: [{ name: 'f', input_schema: 'object' }] },
    'invalid_parameter',
    'input_schema',
  ],
  ['a tool_choice string', { ...base, tools: [tool], tool_choice: 'any' }, 'invalid_parameter', 'tool_choice'],
  ['an unknown tool_choice type', { ...base, tools: [tool], tool_choice: { type: 'required' } }, 'invalid_parameter', 'tool_choice'],
  ['tool_choice tool without a name', { ...base, tools: [tool], tool_choice: { type: 'tool' } }, 'missing_parameter', 'tool_choice.name'],
  ['thinking enabled without budget_tokens', { ...base, thinking: { type: 'enabled' } }, 'missing_parameter', 'budget_tokens'],
  ['an unknown thinking type', { ...base, thinking: { type: 'sometimes' } }, 'invalid_parameter', 'thinking.type'],
  ['top_k with thinking enabled', { ...base, top_k: 5, thinking }, 'reasoning_conflict', 'top_k'],
  ['top_k with adaptive thinking', { ...base, top_k: 5, thinking: { type: 'adaptive' } }, 'reasoning_conflict', 'top_k'],
  [
    'tool_choice any with thinking',
    { ...base, thinking, tools: [tool], tool_choice: { type: 'any' } },
    'reasoning_conflict',
    'tool_choice',
  ],
  [
    'tool_choice tool with thinking',
    { ...base, thinking, tools: [tool], tool_choice: { type: 'tool', name: 'get_weather' } },
    'reasoning_conflict',
    'tool_choice',
  ],
  ['metadata.user_id not a string', { ...base, metadata: { user_id: 42 } }, 'invalid_parameter', 'user_id'],
  [
    'a document from an uploaded file',
    userBlock({ type: 'document', source: { type: 'file', file_id: 'file_1' } }),
    'unsupported_content',
    'file',
  ],
  [
    'a document of a media type other than PDF',
    userBlock({ type: 'document', source: { type: 'base64', media_type: 'application/msword', data: 'AAAA' } }),
    'invalid_message',
    'media_type',
  ],
  [
    'a search_result block',
    userBlock({ type: 'search_result', source: 'https://example.com', title: 't', content: [] }),
    'unsupported_content',
    'search_result',
  ],
  [
    'a server_tool_use block',
    assistantBlock({ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
    'unsupported_content',
    'server_tool_use',
  ],
  // From the assistant, an earlier answer's MCP call replayed, it is dropped (docs/tools.md); from the user it is refused.
  [
    'an mcp_tool_use block from the user',
    userBlock({ type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'x', server_name: 's', input: {} }),
    'unsupported_content',
    'mcp_tool_use',
  ],
  [
    'an image from an uploaded file',
    userBlock({ type: 'image', source: { type: 'file', file_id: 'file_1' } }),
    'unsupported_content',
    'file',
  ],
  [
    'an image of an unsupported media type',
    userBlock({ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'Qk0=' } }),
    'invalid_message',
    'media_type',
  ],
  ['an unknown block type', userBlock({ type: 'video', url: 'x' }), 'invalid_message', 'type'],
  ['a tool_use block from the user', userBlock({ type: 'tool_use', id: 't', name: 'f', input: {} }), 'invalid_message', 'type'],
  ['a tool_result without tool_use_id', userBlock({ type: 'tool_result', content: 'x' }), 'invalid_message', 'tool_use_id'],
  ['a text block without text', userBlock({ type: 'text' }), 'invalid_message', 'text'],
  [
    'five cache_control blocks',
    {
      ...base,
      system: [{ type: 'text', text: 's', cache_control: cc }],
      tools: [{ ...tool, cache_control: cc }],
      messages: [{ role: 'user', content: [1, 2, 3].map((n) => ({ type: 'text', text: `p${n}`, cache_control: cc })) }],
    },
    'too_many_cache_control_blocks',
    'cache_control',
  ],
  [
    'a cache_control type other than ephemeral',
    userBlock({ type: 'text', text: 'x', cache_control: { type: 'permanent' } }),
    'invalid_message',
    'cache_control',
  ],
  ['an unknown model', { ...base, model: 'nobody/nothing' }, 'model_not_found', 'nobody/nothing'],
];

describe('messages request validation over HTTP', () => {
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    gw = await startTestGateway();
    auth = { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' };
  });
  after(() => gw.close());

  for (const [what, body, code, word] of CASES) {
    test(`${what} → 400 ${code}`, async () => {
      const res = await postJson(`${gw.origin}/v1/messages`, body, auth);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.type, 'error');
      assert.equal(res.json.error.type, 'invalid_request_error');
      assert.equal(res.json.error.code, code);
      assert.ok(res.json.error.message.toLowerCase().includes(word.toLowerCase()), `message "${res.json.error.message}" names ${word}`);
    });
  }

  test("what real clients send beyond the table is accepted (Claude Code's request shape)", async () => {
    const res = await postJson(
      `${gw.origin}/v1/messages?beta=true`,
      {
        model: 'switchyard/sim-reasoner',
        max_tokens: 32000,
        stream: false,
        system: [
          { type: 'text', text: 'You are Claude Code.', cache_control: cc },
          { type: 'text', text: 'Answer briefly.', cache_control: cc },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'say pong', cache_control: cc }] },
          { role: 'system', content: 'The user is in a hurry.' },
        ],
        tools: [
          {
            name: 'Bash',
            description: 'Run a command',
            input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
            eager_input_streaming: true,
          },
          { name: 'DeferredToolPlaceholder', description: 'x', input_schema: { type: 'object', properties: {} }, defer_loading: true },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
        ],
        metadata: { user_id: JSON.stringify({ device_id: 'd', account_uuid: '', session_id: 's' }) },
        thinking: { type: 'adaptive', display: 'omitted' },
        output_config: { effort: 'medium' },
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        temperature: 1,
      },
      { ...auth, 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14', 'x-app': 'cli' },
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.type, 'message');
    // display: omitted: the thinking block is there for replay, without its text.
    const thinkingBlocks = res.json.content.filter((b: any) => b.type === 'thinking');
    assert.equal(thinkingBlocks.length, 1);
    assert.equal(thinkingBlocks[0].thinking, '');
    assert.ok(thinkingBlocks[0].signature.length > 0);
  });

  test('top_k without thinking is accepted (and ignored)', async () => {
    const res = await postJson(`${gw.origin}/v1/messages`, { ...base, top_k: 40 }, auth);
    assert.equal(res.status, 200, res.text);
  });
});
