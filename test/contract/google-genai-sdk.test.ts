import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type, type Content } from '@google/genai';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The official @google/genai SDK pointed at switchyard (`httpOptions.baseUrl`), with models
// that are not Google's: the built-in sim and an OpenAI-format upstream. What a user's
// code sees through the SDK is what is tested, and, for the emulator, what reached the
// upstream in OpenAI's format.

const WEATHER = {
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
};

function client(gw: TestGateway): GoogleGenAI {
  return new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.origin } });
}

describe('@google/genai against switchyard, the sim serving', () => {
  let gw: TestGateway;
  let ai: GoogleGenAI;
  before(async () => {
    gw = await startTestGateway();
    ai = client(gw);
  });
  after(() => gw.close());

  test('generateContent: text, finish reason, usage, model version and response id', async () => {
    const res = await ai.models.generateContent({ model: 'switchyard/sim-fast', contents: 'Say hello.' });
    assert.match(res.text ?? '', /You said: "Say hello\."/);
    assert.equal(res.candidates?.[0]?.finishReason, 'STOP');
    assert.equal(res.modelVersion, 'switchyard/sim-fast');
    assert.match(res.responseId ?? '', /^gen-/);
    const u = res.usageMetadata!;
    assert.ok(u.promptTokenCount! > 0 && u.candidatesTokenCount! > 0);
    assert.equal(u.totalTokenCount, u.promptTokenCount! + u.candidatesTokenCount!);
  });

  test('generateContentStream: the chunks add up to the whole answer; the last has the finish and usage', async () => {
    const whole = await ai.models.generateContent({ model: 'sim-fast', contents: 'Stream this.' });
    let text = '';
    let chunks = 0;
    let last: Awaited<ReturnType<typeof ai.models.generateContent>> | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: 'sim-fast', contents: 'Stream this.' })) {
      text += chunk.text ?? '';
      chunks++;
      last = chunk;
    }
    assert.ok(chunks > 2, `streamed in ${chunks} chunks`);
    assert.equal(text, whole.text);
    assert.equal(last?.candidates?.[0]?.finishReason, 'STOP');
    assert.ok((last?.usageMetadata?.candidatesTokenCount ?? 0) > 0);
  });

  test('countTokens: the gateway count of the prompt, no model call', async () => {
    const res = await ai.models.countTokens({ model: 'switchyard/sim-fast', contents: 'How many tokens is this sentence?' });
    assert.ok(res.totalTokens! > 5 && res.totalTokens! < 30, `${res.totalTokens}`);
  });

  test('a function call round trip: the call comes with an id and args, its response is answered', async () => {
    const config = {
      tools: [{ functionDeclarations: [WEATHER] }],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
    };
    const question: Content = { role: 'user', parts: [{ text: 'What is the weather in Oslo?' }] };
    const first = await ai.models.generateContent({ model: 'switchyard/sim-fast', contents: [question], config });
    const calls = first.functionCalls ?? [];
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.name, 'get_weather');
    assert.equal(typeof calls[0]!.args?.city, 'string');
    assert.ok(calls[0]!.id !== undefined && calls[0]!.id.length > 0);
    const second = await ai.models.generateContent({
      model: 'switchyard/sim-fast',
      contents: [
        question,
        first.candidates![0]!.content!,
        { role: 'user', parts: [{ functionResponse: { id: calls[0]!.id, name: 'get_weather', response: { output: 'sunny, 21 C' } } }] },
      ],
      config: { tools: config.tools },
    });
    assert.equal(second.functionCalls, undefined);
    assert.ok((second.text ?? '').length > 0);
  });

  test('errors come as ApiError with Google status codes', async () => {
    await assert.rejects(ai.models.generateContent({ model: 'no-such-model', contents: 'hi' }), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 404);
      assert.match(err.message, /NOT_FOUND/);
      return true;
    });
    await assert.rejects(
      ai.models.generateContent({ model: 'sim-fast', contents: 'hi', config: { candidateCount: 2 } }),
      (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.status, 400);
        assert.match(err.message, /INVALID_ARGUMENT/);
        assert.match(err.message, /candidateCount/);
        return true;
      },
    );
    const stranger = new GoogleGenAI({ apiKey: `sk-sy-v1-${'A'.repeat(43)}`, httpOptions: { baseUrl: gw.origin } });
    await assert.rejects(stranger.models.generateContent({ model: 'sim-fast', contents: 'hi' }), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 401);
      assert.match(err.message, /UNAUTHENTICATED/);
      return true;
    });
  });

  test("models.list and models.get (API version v1beta) show the catalog in Google's shape", async () => {
    const ai = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.origin, apiVersion: 'v1beta' } });
    const names: string[] = [];
    for await (const m of await ai.models.list({ config: { pageSize: 2 } })) names.push(m.name!);
    assert.ok(names.includes('models/switchyard/sim-fast'), names.join(', '));
    const one = await ai.models.get({ model: 'switchyard/sim-fast' });
    assert.equal(one.name, 'models/switchyard/sim-fast');
    assert.ok(one.inputTokenLimit! > 0 && one.outputTokenLimit! > 0);
    assert.deepEqual(one.supportedActions, ['generateContent', 'streamGenerateContent', 'countTokens']);
  });
});

describe('@google/genai against switchyard, an OpenAI-format upstream serving', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let ai: GoogleGenAI;
  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env: { LOCAL_KEY: 'upstream-secret' } });
    ai = client(gw);
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  test('generateContent: system instruction and generation config reach the upstream as OpenAI fields', async () => {
    emu.enqueue({ text: '{"capital":"Paris"}', usage: { prompt_tokens: 12, completion_tokens: 5, cached_tokens: 4 } });
    const res = await ai.models.generateContent({
      model: 'acme/mock-1',
      contents: 'Capital of France?',
      config: {
        systemInstruction: 'Answer in JSON.',
        temperature: 0.2,
        topP: 0.9,
        maxOutputTokens: 64,
        stopSequences: ['END'],
        seed: 7,
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' as never, threshold: 'BLOCK_NONE' as never }],
        responseMimeType: 'application/json',
        responseSchema: { type: Type.OBJECT, properties: { capital: { type: Type.STRING } }, required: ['capital'] },
      },
    });
    assert.equal(res.text, '{"capital":"Paris"}');
    assert.deepEqual(
      {
        prompt: res.usageMetadata?.promptTokenCount,
        cached: res.usageMetadata?.cachedContentTokenCount,
        out: res.usageMetadata?.candidatesTokenCount,
        total: res.usageMetadata?.totalTokenCount,
      },
      { prompt: 12, cached: 4, out: 5, total: 17 },
    );
    const sent = emu.requests[0]!.body;
    assert.equal(sent.model, 'mock-model');
    assert.deepEqual(sent.messages, [
      { role: 'system', content: 'Answer in JSON.' },
      { role: 'user', content: 'Capital of France?' },
    ]);
    assert.equal(sent.temperature, 0.2);
    assert.equal(sent.top_p, 0.9);
    assert.equal(sent.max_tokens ?? sent.max_completion_tokens, 64);
    assert.deepEqual(sent.stop, ['END']);
    assert.equal(sent.seed, 7);
    assert.equal(sent.response_format.type, 'json_schema');
    assert.deepEqual(sent.response_format.json_schema.schema.properties, { capital: { type: 'string' } });
  });

  test('generateContentStream through the OpenAI upstream', async () => {
    emu.enqueue({ text: 'The quick brown fox', chunks: 4, usage: { prompt_tokens: 4, completion_tokens: 4 } });
    let text = '';
    let usage;
    for await (const chunk of await ai.models.generateContentStream({ model: 'acme/mock-1', contents: 'go' })) {
      text += chunk.text ?? '';
      usage = chunk.usageMetadata ?? usage;
    }
    assert.equal(text, 'The quick brown fox');
    assert.equal(usage?.candidatesTokenCount, 4);
    assert.equal(emu.requests[0]!.body.stream, true);
  });

  test('a function call round trip: the response goes upstream as a tool message answering the call id', async () => {
    emu.enqueue(
      { toolCalls: [{ id: 'call_up_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }], finishReason: 'tool_calls' },
      { text: 'It is sunny in Oslo.' },
    );
    const config = { tools: [{ functionDeclarations: [WEATHER] }] };
    const question: Content = { role: 'user', parts: [{ text: 'Weather in Oslo?' }] };
    const first = await ai.models.generateContent({ model: 'acme/mock-1', contents: [question], config });
    assert.deepEqual(first.functionCalls, [{ id: 'call_up_1', name: 'get_weather', args: { city: 'Oslo' } }]);
    assert.equal(first.candidates?.[0]?.finishReason, 'STOP');
    const sentTools = emu.requests[0]!.body.tools;
    assert.deepEqual(sentTools[0].function.parameters, { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });

    const second = await ai.models.generateContent({
      model: 'acme/mock-1',
      contents: [
        question,
        first.candidates[0].content!,
        { role: 'user', parts: [{ functionResponse: { id: 'call_up_1', name: 'get_weather', response: { output: 'sunny' } } }] },
      ],
      config,
    });
    assert.equal(second.text, 'It is sunny in Oslo.');
    const replay = emu.requests[1]!.body.messages;
    assert.deepEqual(replay.slice(1), [
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_up_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_up_1', content: 'sunny' },
    ]);
  });

  test('toolConfig ANY with one allowed function forces it upstream; NONE turns tools off', async () => {
    emu.enqueue({ toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Rome"}' }] }, { text: 'no tools' });
    const tools = [{ functionDeclarations: [WEATHER, { name: 'get_time', parametersJsonSchema: { type: 'object', properties: {} } }] }];
    await ai.models.generateContent({
      model: 'acme/mock-1',
      contents: 'x',
      config: {
        tools,
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } },
      },
    });
    assert.deepEqual(emu.requests[0]!.body.tool_choice, { type: 'function', function: { name: 'get_weather' } });
    await ai.models.generateContent({
      model: 'acme/mock-1',
      contents: 'y',
      config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } } },
    });
    assert.equal(emu.requests[1]!.body.tool_choice, 'none');
  });
});
