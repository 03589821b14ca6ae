import type { RequestParameter } from '../canonical/request.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../config/load-config.ts';
import { buildCatalog } from './build-catalog.ts';
import { toModelRecord } from './encode-model-record.ts';

const adapters = new Map([['openai', { supportedParameters: new Set<RequestParameter>(['temperature', 'tools', 'max_tokens', 'top_k']) }]]);

describe('toModelRecord', () => {
  it("encodes the spec fields with the cheapest endpoint's prices", () => {
    const config = parseConfig(
      {
        sim: false,
        providers: [
          { id: 'dear', kind: 'openai', base_url: 'http://dear/v1' },
          { id: 'cheap', kind: 'openai', base_url: 'http://cheap/v1', cache_family: 'prompt_cache_key' },
        ],
        models: [
          {
            id: 'acme/widget',
            name: 'Acme Widget',
            description: 'A model.',
            context_length: 64000,
            created: '2025-01-02',
            capabilities: ['text', 'tool_calling', 'streaming', 'multimodal'],
            endpoints: [
              {
                provider: 'dear',
                model: 'w',
                pricing: { prompt: '0.000003', completion: '0.000015', request: '0.01' },
                supported_parameters: ['seed'],
              },
              {
                provider: 'cheap',
                model: 'w',
                pricing: { prompt: '0.000001', completion: '0.000002' },
                max_output_tokens: 4096,
                context_length: 32000,
              },
            ],
          },
        ],
      },
      {},
    );
    const model = buildCatalog(config, {}, adapters).catalog.get('acme/widget')!;
    assert.deepEqual(toModelRecord(model), {
      id: 'acme/widget',
      kind: 'chat',
      object: 'model',
      created: 1735776000,
      owned_by: 'acme',
      name: 'Acme Widget',
      provider: 'acme',
      description: 'A model.',
      context_length: 64000,
      pricing: { prompt: '0.000001', completion: '0.000002', input_cache_read: '0.0000005' },
      capabilities: ['text', 'tool_calling', 'streaming', 'multimodal'],
      architecture: { modality: 'text+image->text', input_modalities: ['text', 'image'], output_modalities: ['text'] },
      top_provider: { context_length: 32000, max_completion_tokens: 4096 },
      supported_parameters: ['max_tokens', 'seed', 'temperature', 'tools', 'top_k'],
    });
  });

  it('shows a request fee and free prices as strings', () => {
    const config = parseConfig(
      {
        sim: false,
        providers: [{ id: 'p', kind: 'openai', base_url: 'http://p/v1' }],
        models: [
          {
            id: 'acme/fee',
            context_length: 1000,
            endpoints: [{ provider: 'p', model: 'f', pricing: { prompt: '0', completion: '0', request: '0.005' } }],
          },
          { id: 'acme/free', context_length: 1000, endpoints: [{ provider: 'p', model: 'z', pricing: { prompt: 0, completion: 0 } }] },
        ],
      },
      {},
    );
    const { catalog } = buildCatalog(config, {}, adapters);
    assert.deepEqual(toModelRecord(catalog.get('acme/fee')!).pricing, { prompt: '0', completion: '0', request: '0.005' });
    const free = toModelRecord(catalog.get('acme/free')!);
    assert.deepEqual(free.pricing, { prompt: '0', completion: '0' });
    assert.deepEqual(free.top_provider, { context_length: 1000, max_completion_tokens: null });
  });
});
