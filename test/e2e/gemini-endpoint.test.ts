import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gate, startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { startAnthropicEmulator, type AnthropicEmulator } from '../emulators/anthropic-messages-emulator.ts';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { generationRecord } from '../support/public-api.ts';

// Gemini's own API over real HTTP: the paths (`{model}:{method}`, slash kept or encoded,
// aliases, bare names), the keys (x-goog-api-key, ?key=, Bearer), both stream framings,
// Google's error shape and statuses, and models served by non-Google upstreams
// (OpenAI-format and Anthropic-format emulators), and a Google upstream whose signed
// function calls must come back signed.

function config(openaiUrl: string, anthropicUrl: string): string {
  return `sim: false
providers:
  - id: local
    kind: openai
    base_url: ${openaiUrl}
    api_key: upstream-secret
  - id: claude
    kind: anthropic
    base_url: ${anthropicUrl}
    api_key: sk-ant-upstream
models:
  - id: acme/mock-1
    name: Mock One
    context_length: 32000
    aliases: [mock-1-20250101]
    capabilities: [text, tool_calling, json_mode, streaming, reasoning]
    endpoints:
      - provider: local
        model: mock-model
        max_output_tokens: 4096
        pricing: { prompt: "0.000001", completion: "0.000002" }
  - id: acme/claude-mock
    name: Claude Mock
    context_length: 200000
    capabilities: [text, tool_calling, streaming, reasoning]
    endpoints:
      - provider: claude
        model: claude-mock-1
        pricing: { prompt: "0.000003", completion: "0.000015" }
`;
}

const ask = (text: string) => ({ contents: [{ role: 'user', parts: [{ text }] }] });

describe('Gemini API over HTTP', () => {
  let emu: OpenAIChatEmulator;
  let claude: AnthropicEmulator;
  let gw: TestGateway;
  let headers: Record<string, string>;
  const logLines: string[] = [];

  before(async () => {
    emu = await startOpenAIChatEmulator();
    claude = await startAnthropicEmulator();
    gw = await startTestGateway({
      yaml: config(emu.baseUrl, claude.baseUrl),
      logDestination: { write: (l: string) => void logLines.push(l) },
    });
    headers = { 'x-goog-api-key': gw.key };
  });
  after(async () => {
    await gw.close();
    await emu.close();
    await claude.close();
  });
  beforeEach(() => {
    emu.reset();
    claude.reset();
  });

  const url = (tail: string) => `${gw.origin}/v1beta/models/${tail}`;

  test('the model is a catalog id (slash as is or %2F, with or without the models/ prefix in the SDK sense), an alias or a bare name', async () => {
    for (const tail of ['acme/mock-1', 'acme%2Fmock-1', 'mock-1-20250101', 'mock-1']) {
      emu.enqueue({ text: 'ok', usage: { prompt_tokens: 3, completion_tokens: 1 } });
      const res = await postJson(url(`${tail}:generateContent`), ask('hi'), headers);
      assert.equal(res.status, 200, `${tail}: ${res.text}`);
      assert.equal(res.json.modelVersion, 'acme/mock-1', tail);
      assert.equal(res.json.candidates[0].content.parts[0].text, 'ok');
    }
    // Gemini's v1 path takes the same methods.
    emu.enqueue({ text: 'v1' });
    const v1 = await postJson(`${gw.origin}/v1/models/acme/mock-1:generateContent`, ask('hi'), headers);
    assert.equal(v1.status, 200, v1.text);
    assert.equal(v1.json.candidates[0].content.parts[0].text, 'v1');
  });

  test("the key comes from x-goog-api-key, ?key= or Bearer; none is a 401 in Google's shape; ?key= never reaches the request log", async () => {
    for (const [how, target, h] of [
      ['header', url('acme/mock-1:generateContent'), { 'x-goog-api-key': gw.key }],
      ['query', url(`acme/mock-1:generateContent?key=${encodeURIComponent(gw.key)}`), {}],
      ['bearer', url('acme/mock-1:generateContent'), { authorization: `Bearer ${gw.key}` }],
    ] as const) {
      emu.enqueue({ text: how });
      const res = await postJson(target, ask('hi'), h);
      assert.equal(res.status, 200, `${how}: ${res.text}`);
      assert.equal(res.json.candidates[0].content.parts[0].text, how);
    }
    const none = await postJson(url('acme/mock-1:generateContent'), ask('hi'));
    assert.equal(none.status, 401);
    assert.equal(none.json.error.code, 401);
    assert.equal(none.json.error.status, 'UNAUTHENTICATED');
    assert.match(none.json.error.message, /x-goog-api-key/);
    const wrong = await postJson(url('acme/mock-1:generateContent?key=sk-sy-v1-nope'), ask('hi'));
    assert.equal(wrong.status, 401);
    await gw.flush();
    assert.ok(logLines.length >= 3, 'the request log has lines');
    const log = logLines.join('\n');
    assert.equal(log.includes(gw.key), false, 'the key is not in the request log');
    assert.equal(log.includes(gw.key.slice(10, 30)), false);
    assert.equal(log.includes('sk-sy-v1-nope'), false);
  });

  test("bad input gets Google's error shape with the right status", async () => {
    const cases: Array<[string, unknown, number, string, RegExp]> = [
      ['acme/mock-1:generateContent', {}, 400, 'INVALID_ARGUMENT', /contents/],
      ['acme/mock-1:generateContent', { contents: [{ role: 'system', parts: [{ text: 'x' }] }] }, 400, 'INVALID_ARGUMENT', /role/],
      ['acme/mock-1:generateContent', { ...ask('x'), generationConfig: { candidateCount: 3 } }, 400, 'INVALID_ARGUMENT', /candidateCount/],
      ['acme/mock-1:generateContent', { ...ask('x'), generationConfig: { temperature: 9 } }, 400, 'INVALID_ARGUMENT', /temperature/],
      [
        'acme/mock-1:generateContent',
        { contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/a.pdf' } }] }] },
        400,
        'INVALID_ARGUMENT',
        /fileUri/,
      ],
      ['acme/mock-1:generateContent', { ...ask('x'), cachedContent: 'cachedContents/abc' }, 400, 'INVALID_ARGUMENT', /cachedContent/],
      ['no-such/model:generateContent', ask('x'), 404, 'NOT_FOUND', /no-such\/model/],
      ['no-such/model:countTokens', ask('x'), 404, 'NOT_FOUND', /no-such\/model/],
      ['acme/mock-1:embedSomething', ask('x'), 404, 'NOT_FOUND', /embedSomething/],
      ['acme/mock-1', ask('x'), 404, 'NOT_FOUND', /needs a method/],
    ];
    for (const [tail, body, status, name, message] of cases) {
      const res = await postJson(url(tail), body, headers);
      assert.equal(res.status, status, `${tail} ${JSON.stringify(body)}: ${res.text}`);
      assert.deepEqual(Object.keys(res.json), ['error']);
      assert.equal(res.json.error.code, status);
      assert.equal(res.json.error.status, name);
      assert.match(res.json.error.message, message);
      assert.equal(res.json.error.details[0]['@type'], 'type.googleapis.com/google.rpc.ErrorInfo');
    }
    const notJson = await postJson(url('acme/mock-1:generateContent'), '{"contents": [', headers);
    assert.equal(notJson.status, 400);
    assert.equal(notJson.json.error.status, 'INVALID_ARGUMENT');
    assert.equal(emu.requests.length, 0, 'nothing reached the upstream');
  });

  test("a path of Gemini's API the gateway does not serve is a 404 in Google's shape (the SDK's files, tuned models); elsewhere OpenAI's", async () => {
    for (const [method, path] of [
      ['POST', '/upload/v1beta/files'],
      ['GET', '/v1beta/tunedModels'],
      ['DELETE', '/v1beta/models/acme/mock-1:generateContent'],
    ] as const) {
      const res = await fetch(`${gw.origin}${path}?key=${gw.key}`, { method, headers });
      const json = (await res.json()) as any;
      assert.equal(res.status, 404, path);
      assert.equal(json.error.status, 'NOT_FOUND', path);
      assert.equal(json.error.code, 404);
      assert.doesNotMatch(JSON.stringify(json), new RegExp(gw.key), 'the ?key= is not echoed');
    }
    const openai = await fetch(`${gw.origin}/v1/no-such-route`, { headers });
    assert.equal(((await openai.json()) as any).error.type, 'not_found_error');
  });

  test("an upstream failure is Google's shape too (502 UNAVAILABLE), and in-stream it is a last {error} chunk", async () => {
    // Every retry fails alike.
    for (let i = 0; i < 8; i++) emu.enqueue({ fault: 'status', status: 500 });
    const res = await postJson(url('acme/mock-1:generateContent'), ask('hi'), headers);
    assert.equal(res.status, 502, res.text);
    assert.equal(res.json.error.status, 'UNAVAILABLE');
    assert.equal(res.json.error.details[0].reason, 'PROVIDER_ERROR');
    emu.reset();
    emu.enqueue({ fault: 'stream-error', afterChunks: 2 });
    const stream = await postJson(url('acme/mock-1:streamGenerateContent?alt=sse'), ask('hi'), headers);
    const events = sseData(stream.text) as any[];
    const last = events.at(-1);
    assert.ok(last?.error !== undefined, stream.text);
    assert.equal(typeof last.error.code, 'number');
    assert.equal(typeof last.error.status, 'string');
  });

  test('streamGenerateContent without alt=sse is one JSON array, written as the answer comes', async () => {
    const g = gate();
    emu.enqueue({
      text: 'one two three four',
      chunks: 4,
      pauseAfter: { events: 3, until: g.until },
      usage: { prompt_tokens: 5, completion_tokens: 4 },
    });
    const res = await fetch(url('acme/mock-1:streamGenerateContent'), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(ask('count')),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The array's first chunk arrives while the upstream is held: it is streamed, not buffered.
    while (!text.includes('"text":"one')) {
      const { value, done } = await reader.read();
      assert.equal(done, false, `ended early: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    assert.ok(text.startsWith('[{'), text);
    g.open();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const chunks = JSON.parse(text) as any[];
    assert.ok(chunks.length >= 3, text);
    assert.equal(chunks.map((c) => c.candidates[0].content.parts.map((p: any) => p.text).join('')).join(''), 'one two three four');
    const last = chunks.at(-1);
    assert.equal(last.candidates[0].finishReason, 'STOP');
    assert.deepEqual(last.usageMetadata, {
      promptTokenCount: 5,
      candidatesTokenCount: 4,
      totalTokenCount: 9,
      cost: last.usageMetadata.cost,
    });
    assert.ok(chunks.every((c) => c.responseId === res.headers.get('x-generation-id')));
  });

  test('the generation record names the gemini dialect, the model and the tokens', async () => {
    emu.enqueue({ text: 'recorded', usage: { prompt_tokens: 7, completion_tokens: 2 } });
    const res = await postJson(url('acme/mock-1:generateContent'), ask('hi'), headers);
    assert.equal(res.status, 200);
    const id = res.headers.get('x-generation-id')!;
    assert.equal(res.json.responseId, id);
    await gw.flush();
    const record = await generationRecord(gw.origin, gw.key, id);
    assert.equal(record.model, 'acme/mock-1');
    assert.equal(record.tokens_prompt, 7);
    assert.equal(record.tokens_completion, 2);
    assert.equal(record.streamed, false);
    assert.equal(record.api_type, 'gemini');
  });

  test('inline images and audio reach an OpenAI-format upstream as image_url and input_audio', async () => {
    emu.enqueue({ text: 'seen' });
    const res = await postJson(
      url('acme/mock-1:generateContent'),
      {
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'What is this?' },
              { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
              { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
            ],
          },
        ],
      },
      headers,
    );
    assert.equal(res.status, 200, res.text);
    const content = emu.requests[0]!.body.messages[0].content;
    assert.deepEqual(content[1], { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } });
    assert.deepEqual(content[2], { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } });
  });

  test('an Anthropic-format upstream: thoughts come back when includeThoughts, and a function call round trips by id', async () => {
    claude.enqueue({
      thinking: 'Let me look it up.',
      toolCalls: [{ id: 'toolu_1', name: 'lookup', arguments: '{"q":"oslo"}' }],
      usage: { input_tokens: 20, output_tokens: 10 },
    });
    const tools = [
      {
        functionDeclarations: [
          {
            name: 'lookup',
            description: 'Look up',
            parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } }, required: ['q'] },
          },
        ],
      },
    ];
    const generationConfig = { maxOutputTokens: 4000, thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } };
    const first = await postJson(url('acme/claude-mock:generateContent'), { ...ask('Find Oslo'), tools, generationConfig }, headers);
    assert.equal(first.status, 200, first.text);
    const parts = first.json.candidates[0].content.parts;
    assert.equal(parts[0].thought, true);
    assert.equal(parts[0].text, 'Let me look it up.');
    assert.equal(typeof parts[0].thoughtSignature, 'string');
    assert.deepEqual(parts[1].functionCall, { id: 'toolu_1', name: 'lookup', args: { q: 'oslo' } });
    const sent = claude.requests[0]!.body;
    assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.deepEqual(sent.tools[0].input_schema, { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });

    claude.enqueue({ text: 'Oslo is in Norway.' });
    const second = await postJson(
      url('acme/claude-mock:generateContent'),
      {
        contents: [
          ask('Find Oslo').contents[0],
          first.json.candidates[0].content,
          { role: 'user', parts: [{ functionResponse: { id: 'toolu_1', name: 'lookup', response: { output: 'Norway' } } }] },
        ],
        tools,
        generationConfig,
      },
      headers,
    );
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.candidates[0].content.parts.at(-1).text, 'Oslo is in Norway.');
    const replay = claude.requests[1]!.body.messages;
    assert.deepEqual(
      replay[1].content.map((b: any) => b.type),
      ['thinking', 'tool_use'],
    );
    assert.equal(replay[1].content[0].signature, parts[0].thoughtSignature);
    assert.deepEqual(replay[2].content, [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Norway' }]);
  });

  test('without includeThoughts the reasoning is not returned', async () => {
    claude.enqueue({ thinking: 'secret plan', text: 'done' });
    const res = await postJson(
      url('acme/claude-mock:generateContent'),
      { ...ask('go'), generationConfig: { maxOutputTokens: 4000, thinkingConfig: { thinkingBudget: 1024 } } },
      headers,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(JSON.stringify(res.json).includes('secret plan'), false);
    assert.equal(res.json.candidates[0].content.parts.at(-1).text, 'done');
  });

  test("GET /v1beta/models pages the catalog in Google's shape; GET one model by id, encoded id or alias", async () => {
    const first = (await (await fetch(`${gw.origin}/v1beta/models?pageSize=1`)).json()) as any;
    assert.equal(first.models.length, 1);
    assert.equal(first.nextPageToken, '1');
    const rest = (await (await fetch(`${gw.origin}/v1beta/models?pageSize=10&pageToken=1`)).json()) as any;
    assert.equal(rest.nextPageToken, undefined);
    const names = [...first.models, ...rest.models].map((m: any) => m.name).sort();
    assert.deepEqual(names, ['models/acme/claude-mock', 'models/acme/mock-1']);
    for (const tail of ['acme/mock-1', 'acme%2Fmock-1', 'mock-1-20250101']) {
      const res = await fetch(`${gw.origin}/v1beta/models/${tail}`);
      assert.equal(res.status, 200, tail);
      const m = (await res.json()) as any;
      assert.deepEqual(
        {
          name: m.name,
          displayName: m.displayName,
          inputTokenLimit: m.inputTokenLimit,
          outputTokenLimit: m.outputTokenLimit,
          methods: m.supportedGenerationMethods,
        },
        {
          name: 'models/acme/mock-1',
          displayName: 'Mock One',
          inputTokenLimit: 32000,
          outputTokenLimit: 4096,
          methods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        },
      );
    }
    const missing = await fetch(`${gw.origin}/v1beta/models/nope`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as any).error.status, 'NOT_FOUND');
    const bad = await fetch(`${gw.origin}/v1beta/models?pageSize=lots`);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as any).error.status, 'INVALID_ARGUMENT');
  });
});

describe('Gemini API to a Google upstream', () => {
  let gm: GeminiEmulator;
  let gw: TestGateway;
  before(async () => {
    gm = await startGeminiEmulator({ apiKey: 'gk-upstream' });
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - { id: up-google, kind: google, base_url: "${gm.baseUrl}", api_key: gk-upstream }
models:
  - id: google/gemini-3-pro
    context_length: 1000000
    capabilities: [text, tool_calling, streaming, reasoning]
    endpoints:
      - provider: up-google
        model: gemini-3-pro-preview
        pricing: { prompt: "0.000002", completion: "0.000012" }
`,
    });
  });
  after(async () => {
    await gw.close();
    await gm.close();
  });

  test("a signed function call round trips: the client replays the answer's content and Gemini gets its signature back", async () => {
    const headers = { 'x-goog-api-key': gw.key };
    const url = (method: string) => `${gw.origin}/v1beta/models/google/gemini-3-pro:${method}`;
    const tools = [{ functionDeclarations: [{ name: 'lookup', parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } } } }] }];
    const question = { role: 'user', parts: [{ text: 'Find Oslo' }] };
    gm.enqueue({ functionCalls: [{ name: 'lookup', args: { q: 'oslo' }, thoughtSignature: 'c2lnbmF0dXJl' }] });
    const first = await postJson(url('streamGenerateContent?alt=sse'), { contents: [question], tools }, headers);
    assert.equal(first.status, 200, first.text);
    const chunks = sseData(first.text) as any[];
    const call = chunks.flatMap((c) => c.candidates[0].content.parts).find((p: any) => p.functionCall !== undefined);
    assert.equal(call.thoughtSignature, 'c2lnbmF0dXJl');
    assert.deepEqual(call.functionCall.args, { q: 'oslo' });

    gm.enqueue({ text: 'Oslo is in Norway.' });
    const second = await postJson(
      url('generateContent'),
      {
        contents: [
          question,
          { role: 'model', parts: [call] },
          { role: 'user', parts: [{ functionResponse: { id: call.functionCall.id, name: 'lookup', response: { output: 'Norway' } } }] },
        ],
        tools,
      },
      headers,
    );
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.candidates[0].content.parts[0].text, 'Oslo is in Norway.');
    const replayed = gm.requests[1]!.body.contents;
    assert.equal(replayed[1].parts[0].thoughtSignature, 'c2lnbmF0dXJl');
    assert.deepEqual(replayed[2].parts[0].functionResponse.name, 'lookup');
  });
});

describe('Gemini model list with server.public_models: false', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({
      tweak: (c) => {
        c.server = { ...c.server, publicModels: false };
      },
    });
  });
  after(() => gw.close());

  test("asks for a key, read as on the Gemini methods (x-goog-api-key, ?key=, Bearer); 401 in Google's shape", async () => {
    const none = await fetch(`${gw.origin}/v1beta/models`);
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as any).error.status, 'UNAUTHENTICATED');
    for (const [url, headers] of [
      [`${gw.origin}/v1beta/models`, { 'x-goog-api-key': gw.key }],
      [`${gw.origin}/v1beta/models/switchyard/sim-fast?key=${gw.key}`, {}],
      [`${gw.origin}/v1beta/models`, { authorization: `Bearer ${gw.key}` }],
    ] as const) {
      const res = await fetch(url, { headers });
      assert.equal(res.status, 200, url);
    }
  });
});
