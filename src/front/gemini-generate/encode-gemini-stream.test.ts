import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ResponseMeta } from '../front-dialect.ts';
import { GeminiStreamEncoder, type GeminiFraming } from './encode-gemini-stream.ts';
import { encodeGeminiResponse } from './encode-gemini-response.ts';
import { renderGeminiError } from './render-gemini-error.ts';

const meta: ResponseMeta = {
  id: 'gen-1-abc',
  created: 1700000000,
  model: 'acme/mock-1',
  provider: 'local',
  excludeReasoning: false,
  cost: 0.0001,
};
const req = (reasoning?: CanonicalRequest['reasoning']): CanonicalRequest => ({
  models: [{ model: 'acme/mock-1' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
  sampling: {},
  stream: true,
  extra: {},
  ...(reasoning === undefined ? {} : { reasoning }),
});
const usage = { input: 10, cacheRead: 4, cacheWrite: 0, output: 7, reasoning: 3 };

const PARTS: StreamPart[] = [
  { type: 'stream-start' },
  { type: 'reasoning-delta', text: 'Hmm.' },
  { type: 'reasoning-signature', signature: 'sig' },
  { type: 'text-delta', text: 'Hel' },
  { type: 'text-delta', text: 'lo "x"', plain: undefined },
  { type: 'tool-call-start', index: 0, id: 'c1', name: 'f' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
  { type: 'tool-call-end', index: 0 },
  { type: 'finish', reason: { unified: 'tool_calls', raw: 'tool_calls' } },
  { type: 'usage', usage },
];

function run(framing: GeminiFraming, parts: StreamPart[], r = req({ enabled: true })): string {
  const enc = new GeminiStreamEncoder(meta, r, framing);
  let text = enc.start();
  for (const p of parts) text += enc.push(p);
  return text + enc.end(meta.cost);
}

function sseChunks(text: string): any[] {
  assert.ok(text.endsWith('\n\n'));
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      assert.ok(block.startsWith('data: '), block);
      return JSON.parse(block.slice(6));
    });
}

describe('GeminiStreamEncoder', () => {
  it('SSE: text and thoughts as they come, a function call whole, the finish and usage last; every chunk names the model and the response', () => {
    const chunks = sseChunks(run('sse', PARTS));
    const parts = chunks.map((c) => c.candidates[0].content.parts);
    assert.deepEqual(parts, [
      [{ text: 'Hmm.', thought: true }],
      [{ text: '', thought: true, thoughtSignature: 'sig' }],
      [{ text: 'Hel' }],
      [{ text: 'lo "x"' }],
      [{ functionCall: { id: 'c1', name: 'f', args: { a: 1 } } }],
      [{ text: '' }],
    ]);
    const last = chunks.at(-1);
    assert.equal(last.candidates[0].finishReason, 'STOP');
    assert.deepEqual(last.usageMetadata, {
      promptTokenCount: 10,
      candidatesTokenCount: 4,
      totalTokenCount: 17,
      cachedContentTokenCount: 4,
      thoughtsTokenCount: 3,
      cost: 0.0001,
    });
    for (const c of chunks) {
      assert.equal(c.modelVersion, 'acme/mock-1');
      assert.equal(c.responseId, 'gen-1-abc');
    }
    assert.equal(
      chunks.slice(0, -1).some((c) => 'finishReason' in c.candidates[0]),
      false,
    );
  });

  it('the JSON array framing is one array of the same chunks', () => {
    const text = run('json-array', PARTS);
    assert.ok(text.startsWith('[{') && text.endsWith('}]'));
    assert.deepEqual(JSON.parse(text), sseChunks(run('sse', PARTS)));
  });

  it('thoughts are left out unless asked for (a signature stays, on an empty thought)', () => {
    const chunks = sseChunks(run('sse', PARTS, req({ enabled: true, exclude: true })));
    assert.deepEqual(chunks[0].candidates[0].content.parts, [{ text: '', thought: true, thoughtSignature: 'sig' }]);
    assert.equal(JSON.stringify(chunks).includes('Hmm.'), false);
    assert.equal(JSON.stringify(sseChunks(run('sse', PARTS, req()))).includes('Hmm.'), false, 'no thinkingConfig: no thoughts');
  });

  it('calls still open at the end go in the last chunk; no usage → the estimate', () => {
    const chunks = sseChunks(
      run('sse', [
        { type: 'tool-call-start', index: 0, id: 'c', name: 'g' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      ]),
    );
    assert.deepEqual(chunks.at(-1).candidates[0].content.parts, [{ functionCall: { id: 'c', name: 'g', args: {} } }]);
    assert.ok(chunks.at(-1).usageMetadata.promptTokenCount > 0);
  });

  it('an error after the start is a last {error} chunk, and the array is closed; nothing after it', () => {
    const err = new GatewayError('provider_error', 'upstream broke');
    for (const framing of ['sse', 'json-array'] as const) {
      const enc = new GeminiStreamEncoder(meta, req(), framing);
      let text = enc.start() + enc.push({ type: 'text-delta', text: 'a' }) + enc.error(err);
      text += enc.end() + enc.error(err);
      const chunks = framing === 'sse' ? sseChunks(text) : JSON.parse(text);
      assert.equal(chunks.length, 2);
      assert.deepEqual(chunks[1].error.code, 502);
      assert.deepEqual(chunks[1].error.status, 'UNAVAILABLE');
    }
    // Before any start (a keep-alive opened the response): the array is opened first.
    assert.equal(JSON.parse(new GeminiStreamEncoder(meta, req(), 'json-array').error(err))[0].error.message, 'upstream broke');
  });
});

describe('encodeGeminiResponse', () => {
  it('one candidate: text, thoughts when asked, calls with ids and args, media; the finish mapped; usage; ids', () => {
    const resp = encodeGeminiResponse(
      {
        content: [
          { type: 'reasoning', text: 'plan', signature: 's' },
          { type: 'text', text: 'Hi' },
          { type: 'tool-call', id: 'c', name: 'f', arguments: '{"x":[1]}', signature: 'ts' },
          { type: 'image-output', url: 'data:image/png;base64,QUJD' },
          { type: 'redacted-reasoning', data: 'zzz' },
        ],
        finish: { unified: 'length', raw: 'length' },
        usage: { input: 5, cacheRead: 0, cacheWrite: 0, output: 3, reasoning: 0 },
      },
      meta,
      req({ enabled: true }),
    );
    assert.deepEqual(resp, {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'plan', thought: true, thoughtSignature: 's' },
              { text: 'Hi' },
              { functionCall: { id: 'c', name: 'f', args: { x: [1] } }, thoughtSignature: 'ts' },
              { inlineData: { mimeType: 'image/png', data: 'QUJD' } },
            ],
          },
          finishReason: 'MAX_TOKENS',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8, cost: 0.0001 },
      modelVersion: 'acme/mock-1',
      responseId: 'gen-1-abc',
    });
  });

  it("finish reasons: a Gemini upstream's own kept, others mapped", () => {
    const finish = (unified: any, raw: string | null) =>
      encodeGeminiResponse({ content: [], finish: { unified, raw }, usage: null }, meta, req()).candidates[0]!.finishReason;
    assert.equal(finish('content_filter', 'RECITATION'), 'RECITATION');
    assert.equal(finish('content_filter', 'content_filter'), 'SAFETY');
    assert.equal(finish('stop', 'end_turn'), 'STOP');
    assert.equal(finish('tool_calls', 'tool_use'), 'STOP');
    assert.equal(finish('error', null), 'OTHER');
  });
});

describe('renderGeminiError', () => {
  it("Google's shape: code, message, status name, ErrorInfo with the gateway's code, RetryInfo from Retry-After", () => {
    const limited = renderGeminiError(new GatewayError('rate_limited', 'slow down', { headers: { 'retry-after': '7' } }));
    assert.equal(limited.status, 429);
    assert.equal(limited.headers['retry-after'], '7');
    assert.deepEqual(limited.body, {
      error: {
        code: 429,
        message: 'slow down',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RATE_LIMITED', domain: 'switchyard' },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' },
        ],
      },
    });
    const statuses = (
      [
        'invalid_parameter',
        'authentication_required',
        'insufficient_quota',
        'forbidden',
        'not_found',
        'model_not_found',
        'timeout',
        'provider_error',
        'no_provider_available',
        'internal_error',
      ] as const
    ).map((code) => {
      const r = renderGeminiError(new GatewayError(code, 'x', { metadata: { provider_name: 'p', raw: { a: 1 } } }));
      return [r.status, (r.body as any).error.status];
    });
    assert.deepEqual(statuses, [
      [400, 'INVALID_ARGUMENT'],
      [401, 'UNAUTHENTICATED'],
      [402, 'RESOURCE_EXHAUSTED'],
      [403, 'PERMISSION_DENIED'],
      [404, 'NOT_FOUND'],
      [404, 'NOT_FOUND'],
      [408, 'DEADLINE_EXCEEDED'],
      [502, 'UNAVAILABLE'],
      [503, 'UNAVAILABLE'],
      [500, 'INTERNAL'],
    ]);
    const body = renderGeminiError(new GatewayError('provider_error', 'x', { metadata: { provider_name: 'p', raw: { a: 1 } } }))
      .body as any;
    assert.deepEqual(body.error.details[0].metadata, { provider_name: 'p', raw: '{"a":1}' });
  });
});
