import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { finishReasonFor, mapOpenAIFinishReason } from './map-openai-finish-reason.ts';
import { convertOpenAIUsage } from './convert-openai-usage.ts';

describe('mapOpenAIFinishReason', () => {
  it('maps the OpenAI values and common compatible ones, keeping raw', () => {
    const cases = {
      stop: 'stop',
      length: 'length',
      tool_calls: 'tool_calls',
      content_filter: 'content_filter',
      function_call: 'tool_calls',
      max_tokens: 'length',
      eos: 'stop',
      error: 'error',
      whatever: 'stop',
    } as const;
    for (const [raw, unified] of Object.entries(cases)) assert.deepEqual(mapOpenAIFinishReason(raw), { unified, raw });
  });

  it('infers a missing reason and lets tool calls win over stop only', () => {
    assert.deepEqual(finishReasonFor(null, false), { unified: 'stop', raw: null });
    assert.deepEqual(finishReasonFor(null, true), { unified: 'tool_calls', raw: null });
    assert.deepEqual(finishReasonFor('stop', true), { unified: 'tool_calls', raw: 'stop' });
    assert.deepEqual(finishReasonFor('length', true), { unified: 'length', raw: 'length' });
  });
});

describe('convertOpenAIUsage', () => {
  it('renames OpenAI usage without arithmetic and keeps raw', () => {
    const raw = {
      prompt_tokens: 100,
      completion_tokens: 40,
      total_tokens: 140,
      prompt_tokens_details: { cached_tokens: 60, audio_tokens: 5 },
      completion_tokens_details: { reasoning_tokens: 30, audio_tokens: 0 },
    };
    assert.deepEqual(convertOpenAIUsage(raw), { input: 100, cacheRead: 60, cacheWrite: 0, output: 40, reasoning: 30, raw, audioInput: 5 });
  });

  it('tolerates missing and null details, and reads DeepSeek cache hits', () => {
    assert.deepEqual(convertOpenAIUsage({ prompt_tokens: 3, completion_tokens: 1, prompt_tokens_details: null }), {
      input: 3,
      cacheRead: 0,
      cacheWrite: 0,
      output: 1,
      reasoning: 0,
      raw: { prompt_tokens: 3, completion_tokens: 1, prompt_tokens_details: null },
    });
    assert.equal(convertOpenAIUsage({ prompt_tokens: 10, completion_tokens: 1, prompt_cache_hit_tokens: 8 }).cacheRead, 8);
  });
});
