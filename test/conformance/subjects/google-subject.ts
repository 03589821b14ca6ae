import assert from 'node:assert/strict';
import { googleAdapter } from '../../../src/providers/google/google-adapter.ts';
import { PDF_BASE64, PNG_BASE64, WAV_BASE64 } from '../conformance-fixtures.ts';
import type { ConformanceSubject, RequestCheck } from '../conformance-types.ts';
import { startGeminiUpstream } from '../upstreams/gemini-upstream.ts';

// The google adapter against the Gemini emulator, on a Gemini 3 model: the emulator then
// refuses a tool round trip whose call lost its thought signature, as Gemini does.

const MODEL = 'gemini-3-flash-preview';
const KEY = 'gm-key';

function checkGeminiRequest(check: RequestCheck): void {
  const { request, received } = check;
  assert.equal(received.headers['x-goog-api-key'], KEY);
  const stream = request.stream ? ':streamGenerateContent?alt=sse' : ':generateContent';
  assert.equal(received.path, `/v1beta/models/${MODEL}${stream}`);
  checkGeminiBody(check);
}

/** What a Gemini body must hold for each case, wherever it was sent (Vertex AI too). */
export function checkGeminiBody({ caseId, received, signature }: RequestCheck): void {
  const body = received.body;
  const userParts = body.contents[0].parts;
  switch (caseId) {
    case 'plain-text':
      assert.deepEqual(body, { contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }] });
      return;
    case 'streaming':
      assert.match(received.path, /:streamGenerateContent\?alt=sse$/);
      return;
    case 'tool-call-round-trip':
      assert.deepEqual(body.contents[1], {
        role: 'model',
        parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: signature }],
      });
      assert.deepEqual(body.contents[2], {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { output: '{"temp_c":21,"sky":"sunny"}' } } }],
      });
      assert.deepEqual(
        body.tools[0].functionDeclarations.map((d: any) => d.name),
        ['get_weather'],
      );
      return;
    case 'parallel-tool-calls':
      assert.deepEqual(
        body.tools[0].functionDeclarations.map((d: any) => d.name),
        ['get_weather', 'get_time'],
      );
      return;
    case 'structured-output':
      assert.equal(body.generationConfig.responseMimeType, 'application/json');
      assert.deepEqual(body.generationConfig.responseSchema, {
        type: 'OBJECT',
        properties: { city: { type: 'STRING' }, temp_c: { type: 'NUMBER' } },
        required: ['city', 'temp_c'],
      });
      return;
    case 'image-input':
      assert.deepEqual(userParts[1], { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } });
      return;
    case 'pdf-input':
      assert.deepEqual(userParts[1], { inlineData: { mimeType: 'application/pdf', data: PDF_BASE64 } });
      return;
    case 'audio-input':
      assert.deepEqual(userParts[1], { inlineData: { mimeType: 'audio/wav', data: WAV_BASE64 } });
      return;
    case 'reasoning':
      assert.deepEqual(body.generationConfig.thinkingConfig, { thinkingLevel: 'HIGH', includeThoughts: true });
      return;
    case 'stop-sequences':
      assert.deepEqual(body.generationConfig.stopSequences, ['simulator']);
      return;
    case 'prompt-caching':
      // Gemini caches implicitly: no key, no hints; the cached tokens come back in usage.
      assert.equal(body.systemInstruction.parts.length, 1);
      assert.equal(JSON.stringify(body).includes('conversation-42'), false);
      return;
    default:
      // A case that checks its request must have its check here, not pass unchecked.
      assert.fail(`no request check for ${caseId}`);
  }
}

export const GOOGLE_SUBJECT: ConformanceSubject = {
  name: 'google',
  provider: 'google',
  adapter: googleAdapter,
  config: { id: 'google', kind: 'google', name: 'Google AI Studio', timeoutMs: 10_000, cacheFamily: 'none', apiKey: KEY },
  upstreamModel: MODEL,
  startUpstream: () => startGeminiUpstream({ apiKey: KEY }),
  checkRequest: checkGeminiRequest,
  reasoningText: true,
  providerParameters: [],
  skips: {},
};
