import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeChatRequest } from './decode-chat-request.ts';
import { assertRequestError } from '../shared/assert-gateway-error.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';

const USER = [{ role: 'user', content: 'hi' }];

function decode(extra: Record<string, unknown>) {
  return decodeChatRequest({ model: 'openai/gpt-4o', messages: USER, ...extra });
}

function assertRejects(body: unknown, code: ErrorCode, param?: string): GatewayError {
  return assertRequestError(() => decodeChatRequest(body), code, param);
}

function rejects(extra: Record<string, unknown>, code: ErrorCode, param: string): GatewayError {
  return assertRejects({ model: 'openai/gpt-4o', messages: USER, ...extra }, code, param);
}

describe('decodeChatRequest: body and messages', () => {
  it('rejects a body that is not a JSON object', () => {
    for (const body of [null, 'text', 42, [], true, undefined]) assertRejects(body, 'invalid_json');
  });

  it('requires messages (or prompt)', () => {
    assertRejects({ model: 'a/b' }, 'missing_parameter', 'messages');
    assertRejects({ model: 'a/b', messages: null }, 'missing_parameter', 'messages');
  });

  it('rejects empty or non-array messages', () => {
    assertRejects({ messages: [] }, 'invalid_parameter', 'messages');
    assertRejects({ messages: 'hi' }, 'invalid_parameter', 'messages');
    assertRejects({ messages: { role: 'user' } }, 'invalid_parameter', 'messages');
  });

  it('turns the deprecated prompt into one user message when messages is absent', () => {
    const req = decodeChatRequest({ model: 'a/b', prompt: 'Say hi' });
    assert.deepEqual(req.messages, [{ role: 'user', content: [{ type: 'text', text: 'Say hi' }] }]);
    assertRejects({ prompt: ['a'] }, 'invalid_parameter', 'prompt');
  });

  it('prefers messages over prompt', () => {
    const req = decodeChatRequest({ messages: USER, prompt: 'ignored' });
    assert.deepEqual(req.messages, [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });
});

describe('decodeChatRequest: a minimal request', () => {
  it('sets only what the client set', () => {
    const req = decodeChatRequest({ model: 'openai/gpt-4o', messages: USER });
    assert.deepEqual(req, {
      models: [{ model: 'openai/gpt-4o' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      sampling: {},
      stream: false,
      extra: {},
    });
  });

  it('leaves models empty without a model (account default)', () => {
    assert.deepEqual(decodeChatRequest({ messages: USER }).models, []);
  });

  it('treats null as not set', () => {
    const req = decode({ temperature: null, stop: null, tools: null, reasoning: null, provider: null, stream: null });
    assert.deepEqual(req.sampling, {});
    assert.equal(req.stop, undefined);
    assert.equal(req.tools, undefined);
    assert.equal(req.reasoning, undefined);
    assert.equal(req.provider, undefined);
    assert.equal(req.stream, false);
  });

  it('ignores unknown fields', () => {
    const req = decode({ n: 2, logprobs: true, something_new: { a: 1 }, stream_options: { include_usage: true } });
    assert.deepEqual(req.extra, {});
    assert.equal('n' in req, false);
  });
});

describe('decodeChatRequest: numeric ranges', () => {
  const cases: Array<[string, unknown[], unknown[]]> = [
    // field, accepted values, rejected values
    ['temperature', [0, 1.5, 2], [-0.1, 2.01, '1']],
    ['top_p', [0, 0.5, 1], [-0.1, 1.1, true]],
    ['max_tokens', [1, 4096], [0, -1, 1.5, '10']],
    ['max_completion_tokens', [1, 100], [0, 2.5, {}]],
    ['frequency_penalty', [-2, 0, 2], [-2.1, 2.1, 'x']],
    ['presence_penalty', [-2, 0, 2], [-3, 3]],
    ['repetition_penalty', [0.01, 1, 2], [0, -1, 2.1]],
    ['top_k', [0, 1, 40], [-1, 1.5, '4']],
    ['min_p', [0, 0.1, 1], [-0.1, 1.1]],
    ['top_a', [0, 1], [-0.5, 1.5]],
    ['seed', [0, -5, 123456789], [1.5, '1']],
  ];
  for (const [field, good, bad] of cases) {
    it(`${field}: accepts ${JSON.stringify(good)}, rejects ${JSON.stringify(bad)}`, () => {
      for (const v of good) decode({ [field]: v });
      for (const v of bad) rejects({ [field]: v }, 'invalid_parameter', field);
    });
  }

  it('maps sampling fields to their canonical names', () => {
    const req = decode({
      temperature: 0.7,
      top_p: 0.9,
      top_k: 40,
      min_p: 0.05,
      top_a: 0.2,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
      repetition_penalty: 1.1,
      seed: 7,
      logit_bias: { '50256': -100, '42': 5 },
    });
    assert.deepEqual(req.sampling, {
      temperature: 0.7,
      topP: 0.9,
      topK: 40,
      minP: 0.05,
      topA: 0.2,
      frequencyPenalty: 0.5,
      presencePenalty: -0.5,
      repetitionPenalty: 1.1,
      seed: 7,
      logitBias: { '50256': -100, '42': 5 },
    });
  });

  it('logit_bias must map token ids to numbers', () => {
    rejects({ logit_bias: [1] }, 'invalid_parameter', 'logit_bias');
    rejects({ logit_bias: { abc: 1 } }, 'invalid_parameter', 'logit_bias');
    rejects({ logit_bias: { '12': 'x' } }, 'invalid_parameter', 'logit_bias.12');
  });

  it('max_completion_tokens wins over max_tokens', () => {
    assert.equal(decode({ max_tokens: 10 }).maxOutputTokens, 10);
    assert.equal(decode({ max_completion_tokens: 20 }).maxOutputTokens, 20);
    assert.equal(decode({ max_tokens: 10, max_completion_tokens: 20 }).maxOutputTokens, 20);
  });
});

describe('decodeChatRequest: scalar fields', () => {
  it('stop: a string or an array of strings, any length', () => {
    assert.deepEqual(decode({ stop: 'END' }).stop, ['END']);
    assert.deepEqual(decode({ stop: ['a', 'b', 'c', 'd', 'e'] }).stop, ['a', 'b', 'c', 'd', 'e']);
    assert.equal(decode({ stop: [] }).stop, undefined);
    rejects({ stop: 5 }, 'invalid_parameter', 'stop');
    rejects({ stop: ['a', 1] }, 'invalid_parameter', 'stop[1]');
  });

  it('booleans and strings', () => {
    const req = decode({ stream: true, parallel_tool_calls: false, user: 'u-1', prompt_cache_key: 'k' });
    assert.equal(req.stream, true);
    assert.equal(req.parallelToolCalls, false);
    assert.equal(req.user, 'u-1');
    assert.equal(req.promptCacheKey, 'k');
    rejects({ stream: 'yes' }, 'invalid_parameter', 'stream');
    rejects({ parallel_tool_calls: 1 }, 'invalid_parameter', 'parallel_tool_calls');
    rejects({ user: 5 }, 'invalid_parameter', 'user');
    rejects({ prompt_cache_key: {} }, 'invalid_parameter', 'prompt_cache_key');
  });

  it('metadata: a map of strings', () => {
    assert.deepEqual(decode({ metadata: { a: 'b' } }).metadata, { a: 'b' });
    rejects({ metadata: 'x' }, 'invalid_parameter', 'metadata');
    rejects({ metadata: { a: 1 } }, 'invalid_parameter', 'metadata.a');
  });

  it('modalities: text, audio, image', () => {
    assert.deepEqual(decode({ modalities: ['text', 'audio', 'image'] }).modalities, ['text', 'audio', 'image']);
    rejects({ modalities: ['video'] }, 'invalid_parameter', 'modalities[0]');
    rejects({ modalities: 'text' }, 'invalid_parameter', 'modalities');
  });

  it('audio: an object passed on', () => {
    assert.deepEqual(decode({ audio: { voice: 'alloy', format: 'wav' } }).audio, { voice: 'alloy', format: 'wav' });
    rejects({ audio: 'alloy' }, 'invalid_parameter', 'audio');
  });

  it('route: only fallback', () => {
    decode({ route: 'fallback' });
    rejects({ route: 'random' }, 'invalid_parameter', 'route');
  });
});

describe('decodeChatRequest: models and fallbacks', () => {
  it('model + models + fallbacks → one list, primary first, de-duplicated', () => {
    const req = decodeChatRequest({
      model: 'openai/gpt-4o',
      models: ['anthropic/claude', 'openai/gpt-4o'],
      fallbacks: ['google/gemini', { model: 'mistral/large', provider: { order: ['mistral'], sort: 'price' } }, 'anthropic/claude'],
      messages: USER,
    });
    assert.deepEqual(req.models, [
      { model: 'openai/gpt-4o' },
      { model: 'anthropic/claude' },
      { model: 'google/gemini' },
      { model: 'mistral/large', provider: { order: ['mistral'], sort: 'price' } },
    ]);
  });

  it('without model, the first of models is primary', () => {
    assert.deepEqual(decodeChatRequest({ models: ['a/b', 'c/d'], messages: USER }).models, [{ model: 'a/b' }, { model: 'c/d' }]);
  });

  it('rejects bad shapes', () => {
    rejects({ model: 5 }, 'invalid_parameter', 'model');
    rejects({ model: '' }, 'invalid_parameter', 'model');
    rejects({ models: 'a/b' }, 'invalid_parameter', 'models');
    rejects({ models: ['a/b', 3] }, 'invalid_parameter', 'models[1]');
    rejects({ fallbacks: 'a/b' }, 'invalid_parameter', 'fallbacks');
    rejects({ fallbacks: [4] }, 'invalid_parameter', 'fallbacks[0]');
    rejects({ fallbacks: [{ provider: {} }] }, 'missing_parameter', 'fallbacks[0].model');
    rejects({ fallbacks: [{ model: 'a/b', provider: { sort: 'vibes' } }] }, 'invalid_parameter', 'fallbacks[0].provider.sort');
  });
});

describe('decodeChatRequest: provider preferences', () => {
  it('maps every field', () => {
    const req = decode({
      provider: {
        order: ['openai', 'azure'],
        allow_fallbacks: false,
        require_parameters: true,
        data_collection: 'deny',
        zdr: true,
        only: ['openai'],
        ignore: ['deepinfra'],
        quantizations: ['fp8'],
        sort: 'throughput',
        max_price: { prompt: 1, completion: 2, request: 0, image: 0.5 },
        unknown_key: 1,
      },
    });
    assert.deepEqual(req.provider, {
      order: ['openai', 'azure'],
      allowFallbacks: false,
      requireParameters: true,
      dataCollection: 'deny',
      zdr: true,
      only: ['openai'],
      ignore: ['deepinfra'],
      quantizations: ['fp8'],
      sort: 'throughput',
      maxPrice: { prompt: 1, completion: 2, request: 0, image: 0.5 },
    });
  });

  it('rejects bad shapes', () => {
    rejects({ provider: [] }, 'invalid_parameter', 'provider');
    rejects({ provider: { order: 'openai' } }, 'invalid_parameter', 'provider.order');
    rejects({ provider: { only: [1] } }, 'invalid_parameter', 'provider.only[0]');
    rejects({ provider: { ignore: {} } }, 'invalid_parameter', 'provider.ignore');
    rejects({ provider: { quantizations: [null] } }, 'invalid_parameter', 'provider.quantizations[0]');
    rejects({ provider: { sort: 'cheapest' } }, 'invalid_parameter', 'provider.sort');
    rejects({ provider: { data_collection: 'maybe' } }, 'invalid_parameter', 'provider.data_collection');
    rejects({ provider: { allow_fallbacks: 'no' } }, 'invalid_parameter', 'provider.allow_fallbacks');
    rejects({ provider: { require_parameters: 1 } }, 'invalid_parameter', 'provider.require_parameters');
    rejects({ provider: { zdr: 'true' } }, 'invalid_parameter', 'provider.zdr');
    rejects({ provider: { max_price: 5 } }, 'invalid_parameter', 'provider.max_price');
    rejects({ provider: { max_price: { prompt: -1 } } }, 'invalid_parameter', 'provider.max_price.prompt');
    rejects({ provider: { max_price: { image: '1' } } }, 'invalid_parameter', 'provider.max_price.image');
  });
});

describe('decodeChatRequest: provider-specific fields', () => {
  it('passes them through untouched in extra', () => {
    const fields = {
      search_parameters: { mode: 'auto', max_search_results: 5, sources: [{ type: 'web' }] },
      safe_prompt: true,
      raw_mode: false,
      deferred: true,
      plugins: [{ id: 'file-parser', pdf: { engine: 'x' } }],
      verbosity: 'low',
      service_tier: 'flex',
      prediction: { type: 'content', content: 'x' },
      web_search_options: { search_context_size: 'low' },
      transforms: ['middle-out'],
    };
    const req = decode(fields);
    assert.deepEqual(req.extra, fields);
    assert.equal(req.extra.search_parameters, fields.search_parameters);
  });

  it('search_parameters.max_search_results: 1 to 30', () => {
    decode({ search_parameters: { max_search_results: 1 } });
    decode({ search_parameters: { max_search_results: 30 } });
    rejects({ search_parameters: { max_search_results: 0 } }, 'invalid_parameter', 'search_parameters.max_search_results');
    rejects({ search_parameters: { max_search_results: 31 } }, 'invalid_parameter', 'search_parameters.max_search_results');
    rejects({ search_parameters: { max_search_results: 2.5 } }, 'invalid_parameter', 'search_parameters.max_search_results');
    rejects({ search_parameters: 'on' }, 'invalid_parameter', 'search_parameters');
  });
});

describe('decodeChatRequest: inline PDFs counted', () => {
  const PDF = 'data:application/pdf;base64,JVBERi0xLjQK';
  const withParts = (...parts: unknown[]) =>
    decodeChatRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, ...parts] }] });
  it('counts the PDFs sent inline (by media type, or by their %PDF- bytes without one) and nothing else', () => {
    assert.equal(
      withParts({ type: 'file', file: { file_data: PDF } }, { type: 'file', file: { file_data: 'JVBERi0xLjcK', filename: 'b.pdf' } })
        .inlinePdfs,
      2,
    );
    assert.equal(withParts().inlinePdfs, undefined, 'absent without one: the pipeline looks no further');
    assert.equal(withParts({ type: 'file', file: { file_data: 'data:text/plain;base64,aGk=' } }).inlinePdfs, undefined);
    assert.equal(
      withParts({ type: 'file', file: { url: 'https://example.com/a.pdf', type: 'application/pdf' } }).inlinePdfs,
      undefined,
      'a PDF by URL is not read',
    );
  });
});
