import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ReasoningConfig, RequestParameter } from '../../../src/canonical/request.ts';
import { GatewayError } from '../../../src/errors/gateway-error.ts';
import { ALL_PARAMETERS } from '../../../src/providers/parameter-rules.ts';
import { buildGeminiBody, convertToGeminiRequest } from '../../../src/providers/google/convert-to-gemini-request.ts';
import { GEMINI_RULES } from '../../../src/providers/google/gemini-parameters.ts';
import { geminiEndpoint, testRequest } from './google-test-helpers.ts';

const WEATHER = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function body(overrides: Parameters<typeof testRequest>[0] = {}, model?: string) {
  return buildGeminiBody(testRequest(overrides), geminiEndpoint({}, model));
}

/** The value at a dotted path such as `generationConfig.topP` (`tools[]` reads the first element). */
function at(value: unknown, path: string): unknown {
  let node: unknown = value;
  for (const key of path.split('.')) {
    if (node === undefined || node === null) return undefined;
    node = key.endsWith('[]') ? (node as Record<string, unknown[]>)[key.slice(0, -2)]?.[0] : (node as Record<string, unknown>)[key];
  }
  return node;
}

describe('convertToGeminiRequest', () => {
  it('builds the URL for both methods, with x-goog-api-key and provider headers', () => {
    const ep = geminiEndpoint(
      { baseUrl: 'https://generativelanguage.googleapis.com/v1beta/', apiKey: 'k', headers: { 'x-team': 'a' } },
      'models/gemini-2.5-pro',
    );
    const plain = convertToGeminiRequest(testRequest(), ep);
    assert.equal(plain.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent');
    assert.deepEqual(plain.headers, { 'content-type': 'application/json', 'x-goog-api-key': 'k', 'x-team': 'a' });
    assert.deepEqual(JSON.parse(plain.body), { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
    const streamed = convertToGeminiRequest(testRequest({ stream: true }), ep);
    assert.equal(streamed.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
    assert.equal(convertToGeminiRequest(testRequest(), geminiEndpoint()).headers['x-goog-api-key'], undefined);
  });

  it('follows its parameter table: every parameter it keeps lands where the table says', () => {
    const req = testRequest({
      sampling: { temperature: 0.3, topP: 0.8, topK: 40, frequencyPenalty: 0.1, presencePenalty: 0.2, seed: 9 },
      maxOutputTokens: 100,
      stop: ['END'],
      tools: [WEATHER],
      toolChoice: { type: 'auto' },
      responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object', properties: { a: { type: 'string' } } } },
      reasoning: { effort: 'low' },
      user: 'u',
      promptCacheKey: 'k',
      parallelToolCalls: false,
      modalities: ['text', 'image'],
      audio: { voice: 'alloy', format: 'wav' },
    });
    const sent = buildGeminiBody(req, geminiEndpoint());
    for (const name of ALL_PARAMETERS) {
      const rule = GEMINI_RULES[name];
      if (rule.action === 'drop') continue;
      if (name === 'min_p' || name === 'top_a' || name === 'repetition_penalty' || name === 'logit_bias') continue;
      assert.notEqual(at(sent, rule.field!), undefined, `${name} → ${rule.field}`);
    }
    assert.deepEqual(Object.keys(sent).sort(), ['contents', 'generationConfig', 'toolConfig', 'tools']);
  });

  it('maps sampling into generationConfig and bounds the output by the endpoint', () => {
    const sent = body({
      sampling: { temperature: 0.3, topP: 0.8, topK: 40, seed: 9, minP: 0.1, logitBias: { '1': 2 } },
      maxOutputTokens: 1_000_000,
      stop: ['a', 'b'],
    });
    assert.deepEqual(sent.generationConfig, {
      temperature: 0.3,
      topP: 0.8,
      topK: 40,
      seed: 9,
      maxOutputTokens: 65_536,
      stopSequences: ['a', 'b'],
    });
  });

  it('drops what the endpoint does not take (penalties on Gemini 2.5)', () => {
    const ep = { ...geminiEndpoint(), supportedParameters: new Set<RequestParameter>(['temperature']) };
    const sent = buildGeminiBody(testRequest({ sampling: { temperature: 1, presencePenalty: 1 }, maxOutputTokens: 5 }), ep);
    assert.deepEqual(sent.generationConfig, { temperature: 1 });
  });

  it("asks for JSON by MIME type, with the schema converted to Gemini's subset", () => {
    assert.deepEqual(body({ responseFormat: { type: 'json_object' } }).generationConfig, { responseMimeType: 'application/json' });
    assert.equal(body({ responseFormat: { type: 'text' } }).generationConfig, undefined);
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: 'string', description: 'Who' },
        age: { type: ['integer', 'null'], minimum: 0 },
        tags: { type: 'array', items: { type: 'string', format: 'email' }, maxItems: 3 },
        kind: { const: 'person' },
        when: { type: 'string', format: 'date-time' },
        home: { $ref: '#/$defs/place' },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
      },
      required: ['name'],
      $defs: { place: { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'Rome'] } } } },
    };
    assert.deepEqual(body({ responseFormat: { type: 'json_schema', name: 'person', schema } }).generationConfig?.responseSchema, {
      type: 'OBJECT',
      properties: {
        name: { type: 'STRING', description: 'Who' },
        age: { type: 'INTEGER', nullable: true, minimum: 0 },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: '3' },
        kind: { type: 'STRING', enum: ['person'] },
        when: { type: 'STRING', format: 'date-time' },
        home: { type: 'OBJECT', properties: { city: { type: 'STRING', enum: ['Paris', 'Rome'] } } },
        either: { nullable: true, anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] },
      },
      required: ['name'],
    });
  });

  it('declares tools as functionDeclarations and maps tool_choice to toolConfig', () => {
    const noArgs = { name: 'now', parameters: { type: 'object', properties: {} } };
    const sent = body({ tools: [WEATHER, noArgs], toolChoice: { type: 'tool', name: 'get_weather' } });
    assert.deepEqual(sent.tools, [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
          },
          { name: 'now' },
        ],
      },
    ]);
    assert.deepEqual(sent.toolConfig, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    const modes = (['auto', 'none', 'required'] as const).map(
      (type) => body({ tools: [WEATHER], toolChoice: { type } }).toolConfig?.functionCallingConfig.mode,
    );
    assert.deepEqual(modes, ['AUTO', 'NONE', 'ANY']);
    assert.equal(body({ toolChoice: { type: 'none' } }).toolConfig, undefined, 'no tools, no toolConfig');
  });

  it('sends a thinking budget or a level, never both, and asks for thoughts unless excluded', () => {
    const thinking = (reasoning: ReasoningConfig, model = 'gemini-2.5-flash') =>
      body({ reasoning }, model).generationConfig?.thinkingConfig;
    assert.deepEqual(thinking({ maxTokens: 2048 }), { thinkingBudget: 2048, includeThoughts: true });
    assert.deepEqual(thinking({ maxTokens: 99_999, effort: 'low' }), { thinkingBudget: 24_576, includeThoughts: true });
    assert.deepEqual(thinking({ effort: 'medium' }), { thinkingBudget: 8192, includeThoughts: true });
    assert.deepEqual(thinking({ effort: 'high', exclude: true }), { thinkingBudget: 24_576 });
    assert.deepEqual(thinking({ effort: 'high' }, 'gemini-2.5-pro'), { thinkingBudget: 32_768, includeThoughts: true });
    assert.deepEqual(thinking({ enabled: true }), { includeThoughts: true });
    assert.deepEqual(thinking({ enabled: false }), { thinkingBudget: 0 });
    assert.deepEqual(thinking({ effort: 'none' }, 'gemini-2.5-pro'), { thinkingBudget: 128 }, '2.5 Pro cannot stop thinking');
    assert.deepEqual(thinking({ effort: 'low' }, 'gemini-3-pro-preview'), { thinkingLevel: 'LOW', includeThoughts: true });
    assert.deepEqual(thinking({ effort: 'xhigh' }, 'gemini-3-flash-preview'), { thinkingLevel: 'HIGH', includeThoughts: true });
    assert.deepEqual(thinking({ enabled: false }, 'gemini-3-flash-preview'), { thinkingLevel: 'MINIMAL' });
    assert.deepEqual(thinking({ enabled: false }, 'gemini-3.1-pro-preview'), { thinkingLevel: 'LOW' }, 'Gemini 3 Pro refuses MINIMAL');
    assert.deepEqual(thinking({ maxTokens: 4000, effort: 'high' }, 'gemini-3-pro-preview'), {
      thinkingBudget: 4000,
      includeThoughts: true,
    });
    assert.equal(thinking({ exclude: true }), undefined);
  });

  it('puts system messages in systemInstruction and media inline', () => {
    const sent = body({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', url: 'data:image/png;base64,iVBORw0' },
            { type: 'image', url: 'https://example.com/cat.jpg?size=2' },
            { type: 'file', data: 'JVBERi0', mediaType: 'application/pdf', filename: 'a.pdf' },
            { type: 'file', data: 'data:application/pdf;base64,JVBERi1' },
            { type: 'file', url: 'https://example.com/doc.pdf' },
            { type: 'audio', data: 'UklGR', format: 'wav' },
          ],
        },
        { role: 'system', content: [{ type: 'text', text: 'Later note.' }] },
      ],
    });
    assert.deepEqual(sent.systemInstruction, { parts: [{ text: 'Be brief.' }, { text: 'Later note.' }] });
    assert.deepEqual(sent.contents, [
      {
        role: 'user',
        parts: [
          { text: 'Look' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg?size=2' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBERi1' } },
          { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/doc.pdf' } },
          { inlineData: { mimeType: 'audio/wav', data: 'UklGR' } },
        ],
      },
    ]);
  });

  it('refuses a tool result whose call and name are unknown', () => {
    const req = testRequest({ messages: [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'nope', content: 'x' }] }] });
    assert.throws(
      () => buildGeminiBody(req, geminiEndpoint()),
      (err: unknown) => err instanceof GatewayError && err.code === 'invalid_message',
    );
  });
});
