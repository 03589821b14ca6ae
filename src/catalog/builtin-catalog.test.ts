import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { compilePricing } from '../money/pricing.ts';
import { MODEL_ID } from '../config/parse-models.ts';
import { PROVIDER_KINDS } from '../config/provider-kinds.ts';
import { BUILTIN_MODELS, BUILTIN_PROVIDERS } from './builtin-catalog.ts';
import { isCapability } from '../canonical/capabilities.ts';

const providers = new Map(BUILTIN_PROVIDERS.map((p) => [p.id, p]));

describe('built-in catalog data', () => {
  it("has every price parse and compile with its provider's cache family", () => {
    for (const model of BUILTIN_MODELS) {
      for (const ep of model.endpoints) {
        const provider = providers.get(ep.provider);
        assert.ok(provider, `${model.id}: unknown provider ${ep.provider}`);
        for (const [field, value] of Object.entries(ep.pricing)) {
          // image_output_by is a table of prices by size and quality: each entry is checked.
          const prices =
            field === 'image_output_by'
              ? Object.entries(value as Record<string, string>).map(([k, v]) => [`${field}.${k}`, v])
              : [[field, value]];
          for (const [name, price] of prices)
            assert.match(price as string, /^\d+(\.\d+)?$/, `${model.id} @ ${ep.provider}: pricing.${name} must be plain decimal text`);
        }
        assert.doesNotThrow(() => compilePricing(ep.pricing, provider.cacheFamily), `${model.id} @ ${ep.provider}`);
      }
    }
  });

  it('keeps prices per token, not per million', () => {
    for (const model of BUILTIN_MODELS) {
      for (const ep of model.endpoints) {
        const { prompt, completion } = compilePricing(ep.pricing, 'none');
        const cap = 100_000_000_000_000n; // $100 per M tokens, in atto-USD per token
        assert.ok(prompt <= cap && completion <= cap, `${model.id} @ ${ep.provider}: implausible price`);
      }
    }
  });

  it('has well-formed ids, known capabilities and unique endpoints', () => {
    const ids = new Set<string>();
    const endpointIds = new Set<string>();
    for (const model of BUILTIN_MODELS) {
      assert.match(model.id, MODEL_ID);
      assert.ok(!ids.has(model.id), `duplicate model ${model.id}`);
      ids.add(model.id);
      assert.ok(model.endpoints.length > 0, `${model.id} has no endpoint`);
      assert.ok(model.capabilities.includes('text') && model.capabilities.every(isCapability), model.id);
      assert.ok(model.contextLength > 0 && model.created > 1_600_000_000, model.id);
      for (const ep of model.endpoints) {
        const id = `${ep.provider}/${ep.model}`;
        assert.ok(!endpointIds.has(id), `endpoint ${id} serves two models`);
        endpointIds.add(id);
      }
    }
  });

  it('has aliases that name one model only', () => {
    const owners = new Map<string, string>();
    const ids = new Set(BUILTIN_MODELS.map((m) => m.id));
    for (const model of BUILTIN_MODELS) {
      for (const alias of model.aliases) {
        assert.ok(!ids.has(alias), `${alias} is an id`);
        assert.equal(owners.get(alias), undefined, `${alias} claimed twice`);
        owners.set(alias, model.id);
      }
    }
  });

  it('enables each vendor by its documented credential', () => {
    const creds = Object.fromEntries(BUILTIN_PROVIDERS.map((p) => [p.id, p.credentialEnv]));
    assert.deepEqual(creds, {
      openai: ['OPENAI_API_KEY'],
      anthropic: ['ANTHROPIC_API_KEY'],
      google: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
      mistral: ['MISTRAL_API_KEY'],
      xai: ['XAI_API_KEY'],
      groq: ['GROQ_API_KEY'],
      deepseek: ['DEEPSEEK_API_KEY'],
      together: ['TOGETHER_API_KEY'],
      fireworks: ['FIREWORKS_API_KEY'],
      openrouter: ['OPENROUTER_API_KEY'],
      azure: ['AZURE_OPENAI_API_KEY'],
      ollama: ['OLLAMA_API_KEY'],
      vllm: ['VLLM_API_KEY'],
      sim: [],
    });
    for (const p of BUILTIN_PROVIDERS) {
      assert.ok(PROVIDER_KINDS.includes(p.kind), p.id);
      assert.ok(URL.canParse(p.baseUrl), p.id);
    }
  });

  it('is listed in docs/configuration.md', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    for (const model of BUILTIN_MODELS) assert.ok(doc.includes(`\`${model.id}\``), `${model.id} missing from the docs`);
    for (const provider of BUILTIN_PROVIDERS) assert.ok(doc.includes(`| \`${provider.id}\` |`), `${provider.id} missing from the docs`);
  });
});
