import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamPart } from '../../../src/canonical/stream-part.ts';
import { foldStreamParts } from '../../../src/canonical/fold-stream-parts.ts';
import { ALL_PARAMETERS } from '../../../src/providers/parameter-rules.ts';
import { convertOpenAIChatResponse } from '../../../src/providers/openai/convert-openai-chat-response.ts';
import { buildOpenAIChatBody, convertToOpenAIChatRequest } from '../../../src/providers/openai/convert-to-openai-chat-request.ts';
import { OpenAIChatStreamDecoder } from '../../../src/providers/openai/openai-chat-stream-decoder.ts';
import { openaiAdapter } from '../../../src/providers/openai/openai-adapter.ts';
import { OPENAI_PROFILES, openAIProfileFor } from '../../../src/providers/openai/openai-profiles.ts';
import { testEndpoint, testRequest } from './openai-test-helpers.ts';

// The per-vendor parameter mapping and wire quirks, unit by unit. The same profiles run
// against emulators over HTTP in test/conformance/.

function body(profile: string, overrides: Parameters<typeof testRequest>[0] = {}, endpoint: Parameters<typeof testEndpoint>[0] = {}) {
  return buildOpenAIChatBody(testRequest(overrides), testEndpoint({ profile, ...endpoint }));
}

describe('vendor profiles: the mapping is data', () => {
  it('states a rule for every parameter in every profile, and advertises exactly what it does not drop', () => {
    for (const profile of OPENAI_PROFILES.values()) {
      for (const name of ALL_PARAMETERS) assert.ok(profile.rules[name] !== undefined, `${profile.name}.${name}`);
      const kept = ALL_PARAMETERS.filter((n) => profile.rules[n].action !== 'drop');
      assert.deepEqual([...profile.supported].sort(), [...kept].sort(), profile.name);
      for (const name of ALL_PARAMETERS) {
        const rule = profile.rules[name];
        if (rule.action === 'drop' || rule.action === 'gateway') assert.ok(rule.note, `${profile.name}.${name} says why`);
      }
      assert.deepEqual(openaiAdapter.supportedParametersFor!(testEndpoint({ profile: profile.name }).provider), profile.supported);
    }
  });

  it('never sends a dropped parameter', () => {
    const req = {
      sampling: {
        temperature: 0.5,
        topP: 0.9,
        topK: 5,
        minP: 0.1,
        topA: 0.2,
        frequencyPenalty: 0.1,
        presencePenalty: 0.1,
        repetitionPenalty: 1.1,
        seed: 3,
        logitBias: { '1': 1 },
      },
      maxOutputTokens: 10,
      stop: ['x'],
      user: 'u',
      promptCacheKey: 'k',
      modalities: ['text'],
      audio: { voice: 'a' },
      reasoning: { effort: 'high' as const },
    };
    for (const profile of OPENAI_PROFILES.values()) {
      const sent = body(profile.name, req);
      for (const name of ALL_PARAMETERS) {
        const rule = profile.rules[name];
        if (rule.action === 'drop' && name !== 'structured_outputs') assert.equal(name in sent, false, `${profile.name} sent ${name}`);
      }
    }
  });

  it('bounds max_tokens by the endpoint limit whatever the vendor', () => {
    const ep = { ...testEndpoint({ profile: 'deepseek' }), maxOutputTokens: 8192 };
    assert.equal(buildOpenAIChatBody(testRequest({ maxOutputTokens: 100_000 }), ep).max_tokens, 8192);
    assert.equal(buildOpenAIChatBody(testRequest({ maxOutputTokens: 100 }), ep).max_tokens, 100);
  });
});

describe('vendor profiles: each vendor', () => {
  it('mistral: random_seed, safe_prompt passed, no stream_options, unknown fields dropped', () => {
    const sent = body('mistral', { sampling: { seed: 7 }, user: 'u', stream: true, extra: { safe_prompt: true, deferred: true } });
    assert.equal(sent.random_seed, 7);
    assert.equal('seed' in sent, false);
    assert.equal(sent.safe_prompt, true);
    assert.equal('deferred' in sent, false);
    assert.equal('user' in sent, false);
    assert.equal(sent.stream, true);
    assert.equal('stream_options' in sent, false);
  });

  it('xai: search_parameters and deferred pass through; efforts map to low or high', () => {
    const search = { mode: 'on', return_citations: true };
    const sent = body('xai', { extra: { search_parameters: search, deferred: true, safe_prompt: true }, reasoning: { effort: 'medium' } });
    assert.deepEqual(sent.search_parameters, search);
    assert.equal(sent.deferred, true);
    assert.equal('safe_prompt' in sent, false);
    assert.equal(sent.reasoning_effort, 'high');
    assert.equal(body('xai', { reasoning: { effort: 'minimal' } }).reasoning_effort, 'low');
    assert.equal('reasoning_effort' in body('xai', { reasoning: { effort: 'none' } }), false);
  });

  it('groq: reasoning_effort plus include_reasoning, false when the reasoning is excluded', () => {
    assert.deepEqual(pick(body('groq', { reasoning: { effort: 'low' } }), 'reasoning_effort', 'include_reasoning'), {
      reasoning_effort: 'low',
      include_reasoning: true,
    });
    assert.deepEqual(pick(body('groq', { reasoning: { effort: 'high', exclude: true } }), 'reasoning_effort', 'include_reasoning'), {
      reasoning_effort: 'high',
      include_reasoning: false,
    });
    assert.equal('logit_bias' in body('groq', { sampling: { logitBias: { '1': 2 } } }), false);
  });

  it('deepseek: a JSON schema goes as JSON mode; no seed', () => {
    const sent = body('deepseek', {
      responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object' } },
      sampling: { seed: 1 },
    });
    assert.deepEqual(sent.response_format, { type: 'json_object' });
    assert.equal('seed' in sent, false);
  });

  it("openrouter: a reasoning object (budget over effort), extras passed, the gateway's provider preferences not", () => {
    const sent = body(
      'openrouter',
      {
        reasoning: { effort: 'high', maxTokens: 2000, exclude: true },
        sampling: { topA: 0.3 },
        provider: { order: ['openai'] },
        extra: { plugins: [{ id: 'web' }], transforms: ['middle-out'], provider: { order: ['x'] } },
      },
      { unpricedOptions: new Set(['plugins']) },
    );
    assert.deepEqual(sent.reasoning, { max_tokens: 2000, exclude: true });
    assert.equal('reasoning_effort' in sent, false);
    assert.equal(sent.top_a, 0.3);
    assert.deepEqual(sent.plugins, [{ id: 'web' }]);
    assert.deepEqual(sent.transforms, ['middle-out']);
    assert.equal('provider' in sent, false);
    assert.deepEqual(body('openrouter', { reasoning: { effort: 'low' } }).reasoning, { effort: 'low' });
  });

  it('azure: deployment URL with api-version, api-key header instead of Bearer', () => {
    const up = convertToOpenAIChatRequest(
      testRequest(),
      testEndpoint({ profile: 'azure', baseUrl: 'https://acme.openai.azure.com/', apiKey: 'az-key' }, 'gpt-4o prod'),
    );
    assert.equal(up.url, 'https://acme.openai.azure.com/openai/deployments/gpt-4o%20prod/chat/completions?api-version=2024-10-21');
    assert.deepEqual(up.headers, { 'content-type': 'application/json', 'api-key': 'az-key' });
    const preview = convertToOpenAIChatRequest(
      testRequest(),
      testEndpoint({ profile: 'azure', baseUrl: 'https://a.example', options: { api_version: '2025-04-01-preview' } }, 'd'),
    );
    assert.equal(preview.url, 'https://a.example/openai/deployments/d/chat/completions?api-version=2025-04-01-preview');
    assert.equal(JSON.parse(up.body).max_completion_tokens, undefined);
    assert.equal(body('azure', { maxOutputTokens: 9 }).max_completion_tokens, 9);
  });

  it('ollama and vllm: no credential sent without a key; ollama drops what it ignores', () => {
    for (const profile of ['ollama', 'vllm']) {
      const up = convertToOpenAIChatRequest(testRequest(), testEndpoint({ profile, baseUrl: 'http://127.0.0.1:11434/v1' }));
      assert.deepEqual(up.headers, { 'content-type': 'application/json' }, profile);
    }
    assert.equal('tool_choice' in body('ollama', { toolChoice: { type: 'required' } }), false);
    assert.equal(body('vllm', { sampling: { topK: 20 } }).top_k, 20);
    assert.equal(openAIProfileFor(testEndpoint({ profile: 'ollama' }).provider).name, 'ollama');
  });

  it('shortens tool-call ids OpenAI would refuse, the same way on the call and its result', () => {
    const long = `gsig_${'A'.repeat(300)}_abc`;
    const sent = body('openai', {
      messages: [
        { role: 'assistant', content: [{ type: 'tool-call', id: long, name: 'f', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: long, content: 'ok' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'call_short', name: 'f', arguments: '{}' }] },
      ],
    });
    const [call, result, short] = sent.messages as Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    const id = call!.tool_calls![0]!.id;
    assert.ok(id.length <= 40 && id.startsWith('call_'));
    assert.equal(result!.tool_call_id, id);
    assert.equal(short!.tool_calls![0]!.id, 'call_short');
  });
});

describe('vendor quirks in answers', () => {
  it('carries xAI citations on the finish, streamed (last chunk, after the finish) and not', () => {
    const citations = ['https://x.com/a/status/1', 'https://example.com/b'];
    const plain: StreamPart[] = [];
    convertOpenAIChatResponse(
      {
        id: 'r',
        model: 'grok',
        choices: [{ index: 0, message: { role: 'assistant', content: 'News.' }, finish_reason: 'stop' }],
        citations,
        usage: { prompt_tokens: 1, completion_tokens: 1 },
      },
      testEndpoint({ profile: 'xai' }),
      (p) => plain.push(p),
    );
    const streamed: StreamPart[] = [];
    const decoder = new OpenAIChatStreamDecoder(testEndpoint({ profile: 'xai' }), (p) => streamed.push(p));
    for (const chunk of [
      { id: 'r', model: 'grok', choices: [{ index: 0, delta: { role: 'assistant', content: 'News.' }, finish_reason: null }] },
      { id: 'r', model: 'grok', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      { id: 'r', model: 'grok', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 }, citations },
    ])
      decoder.onEvent({ event: null, data: JSON.stringify(chunk) });
    decoder.onEvent({ event: null, data: '[DONE]' });
    decoder.end();
    for (const parts of [plain, streamed]) {
      assert.deepEqual(foldStreamParts(parts).response.finish, { unified: 'stop', raw: 'stop', citations });
    }
  });

  it('reads Mistral thinking parts as reasoning, streamed and not', () => {
    const content = [
      { type: 'thinking', thinking: [{ type: 'text', text: 'Let me see.' }] },
      { type: 'text', text: '42' },
    ];
    const plain: StreamPart[] = [];
    convertOpenAIChatResponse(
      { choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] },
      testEndpoint({ profile: 'mistral' }),
      (p) => plain.push(p),
    );
    assert.deepEqual(foldStreamParts(plain).response.content, [
      { type: 'reasoning', text: 'Let me see.' },
      { type: 'text', text: '42' },
    ]);
  });
});

function pick(o: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in o) out[k] = o[k];
  return out;
}
