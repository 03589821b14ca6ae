import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePricing } from '../money/pricing.ts';
import { Catalog } from './catalog.ts';
import type { ModelInfo, ProviderConfig } from './types.ts';

const PROVIDER: ProviderConfig = { id: 'p', kind: 'openai', name: 'P', baseUrl: 'http://h', timeoutMs: 1000, cacheFamily: 'none' };

function model(id: string, aliases: string[] = []): ModelInfo {
  const pricing = { prompt: '0.000001', completion: '0.000002' };
  return {
    id,
    kind: 'chat',
    name: id,
    author: id.slice(0, id.indexOf('/')),
    description: '',
    contextLength: 1000,
    capabilities: ['text'],
    aliases,
    created: 0,
    endpoints: [
      {
        id: `p/${id}`,
        modelId: id,
        provider: PROVIDER,
        upstreamModel: id,
        pricing,
        compiledPricing: compilePricing(pricing, 'none'),
        contextLength: 1000,
        dataCollection: 'deny',
        zdr: false,
        supportedParameters: new Set(),
      },
    ],
  };
}

const gpt41 = model('openai/gpt-4.1', ['gpt-4.1-2025-04-14']);
const sonnet = model('anthropic/claude-sonnet-4.5', ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929']);
const llamaMeta = model('meta-llama/llama-3-8b');
const llamaOther = model('someone/llama-3-8b');
const local = model('ollama/llama3:8b');
const catalog = new Catalog([sonnet, llamaOther, gpt41, llamaMeta, local], new Map([['p', PROVIDER]]));

describe('Catalog', () => {
  it('lists models sorted by id and finds them by id', () => {
    assert.deepEqual(
      catalog.models.map((m) => m.id),
      ['anthropic/claude-sonnet-4.5', 'meta-llama/llama-3-8b', 'ollama/llama3:8b', 'openai/gpt-4.1', 'someone/llama-3-8b'],
    );
    assert.equal(catalog.get('openai/gpt-4.1'), gpt41);
    assert.equal(catalog.get('gpt-4.1'), undefined, 'get() is by id only');
  });

  it('resolves an exact id', () => {
    assert.deepEqual(catalog.resolve('openai/gpt-4.1'), { model: gpt41 });
    assert.equal(catalog.resolve('openai/gpt-4.1')?.variant, undefined);
  });

  it('strips a known :variant and returns it', () => {
    assert.deepEqual(catalog.resolve('openai/gpt-4.1:nitro'), { model: gpt41, variant: 'nitro' });
    assert.deepEqual(catalog.resolve('openai/gpt-4.1:floor'), { model: gpt41, variant: 'floor' });
    assert.deepEqual(catalog.resolve('gpt-4.1:free'), { model: gpt41, variant: 'free' });
    assert.deepEqual(catalog.resolve('claude-sonnet-4-5:thinking'), { model: sonnet, variant: 'thinking' });
    assert.equal(catalog.resolve('openai/gpt-4.1:turbo'), undefined, 'unknown variants are not guessed at');
    assert.equal(catalog.resolve(':nitro'), undefined);
  });

  it('keeps a colon that is part of an id', () => {
    assert.deepEqual(catalog.resolve('ollama/llama3:8b'), { model: local });
    assert.deepEqual(catalog.resolve('llama3:8b'), { model: local });
    assert.deepEqual(catalog.resolve('ollama/llama3:8b:nitro'), { model: local, variant: 'nitro' });
  });

  it('resolves aliases, and aliases under the author', () => {
    assert.equal(catalog.resolve('gpt-4.1-2025-04-14')?.model, gpt41);
    assert.equal(catalog.resolve('claude-sonnet-4-5-20250929')?.model, sonnet);
    assert.equal(catalog.resolve('anthropic/claude-sonnet-4-5')?.model, sonnet);
  });

  it('resolves a bare name only when one model has it', () => {
    assert.equal(catalog.resolve('gpt-4.1')?.model, gpt41);
    assert.equal(catalog.resolve('claude-sonnet-4.5')?.model, sonnet);
    assert.equal(catalog.resolve('llama-3-8b'), undefined, 'two authors publish llama-3-8b');
    assert.equal(catalog.resolve('meta-llama/llama-3-8b')?.model, llamaMeta);
  });

  it('is case-sensitive and rejects unknown names', () => {
    assert.equal(catalog.resolve('OpenAI/GPT-4.1'), undefined);
    assert.equal(catalog.resolve('openai/gpt-9'), undefined);
    assert.equal(catalog.resolve(''), undefined);
  });

  it('returns the same object on every lookup', () => {
    assert.equal(catalog.resolve('gpt-4.1'), catalog.resolve('openai/gpt-4.1'));
  });

  it('ignores and reports aliases that collide', () => {
    const a = model('acme/a', ['shared', 'acme/b']);
    const b = model('acme/b', ['shared']);
    const c = model('acme/shared');
    const colliding = new Catalog([a, b, c], new Map());
    assert.equal(colliding.resolve('acme/b')?.model, b, 'an id beats an alias');
    assert.equal(colliding.resolve('shared'), undefined, 'two models claim the alias, and the bare name of acme/shared does not step in');
    assert.equal(colliding.resolve('acme/shared')?.model, c);
    assert.deepEqual(colliding.warnings, [
      'alias "shared" ignored: claimed by acme/a and acme/b',
      'alias "acme/b" of acme/a ignored: it is the id of another model',
    ]);
  });
});
