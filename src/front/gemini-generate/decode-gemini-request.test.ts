import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertRequestError } from '../shared/assert-gateway-error.ts';
import { decodeGeminiRequest } from './decode-gemini-request.ts';
import { decodeCountTokensRequest } from './count-gemini-tokens.ts';

const target = { model: 'acme/mock-1', stream: false };
const user = (text: string) => ({ role: 'user', parts: [{ text }] });
const decode = (body: unknown) => decodeGeminiRequest(body, target);

describe('decodeGeminiRequest', () => {
  it('takes the model and the streaming from the path, the rest from the body', () => {
    const req = decodeGeminiRequest({ contents: [user('hi')], models: ['beta/other'] }, { model: 'acme/mock-1', stream: true });
    assert.deepEqual(req.models, [{ model: 'acme/mock-1' }, { model: 'beta/other' }]);
    assert.equal(req.stream, true);
    assert.deepEqual(req.messages, [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it("a systemInstruction (a Content or a string) is the system message; a content without a role is the user's", () => {
    const a = decode({
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Be kind.' }] },
      contents: [{ parts: [{ text: 'hi' }] }],
    });
    assert.deepEqual(a.messages, [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Be brief.' },
          { type: 'text', text: 'Be kind.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
    const b = decode({ systemInstruction: 'Be brief.', contents: [user('hi')] });
    assert.deepEqual(b.messages[0], { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] });
  });

  it('inline images, audio and PDFs, and http(s) file URIs become canonical media parts', () => {
    const req = decode({
      contents: [
        {
          role: 'user',
          parts: [
            { inlineData: { mimeType: 'image/png', data: 'AAA=' } },
            { inlineData: { mimeType: 'audio/mpeg', data: 'BBB=' } },
            { inlineData: { mimeType: 'application/pdf', data: 'CCC=' } },
            { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/a.jpg' } },
            { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[0]!.content, [
      { type: 'image', url: 'data:image/png;base64,AAA=' },
      { type: 'audio', data: 'BBB=', format: 'mp3' },
      { type: 'file', data: 'CCC=', mediaType: 'application/pdf' },
      { type: 'image', url: 'https://example.com/a.jpg' },
      { type: 'file', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
    ]);
    assertRequestError(
      () => decode({ contents: [{ role: 'user', parts: [{ fileData: { fileUri: 'gs://b/o' } }] }] }),
      'unsupported_content',
      'contents[0].parts[0].fileData.fileUri',
    );
  });

  it('function calls and responses round trip with their ids; missing ids are paired by name and position', () => {
    const req = decode({
      contents: [
        user('weather?'),
        {
          role: 'model',
          parts: [
            { text: 'thinking it over', thought: true, thoughtSignature: 'sig-1' },
            { functionCall: { id: 'c1', name: 'weather', args: { city: 'Oslo' } }, thoughtSignature: 'sig-2' },
            { functionCall: { name: 'time', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'time', response: { output: '12:00' } } },
            { functionResponse: { id: 'c1', name: 'weather', response: { temp: 21 } } },
            { text: 'and tomorrow?' },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages.slice(1), [
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking it over', signature: 'sig-1' },
          { type: 'tool-call', id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}', signature: 'sig-2' },
          { type: 'tool-call', id: 'call_1_2', name: 'time', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_1_2', name: 'time', content: '12:00' },
          { type: 'tool-result', toolCallId: 'c1', name: 'weather', content: '{"temp":21}' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'and tomorrow?' }] },
    ]);
  });

  it('pairs many calls and id-less responses in linear time (a hostile turn of 40,000 of each)', () => {
    const n = 40_000;
    const calls = Array.from({ length: n }, (_, k) => ({ functionCall: { name: `f${k % 7}`, args: {} } }));
    const responses = Array.from({ length: n }, (_, k) => ({ functionResponse: { name: `f${k % 7}`, response: {} } }));
    const started = performance.now();
    const req = decode({ contents: [user('x'), { role: 'model', parts: calls }, { role: 'user', parts: responses }] });
    const ms = performance.now() - started;
    const results = req.messages[2]!.content as Array<{ toolCallId: string }>;
    assert.equal(results[0]!.toolCallId, 'call_1_0');
    assert.equal(results[n - 1]!.toolCallId, `call_1_${n - 1}`);
    assert.ok(ms < 2000, `decoded in ${Math.round(ms)} ms`);
  });

  it('an error response is marked as one', () => {
    const req = decode({
      contents: [
        user('x'),
        { role: 'model', parts: [{ functionCall: { id: 'c', name: 'f', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'c', name: 'f', response: { error: 'boom' } } }] },
      ],
    });
    assert.deepEqual(req.messages[2], {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c', name: 'f', content: 'boom', isError: true }],
    });
  });

  it('function declarations: parameters (Gemini schema) converted to JSON Schema, parametersJsonSchema as is; built-in tools dropped', () => {
    const req = decode({
      contents: [user('x')],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'a',
              description: 'A',
              parameters: {
                type: 'OBJECT',
                properties: { n: { type: 'INTEGER', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING' }, minItems: '1' } },
                required: ['n'],
                propertyOrdering: ['n', 'tags'],
              },
            },
            { name: 'b', parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false } },
            { name: 'c' },
          ],
        },
        { googleSearch: {} },
      ],
    });
    assert.deepEqual(req.tools, [
      {
        name: 'a',
        description: 'A',
        parameters: {
          type: 'object',
          properties: { n: { type: ['integer', 'null'] }, tags: { type: 'array', items: { type: 'string' }, minItems: 1 } },
          required: ['n'],
        },
      },
      { name: 'b', parameters: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false } },
      { name: 'c', parameters: { type: 'object', properties: {} } },
    ]);
  });

  it('toolConfig: AUTO, NONE, ANY, ANY with one name (forced) or several (only those offered)', () => {
    const tools = [{ functionDeclarations: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }];
    const choice = (functionCallingConfig: unknown) => decode({ contents: [user('x')], tools, toolConfig: { functionCallingConfig } });
    assert.deepEqual(choice({ mode: 'AUTO' }).toolChoice, { type: 'auto' });
    assert.deepEqual(choice({ mode: 'NONE' }).toolChoice, { type: 'none' });
    assert.deepEqual(choice({ mode: 'ANY' }).toolChoice, { type: 'required' });
    assert.deepEqual(choice({ mode: 'ANY', allowedFunctionNames: ['b'] }).toolChoice, { type: 'tool', name: 'b' });
    const several = choice({ mode: 'ANY', allowedFunctionNames: ['a', 'c'] });
    assert.deepEqual(several.toolChoice, { type: 'required' });
    assert.deepEqual(
      several.tools!.map((t) => t.name),
      ['a', 'c'],
    );
    assertRequestError(() => choice({ mode: 'SOMETIMES' }), 'invalid_parameter', 'toolConfig.functionCallingConfig.mode');
    assertRequestError(() => choice({ mode: 'ANY', allowedFunctionNames: ['zz'] }), 'invalid_parameter', 'tool_choice');
    assertRequestError(
      () => decode({ contents: [user('x')], toolConfig: { functionCallingConfig: { mode: 'ANY' } } }),
      'invalid_parameter',
      'tool_choice',
    );
  });

  it('generationConfig: sampling, limits, stop sequences, structured output, thinking, modalities', () => {
    const req = decode({
      contents: [user('x')],
      safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
      generationConfig: {
        temperature: 0.5,
        topP: 0.8,
        topK: 40,
        candidateCount: 1,
        maxOutputTokens: 100,
        stopSequences: ['END'],
        presencePenalty: 0.1,
        frequencyPenalty: -0.2,
        seed: 3,
        responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } },
        thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
        responseModalities: ['TEXT'],
      },
    });
    assert.deepEqual(req.sampling, { temperature: 0.5, topP: 0.8, topK: 40, presencePenalty: 0.1, frequencyPenalty: -0.2, seed: 3 });
    assert.equal(req.maxOutputTokens, 100);
    assert.deepEqual(req.stop, ['END']);
    assert.deepEqual(req.responseFormat, {
      type: 'json_schema',
      name: 'response',
      schema: { type: 'object', properties: { a: { type: 'string' } } },
    });
    assert.deepEqual(req.reasoning, { enabled: true, maxTokens: 512 });
    assert.deepEqual(req.modalities, ['text']);

    const json = decode({
      contents: [user('x')],
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object' } },
    });
    assert.deepEqual(json.responseFormat, { type: 'json_schema', name: 'response', schema: { type: 'object' } });
    assert.deepEqual(decode({ contents: [user('x')], generationConfig: { responseMimeType: 'application/json' } }).responseFormat, {
      type: 'json_object',
    });
  });

  it("thinkingConfig: 0 turns reasoning off, -1 on at the model's budget, a level is an effort; thoughts hidden unless includeThoughts", () => {
    const thinking = (thinkingConfig: unknown) => decode({ contents: [user('x')], generationConfig: { thinkingConfig } }).reasoning;
    assert.deepEqual(thinking({ thinkingBudget: 0 }), { enabled: false });
    assert.deepEqual(thinking({ thinkingBudget: -1 }), { enabled: true, exclude: true });
    assert.deepEqual(thinking({ thinkingLevel: 'HIGH', includeThoughts: true }), { enabled: true, effort: 'high' });
    assert.equal(thinking({}), undefined);
    assertRequestError(() => thinking({ thinkingBudget: -2 }), 'invalid_parameter', 'generationConfig.thinkingConfig.thinkingBudget');
  });

  it('refuses what it cannot carry, naming the field', () => {
    assertRequestError(() => decode([]), 'invalid_json');
    assertRequestError(() => decode({}), 'missing_parameter', 'contents');
    assertRequestError(() => decode({ contents: [] }), 'invalid_parameter', 'contents');
    assertRequestError(() => decode({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }), 'invalid_message', 'contents[0].role');
    assertRequestError(() => decode({ contents: [{ role: 'user' }] }), 'invalid_message', 'contents[0].parts');
    assertRequestError(() => decode({ contents: [{ role: 'user', parts: [{}] }] }), 'invalid_message', 'contents[0].parts[0]');
    assertRequestError(
      () => decode({ contents: [{ role: 'user', parts: [{ executableCode: { code: 'x' } }] }] }),
      'unsupported_content',
      'contents[0].parts[0].executableCode',
    );
    assertRequestError(
      () => decode({ contents: [{ role: 'model', parts: [{ functionCall: { args: {} } }] }] }),
      'invalid_message',
      'contents[0].parts[0].functionCall.name',
    );
    assertRequestError(
      () => decode({ contents: [user('x')], generationConfig: { candidateCount: 2 } }),
      'invalid_parameter',
      'generationConfig.candidateCount',
    );
    assertRequestError(
      () => decode({ contents: [user('x')], generationConfig: { topP: 2 } }),
      'invalid_parameter',
      'generationConfig.topP',
    );
    assertRequestError(
      () => decode({ contents: [user('x')], generationConfig: { responseMimeType: 'text/x.enum' } }),
      'invalid_parameter',
      'generationConfig.responseMimeType',
    );
    assertRequestError(() => decode({ contents: [user('x')], cachedContent: 'cachedContents/1' }), 'unsupported_content', 'cachedContent');
    assertRequestError(
      () => decode({ contents: [user('x')], tools: [{ functionDeclarations: [{ name: '' }] }] }),
      'invalid_parameter',
      'tools[0].functionDeclarations[0].name',
    );
  });
});

describe('decodeCountTokensRequest', () => {
  it('takes {contents} or {generateContentRequest}, and an empty prompt', () => {
    assert.deepEqual(decodeCountTokensRequest({ contents: [user('a')] }, 'm').messages, [
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
    ]);
    const whole = decodeCountTokensRequest(
      { generateContentRequest: { model: 'models/m', contents: [user('b')], systemInstruction: 'sys' } },
      'm',
    );
    assert.equal(whole.messages.length, 2);
    assert.deepEqual(decodeCountTokensRequest({}, 'm').messages, []);
  });
});
