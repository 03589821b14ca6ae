import type { RequestParameter } from '../../../src/canonical/request.ts';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../../src/errors/gateway-error.ts';
import { buildOpenAIChatBody, convertToOpenAIChatRequest } from '../../../src/providers/openai/convert-to-openai-chat-request.ts';
import { OPENAI_PROFILE_NAMES } from '../../../src/providers/openai/openai-profiles.ts';
import { openaiAdapter } from '../../../src/providers/openai/openai-adapter.ts';
import { testEndpoint, testRequest } from './openai-test-helpers.ts';

describe('convertToOpenAIChatRequest', () => {
  it('builds url and headers', () => {
    const up = convertToOpenAIChatRequest(
      testRequest(),
      testEndpoint({ baseUrl: 'https://api.example.com/v1//', apiKey: 'k', headers: { 'api-key': 'azure' } }),
    );
    assert.equal(up.url, 'https://api.example.com/v1/chat/completions');
    assert.deepEqual(up.headers, { 'content-type': 'application/json', authorization: 'Bearer k', 'api-key': 'azure' });
    assert.equal(JSON.parse(up.body).model, 'gpt-test');
  });

  it("the body with tools is the object's JSON, each schema's text the request's one serialization of it", () => {
    const parameters = { type: 'object', properties: { q: { type: 'string', description: 'ünï "quoted"\n' } }, required: ['q'] };
    const req = testRequest({
      tools: [
        { name: 'search', description: 'Searches "things"', parameters, strict: true },
        { name: 'bare', parameters: {} },
      ],
      toolChoice: { type: 'auto' },
      stream: true,
    });
    const ep = testEndpoint();
    const up = convertToOpenAIChatRequest(req, ep);
    assert.deepEqual(JSON.parse(up.body), JSON.parse(JSON.stringify(buildOpenAIChatBody(req, ep))));
    assert.ok(up.body.includes(JSON.stringify(parameters)));
    // Built once per endpoint, copied per request: one request's headers are not another's.
    const again = convertToOpenAIChatRequest(req, ep);
    assert.notEqual(again.headers, up.headers);
    assert.deepEqual(again.headers, up.headers);
  });

  it('maps every user part kind', () => {
    const body = buildOpenAIChatBody(
      testRequest({
        messages: [
          {
            role: 'user',
            name: 'ann',
            content: [
              { type: 'text', text: 'look', cacheControl: { type: 'ephemeral' } },
              { type: 'image', url: 'https://x/cat.png', detail: 'low' },
              { type: 'image', url: 'data:image/png;base64,AAAA' },
              { type: 'audio', data: 'UklGR', format: 'wav' },
              { type: 'file', data: 'JVBERi0', mediaType: 'application/pdf', filename: 'a.pdf' },
              { type: 'file', data: 'data:text/plain;base64,aGk=' },
              { type: 'file', data: 'JVBERi0', mediaType: 'application/pdf' },
              { type: 'file', url: 'https://x/dog.jpg', mediaType: 'image/jpeg' },
            ],
          },
        ],
      }),
      testEndpoint(),
    );
    assert.deepEqual(body.messages, [
      {
        role: 'user',
        name: 'ann',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'https://x/cat.png', detail: 'low' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0', filename: 'a.pdf' } },
          { type: 'file', file: { file_data: 'data:text/plain;base64,aGk=', filename: 'file-5' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0', filename: 'file-6.pdf' } },
          { type: 'image_url', image_url: { url: 'https://x/dog.jpg' } },
        ],
      },
    ]);
  });

  it('refuses a file given only by a non-image URL', () => {
    const req = testRequest({
      messages: [{ role: 'user', content: [{ type: 'file', url: 'https://x/a.pdf', mediaType: 'application/pdf' }] }],
    });
    assert.throws(
      () => buildOpenAIChatBody(req, testEndpoint()),
      (err: unknown) => err instanceof GatewayError && err.code === 'unsupported_content',
    );
  });

  it('joins system blocks, sends empty assistant text beside tool calls, drops reasoning', () => {
    const body = buildOpenAIChatBody(
      testRequest({
        messages: [
          {
            role: 'system',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'redacted-reasoning', data: 'xx' },
              { type: 'tool-call', id: 'c', name: 'f', arguments: '{}' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'x' },
              { type: 'text', text: 'y' },
            ],
          },
        ],
      }),
      testEndpoint(),
    );
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'a\nb' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'assistant', content: 'xy' },
    ]);
  });

  it('maps tool choice keywords and text response format', () => {
    for (const type of ['auto', 'none', 'required'] as const) {
      assert.equal(buildOpenAIChatBody(testRequest({ toolChoice: { type } }), testEndpoint()).tool_choice, type);
    }
    assert.deepEqual(buildOpenAIChatBody(testRequest({ responseFormat: { type: 'text' } }), testEndpoint()).response_format, {
      type: 'text',
    });
  });

  it('passes through only the extras the profile lists, never store', () => {
    const extra = {
      verbosity: 'high',
      service_tier: 'flex',
      prediction: { type: 'content', content: 'x' },
      web_search_options: {},
      store: true,
      reasoning: { effort: 'x' },
    };
    // service_tier flex and web search cost extra: forwarded because the operator enabled them.
    const openai = buildOpenAIChatBody(
      testRequest({ extra }),
      testEndpoint({ profile: 'openai', unpricedOptions: new Set(['service_tier', 'web_search_options']) }),
    );
    assert.equal(openai.verbosity, 'high');
    assert.equal(openai.service_tier, 'flex');
    assert.deepEqual(openai.prediction, { type: 'content', content: 'x' });
    assert.deepEqual(openai.web_search_options, {});
    assert.equal('store' in openai, false);
    assert.equal('reasoning' in openai, false);
    const generic = buildOpenAIChatBody(testRequest({ extra }), testEndpoint());
    assert.deepEqual(Object.keys(generic), ['model', 'messages']);
  });

  it('sends modalities, audio and the reasoning effort; drops a token budget and empty lists', () => {
    const body = buildOpenAIChatBody(
      testRequest({
        modalities: ['text', 'audio'],
        audio: { voice: 'alloy', format: 'wav' },
        reasoning: { maxTokens: 500 },
        stop: [],
        tools: [],
      }),
      testEndpoint({ profile: 'openai' }),
    );
    assert.deepEqual(body.modalities, ['text', 'audio']);
    assert.deepEqual(body.audio, { voice: 'alloy', format: 'wav' });
    assert.equal('reasoning_effort' in body, false);
    assert.equal('stop' in body, false);
    assert.equal('tools' in body, false);
  });

  it('treats an unknown profile as generic', () => {
    const body = buildOpenAIChatBody(testRequest({ maxOutputTokens: 5 }), testEndpoint({ profile: 'no-such-vendor' }));
    assert.equal(body.max_tokens, 5);
    assert.ok(OPENAI_PROFILE_NAMES.includes('generic') && OPENAI_PROFILE_NAMES.includes('openai'));
    assert.equal(OPENAI_PROFILE_NAMES.includes('no-such-vendor'), false);
  });

  it('advertises every parameter some profile carries', () => {
    for (const p of [
      'temperature',
      'top_p',
      'top_k',
      'min_p',
      'repetition_penalty',
      'tools',
      'tool_choice',
      'response_format',
      'max_tokens',
      'stop',
      'seed',
      'reasoning',
    ] as const) {
      assert.ok(openaiAdapter.supportedParameters.has(p), p);
    }
    // Only OpenRouter forwards top_a; the adapter as a whole can carry it, a generic server cannot.
    assert.equal(openaiAdapter.supportedParameters.has('top_a'), true);
    assert.equal(openaiAdapter.supportedParametersFor!(testEndpoint().provider).has('top_a'), false);
  });
});

it('parameters the endpoint does not support are dropped even when the vendor profile carries them', () => {
  const ep = testEndpoint({ profile: 'openai' });
  const narrowed = { ...ep, supportedParameters: new Set<RequestParameter>(['max_tokens', 'tools']) };
  const body = buildOpenAIChatBody(testRequest({ sampling: { temperature: 0.5, topP: 0.9 }, maxOutputTokens: 10 }), narrowed);
  assert.equal('temperature' in body, false);
  assert.equal('top_p' in body, false);
  assert.equal(body.max_completion_tokens, 10);
});
