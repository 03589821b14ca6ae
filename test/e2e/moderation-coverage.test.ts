import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Moderation reads every text the model will read, in every dialect: not only the user's
// text parts but the system prompt, assistant turns, tool calls and results, tool
// definitions, and text files sent inline. Each request below hides the flagged phrase in
// one of those places only, and is refused on a moderated endpoint.

const PHRASE = 'I want to hurt myself';
const b64 = (text: string) => Buffer.from(text).toString('base64');

const YAML = `sim: true
providers:
  - id: guarded
    kind: sim
    moderated: true
    options: { chunk_delay_ms: 0 }
models:
  - id: acme/guarded
    context_length: 64000
    capabilities: [text, tool_calling, streaming, multimodal, pdf_input]
    endpoints:
      - provider: guarded
        model: g
        pricing: { prompt: "0", completion: "0" }
moderation:
  rules:
    - name: self-harm
      patterns: ["\\\\bhurt myself\\\\b"]
`;

const TOOL = {
  type: 'function',
  function: { name: 'lookup', description: 'Looks things up', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
};

const CHAT_CASES: Array<[string, unknown[], Record<string, unknown>?]> = [
  [
    'a system prompt',
    [
      { role: 'system', content: PHRASE },
      { role: 'user', content: 'hello' },
    ],
  ],
  [
    'an assistant turn',
    [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: PHRASE },
      { role: 'user', content: 'go on' },
    ],
  ],
  [
    'a base64 text/plain file',
    [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'read this' },
          { type: 'file', file: { filename: 'a.txt', file_data: `data:text/plain;base64,${b64(PHRASE)}` } },
        ],
      },
    ],
  ],
  [
    'a JSON file without a data: prefix',
    [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.json', file_data: b64(JSON.stringify({ note: PHRASE })) } }] }],
  ],
  [
    'tool-call arguments',
    [
      { role: 'user', content: 'hello' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q: PHRASE }) } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'nothing' },
    ],
    { tools: [TOOL] },
  ],
  [
    'a tool result',
    [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: PHRASE },
    ],
    { tools: [TOOL] },
  ],
  [
    'a tool definition',
    [{ role: 'user', content: 'hello' }],
    { tools: [{ type: 'function', function: { ...TOOL.function, description: PHRASE } }] },
  ],
];

const MESSAGES_CASES: Array<[string, Record<string, unknown>]> = [
  ['a system prompt', { system: PHRASE, messages: [{ role: 'user', content: 'hello' }] }],
  [
    'an assistant turn',
    {
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: PHRASE },
        { role: 'user', content: 'go on' },
      ],
    },
  ],
  [
    'a tool_use input',
    {
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'lookup', input: { q: PHRASE } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'nothing' }] },
      ],
    },
  ],
  [
    'a tool_result',
    {
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'lookup', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: PHRASE }] }] },
      ],
    },
  ],
];

const RESPONSES_CASES: Array<[string, Record<string, unknown>]> = [
  ['instructions', { instructions: PHRASE, input: 'hello' }],
  [
    'an assistant message',
    {
      input: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: PHRASE },
        { role: 'user', content: 'go on' },
      ],
    },
  ],
  [
    'an input_file',
    {
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'read' },
            { type: 'input_file', filename: 'a.md', file_data: `data:text/markdown;base64,${b64(PHRASE)}` },
          ],
        },
      ],
    },
  ],
  [
    'function_call arguments and output',
    {
      tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }],
      input: [
        { role: 'user', content: 'hello' },
        { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: JSON.stringify({ q: PHRASE }) },
        { type: 'function_call_output', call_id: 'c1', output: 'nothing' },
      ],
    },
  ],
  [
    'a function_call_output',
    {
      tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }],
      input: [
        { role: 'user', content: 'hello' },
        { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: PHRASE },
      ],
    },
  ],
];

const GEMINI_TOOLS = [
  {
    functionDeclarations: [
      { name: 'lookup', description: 'Looks things up', parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } } } },
    ],
  },
];
const GEMINI_CASES: Array<[string, Record<string, unknown>]> = [
  ['a systemInstruction', { systemInstruction: { parts: [{ text: PHRASE }] }, contents: [{ role: 'user', parts: [{ text: 'hello' }] }] }],
  [
    'a model turn',
    {
      contents: [
        { role: 'user', parts: [{ text: 'hello' }] },
        { role: 'model', parts: [{ text: PHRASE }] },
        { role: 'user', parts: [{ text: 'go on' }] },
      ],
    },
  ],
  [
    'an inline text/plain file',
    { contents: [{ role: 'user', parts: [{ text: 'read this' }, { inlineData: { mimeType: 'text/plain', data: b64(PHRASE) } }] }] },
  ],
  [
    'functionCall args',
    {
      tools: GEMINI_TOOLS,
      contents: [
        { role: 'user', parts: [{ text: 'hello' }] },
        { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'lookup', args: { q: PHRASE } } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'lookup', response: { output: 'nothing' } } }] },
      ],
    },
  ],
  [
    'a functionResponse',
    {
      tools: GEMINI_TOOLS,
      contents: [
        { role: 'user', parts: [{ text: 'hello' }] },
        { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'lookup', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'lookup', response: { output: PHRASE } } }] },
      ],
    },
  ],
];

describe('moderation reads every text the model will read', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ yaml: YAML });
  });
  after(() => gw.close());

  const auth = () => ({ authorization: `Bearer ${gw.key}` });
  const assertFlagged = (res: { status: number; text: string; json: any }) => {
    assert.equal(res.status, 403, res.text.slice(0, 400));
    assert.equal(res.json.error.type, 'content_filter_error');
  };

  for (const [where, messages, extra] of CHAT_CASES) {
    test(`chat: the phrase in ${where} is refused`, async () => {
      assertFlagged(await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/guarded', messages, ...extra }, auth()));
    });
  }
  for (const [where, body] of MESSAGES_CASES) {
    test(`messages: the phrase in ${where} is refused`, async () => {
      assertFlagged(await postJson(`${gw.baseUrl}/messages`, { model: 'acme/guarded', max_tokens: 50, ...body }, auth()));
    });
  }
  for (const [where, body] of RESPONSES_CASES) {
    test(`responses: the phrase in ${where} is refused`, async () => {
      assertFlagged(await postJson(`${gw.baseUrl}/responses`, { model: 'acme/guarded', ...body }, auth()));
    });
  }

  for (const [where, body] of GEMINI_CASES) {
    test(`gemini: the phrase in ${where} is refused (403 PERMISSION_DENIED)`, async () => {
      const res = await postJson(`${gw.origin}/v1beta/models/acme/guarded:generateContent`, body, { 'x-goog-api-key': gw.key });
      assert.equal(res.status, 403, res.text.slice(0, 400));
      assert.equal(res.json.error.status, 'PERMISSION_DENIED');
      assert.equal(res.json.error.details[0].reason, 'CONTENT_FILTERED');
    });
  }

  test('the same requests without the phrase pass (the cases are not refused for another reason)', async () => {
    const clean = (v: unknown) =>
      JSON.parse(
        JSON.stringify(v)
          .replaceAll(PHRASE, 'a calm sentence')
          .replaceAll(b64(PHRASE), b64('a calm sentence'))
          .replaceAll(b64(JSON.stringify({ note: PHRASE })), b64('{}')),
      );
    for (const [where, messages, extra] of CHAT_CASES) {
      const res = await postJson(`${gw.baseUrl}/chat/completions`, clean({ model: 'acme/guarded', messages, ...extra }), auth());
      assert.equal(res.status, 200, `chat ${where}: ${res.text.slice(0, 300)}`);
    }
    for (const [where, body] of MESSAGES_CASES) {
      const res = await postJson(`${gw.baseUrl}/messages`, clean({ model: 'acme/guarded', max_tokens: 50, ...body }), auth());
      assert.equal(res.status, 200, `messages ${where}: ${res.text.slice(0, 300)}`);
    }
    for (const [where, body] of RESPONSES_CASES) {
      const res = await postJson(`${gw.baseUrl}/responses`, clean({ model: 'acme/guarded', ...body }), auth());
      assert.equal(res.status, 200, `responses ${where}: ${res.text.slice(0, 300)}`);
    }
    for (const [where, body] of GEMINI_CASES) {
      const res = await postJson(`${gw.origin}/v1beta/models/acme/guarded:generateContent`, clean(body), { 'x-goog-api-key': gw.key });
      assert.equal(res.status, 200, `gemini ${where}: ${res.text.slice(0, 300)}`);
    }
  });
});
