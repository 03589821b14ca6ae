import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalRequest } from '../../src/canonical/request.ts';
import type { SpeechTask, TaskResult, TranscriptionTask } from '../../src/canonical/task.ts';
import type { Usage } from '../../src/canonical/usage.ts';
import type { Endpoint, ModelInfo } from '../../src/catalog/types.ts';
import { BUILTIN_MODELS, BUILTIN_PROVIDERS } from '../../src/catalog/builtin-catalog.ts';
import { computeCost } from '../../src/billing/compute-cost.ts';
import { addTaskUnits } from '../../src/billing/task-cost.ts';
import { worstCaseCost } from '../../src/billing/worst-case-cost.ts';
import { compilePricing } from '../../src/money/pricing.ts';

// Each audio price of the built-in catalog, exact in nano-USD: per character, per second
// (rounded up), per token; and the hold that bounds each before the upstream call.

function endpoint(modelId: string): Endpoint {
  const model = BUILTIN_MODELS.find((m) => m.id === modelId)!;
  const ep = model.endpoints[0]!;
  const provider = BUILTIN_PROVIDERS.find((p) => p.id === ep.provider)!;
  return {
    id: `${ep.provider}/${ep.model}`,
    modelId,
    upstreamModel: ep.model,
    pricing: ep.pricing,
    compiledPricing: compilePricing(ep.pricing, provider.cacheFamily),
    provider: {
      id: provider.id,
      kind: provider.kind,
      name: provider.name,
      baseUrl: provider.baseUrl,
      timeoutMs: 1000,
      cacheFamily: provider.cacheFamily,
    },
    contextLength: ep.contextLength ?? model.contextLength,
    ...((ep.maxOutputTokens ?? model.maxOutputTokens) ? { maxOutputTokens: ep.maxOutputTokens ?? model.maxOutputTokens } : {}),
    dataCollection: 'deny',
    zdr: false,
    supportedParameters: new Set(),
  };
}

const speech = (input: string): SpeechTask => ({ kind: 'speech', input, voice: 'alloy', responseFormat: 'mp3' });
const transcription = (durationMs: number): TranscriptionTask => ({
  kind: 'transcription',
  operation: 'transcribe',
  file: { filename: 'a.wav', contentType: 'audio/wav', data: Buffer.alloc(0) },
  responseFormat: 'json',
  durationMs,
});

function charged(
  modelId: string,
  task: SpeechTask | TranscriptionTask,
  tokens: [number, number],
  result: TaskResult | null = null,
): bigint {
  const usage: Usage = { input: tokens[0], output: tokens[1], cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  addTaskUnits(usage, task, result);
  return computeCost(usage, endpoint(modelId).compiledPricing).totalNanos;
}

function held(modelId: string, task: SpeechTask | TranscriptionTask, promptBound: number): bigint {
  const req: CanonicalRequest = { models: [{ model: modelId }], messages: [], sampling: {}, stream: false, extra: {}, task };
  return worstCaseCost(req, [{ model: {} as ModelInfo, endpoint: endpoint(modelId) }], promptBound);
}

describe('audio prices, exact in nano-USD', () => {
  test('speech per character', () => {
    const rows: [string, string, bigint][] = [
      ['openai/tts-1', 'Hello, world!', 195_000n], // 13 × $0.000015
      ['openai/tts-1-hd', 'x'.repeat(4096), 122_880_000n], // 4,096 × $0.00003
      ['switchyard/sim-speech', 'The quick brown fox jumps over the lazy dog', 1_290_000n], // 43 × $0.00003
    ];
    for (const [model, input, nanos] of rows) {
      assert.equal(charged(model, speech(input), [0, 0]), nanos, model);
      // Priced only per character: the hold is the charge.
      assert.equal(held(model, speech(input), 10), nanos, `${model} hold`);
    }
  });

  test('transcription per second, every started second billed', () => {
    // The charge rounds to the nano half up; the hold rounds up (it must cover the charge).
    const rows: [string, number, bigint, bigint?][] = [
      ['openai/whisper-1', 2612, 300_000n], // 3 s × $0.0001
      ['openai/whisper-1', 1000, 100_000n],
      ['openai/whisper-1', 1001, 200_000n],
      ['openai/whisper-1', 1, 100_000n],
      ['switchyard/sim-transcribe', 4200, 500_000n],
      ['openai/whisper-large-v3', 10_000, 308_333n, 308_334n], // 10 × $0.000030833333333333 = $0.00030833…
      ['openai/whisper-large-v3', 3_600_000, 111_000_000n], // an hour: $0.111 within an atto a second
      ['openai/whisper-large-v3-turbo', 60_000, 666_667n], // a minute at $0.04 an hour
    ];
    for (const [model, ms, nanos, hold] of rows) {
      assert.equal(charged(model, transcription(ms), [0, 0]), nanos, `${model} ${ms} ms`);
      assert.equal(held(model, transcription(ms), 0), hold ?? nanos, `${model} ${ms} ms hold`);
    }
  });

  test('per token as the vendor reports them, the hold bounding them', () => {
    // gpt-4o-mini-tts: 7 text tokens in at $0.60/M, 250 audio tokens out at $12/M.
    assert.equal(charged('openai/gpt-4o-mini-tts', speech('Tokens please'), [7, 250]), 3_004_200n);
    // Held: the prompt bound (5 tokens) and 8 audio tokens a character (13 × 8 = 104) at $12/M.
    assert.equal(held('openai/gpt-4o-mini-tts', speech('Tokens please'), 5), 1_251_000n);
    // gpt-4o-transcribe: 90 tokens in at $6/M, 12 out at $10/M.
    assert.equal(charged('openai/gpt-4o-transcribe', transcription(2612), [90, 12]), 660_000n);
    // Held: 50 audio tokens a started second (3 × 50 = 150) at $6/M and 2,000 output tokens at $10/M.
    assert.equal(held('openai/gpt-4o-transcribe', transcription(2612), 0), 20_900_000n);
    assert.equal(held('openai/gpt-4o-mini-transcribe', transcription(2612), 0), 10_450_000n);
  });

  test("a transcript whose duration the header did not give is billed by the upstream's own duration", () => {
    const task = { ...transcription(0), durationMs: null };
    assert.equal(charged('openai/whisper-1', task, [0, 0], { kind: 'transcription', text: 'x', duration: 4.2 }), 500_000n);
  });
});
