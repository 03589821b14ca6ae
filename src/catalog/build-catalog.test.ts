import type { RequestParameter } from '../canonical/request.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../config/config-error.ts';
import { parseConfig } from '../config/load-config.ts';
import { buildCatalog, type AdapterInfo } from './build-catalog.ts';

const OPENAI_PARAMS = new Set<RequestParameter>([
  'temperature',
  'top_p',
  'top_k',
  'max_tokens',
  'stop',
  'tools',
  'tool_choice',
  'response_format',
  'seed',
  'logit_bias',
  'reasoning',
]);
const ADAPTERS: ReadonlyMap<string, AdapterInfo> = new Map([
  ['openai', { supportedParameters: OPENAI_PARAMS }],
  [
    'sim',
    {
      supportedParameters: new Set<RequestParameter>(['temperature', 'max_tokens', 'tools', 'tool_choice', 'response_format', 'reasoning']),
    },
  ],
]);

function build(tree: unknown, env: Record<string, string> = {}, adapters = ADAPTERS) {
  const { catalog, warnings } = buildCatalog(parseConfig(tree, {}), env, adapters);
  assert.deepEqual(warnings, catalog.warnings);
  return catalog;
}

const LOCAL = {
  providers: [{ id: 'local', kind: 'openai', base_url: 'http://127.0.0.1:9100/v1', api_key: 'sk-local-secret' }],
  models: [
    {
      id: 'acme/mock-1',
      name: 'Mock One',
      context_length: 32000,
      capabilities: ['text', 'tool_calling', 'json_mode', 'streaming'],
      endpoints: [{ provider: 'local', model: 'mock-model', pricing: { prompt: '0.000001', completion: '0.000002' } }],
    },
  ],
};

describe('buildCatalog: built-in providers', () => {
  it('enables a built-in provider only when its credential is present', () => {
    const without = build({ sim: false });
    assert.equal(without.providers.has('openai'), false);
    assert.equal(without.get('openai/gpt-4.1'), undefined);
    assert.equal(without.models.length, 0);

    const withKey = build({ sim: false }, { OPENAI_API_KEY: 'sk-test' });
    const openai = withKey.providers.get('openai');
    assert.equal(openai?.apiKey, 'sk-test');
    assert.equal(openai?.baseUrl, 'https://api.openai.com/v1');
    assert.equal(openai?.cacheFamily, 'prompt_cache_key');
    assert.equal(openai?.profile, 'openai');
    const gpt41 = withKey.get('openai/gpt-4.1');
    assert.ok(gpt41);
    assert.deepEqual(
      gpt41.endpoints.map((e) => e.id),
      ['openai/gpt-4.1'],
      'the OpenRouter endpoint needs its own key',
    );
    assert.equal(withKey.get('anthropic/claude-sonnet-4.5'), undefined);
    assert.ok(withKey.models.every((m) => m.endpoints.every((e) => e.provider.id === 'openai')));
  });

  it('accepts either Google variable', () => {
    const adapters = new Map([...ADAPTERS, ['google', { supportedParameters: OPENAI_PARAMS }]]);
    assert.ok(build({ sim: false }, { GOOGLE_API_KEY: 'g' }, adapters).get('google/gemini-2.5-flash'));
    assert.ok(build({ sim: false }, { GEMINI_API_KEY: 'g' }, adapters).get('google/gemini-2.5-flash'));
  });

  it('offers several providers for one model when their keys are present', () => {
    const catalog = build({ sim: false }, { GROQ_API_KEY: 'a', TOGETHER_API_KEY: 'b', FIREWORKS_API_KEY: 'c' });
    const llama = catalog.get('meta-llama/llama-3.3-70b-instruct');
    assert.deepEqual(
      llama?.endpoints.map((e) => e.provider.id),
      ['groq', 'together', 'fireworks'],
    );
    const both = build({ sim: false }, { OPENAI_API_KEY: 'a', OPENROUTER_API_KEY: 'b' });
    assert.deepEqual(
      both.get('openai/gpt-5')?.endpoints.map((e) => e.id),
      ['openai/gpt-5', 'openrouter/openai/gpt-5'],
    );
  });

  it('compiles prices with the provider family and the endpoint overrides', () => {
    const catalog = build(
      { sim: false },
      { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' },
      new Map([...ADAPTERS, ['anthropic', { supportedParameters: OPENAI_PARAMS }]]),
    );
    const gpt41 = catalog.get('openai/gpt-4.1')!.endpoints[0]!;
    assert.equal(gpt41.compiledPricing.prompt, 2_000_000_000_000n); // $2 per M = 2e-6 USD = 2e12 atto
    assert.equal(gpt41.compiledPricing.cacheRead, 500_000_000_000n);
    assert.equal(gpt41.compiledPricing.cacheWrite, gpt41.compiledPricing.prompt);
    const sonnet = catalog.get('anthropic/claude-sonnet-4.5')!.endpoints[0]!;
    assert.equal(sonnet.compiledPricing.cacheWrite, 3_750_000_000_000n);
    assert.equal(sonnet.compiledPricing.cacheRead, 300_000_000_000n);
  });

  it('fills endpoint limits and parameters from the model and the adapter', () => {
    const catalog = build({ sim: false }, { OPENAI_API_KEY: 'k' });
    const gpt5 = catalog.get('openai/gpt-5')!.endpoints[0]!;
    assert.equal(gpt5.contextLength, 400_000);
    assert.equal(gpt5.maxOutputTokens, 128_000);
    assert.equal(gpt5.supportedParameters.has('tools'), true);
    assert.equal(gpt5.supportedParameters.has('temperature'), false, 'reasoning models refuse temperature');
    assert.equal(gpt5.supportedParameters.has('top_k'), false, 'OpenAI has no top_k');
    const gpt41 = catalog.get('openai/gpt-4.1')!.endpoints[0]!;
    assert.equal(gpt41.supportedParameters.has('temperature'), true);
    assert.equal(gpt41.dataCollection, 'deny');
    assert.equal(gpt41.zdr, false);
  });
});

describe('buildCatalog: config', () => {
  it('serves the documented example', () => {
    const catalog = build({ ...LOCAL, sim: false });
    assert.deepEqual(
      catalog.models.map((m) => m.id),
      ['acme/mock-1'],
    );
    const model = catalog.get('acme/mock-1')!;
    assert.equal(model.author, 'acme');
    assert.equal(model.contextLength, 32000);
    const [ep] = model.endpoints;
    assert.equal(ep?.id, 'local/mock-model');
    assert.equal(ep?.upstreamModel, 'mock-model');
    assert.equal(ep?.contextLength, 32000);
    assert.equal(ep?.provider.timeoutMs, 60000);
    assert.equal(ep?.provider.cacheFamily, 'none');
    assert.equal(ep?.dataCollection, 'allow');
    assert.equal(ep?.supportedParameters, OPENAI_PARAMS);
    assert.equal(ep?.compiledPricing.completion, 2_000_000_000_000n);
    assert.deepEqual(catalog.warnings, []);
  });

  it('overrides a built-in provider field by field', () => {
    const catalog = build(
      {
        sim: false,
        providers: [{ id: 'openai', base_url: 'http://127.0.0.1:9200/v1', headers: { 'OpenAI-Organization': 'org-1' }, timeout_ms: 5000 }],
      },
      { OPENAI_API_KEY: 'k' },
    );
    const openai = catalog.providers.get('openai')!;
    assert.equal(openai.baseUrl, 'http://127.0.0.1:9200/v1');
    assert.equal(openai.timeoutMs, 5000);
    assert.deepEqual(openai.headers, { 'OpenAI-Organization': 'org-1' });
    assert.equal(openai.name, 'OpenAI');
    assert.equal(openai.apiKey, 'k');
    assert.equal(openai.cacheFamily, 'prompt_cache_key');
  });

  it('enables a built-in provider by a key in the file, and disables one by enabled: false', () => {
    assert.ok(build({ sim: false, providers: [{ id: 'groq', api_key: 'gsk' }] }).providers.has('groq'));
    const off = build({ sim: false, providers: [{ id: 'groq', enabled: false }] }, { GROQ_API_KEY: 'gsk' });
    assert.equal(off.providers.has('groq'), false);
    assert.deepEqual(off.warnings, []);
  });

  it('says why a configured built-in stays off', () => {
    const catalog = build({ sim: false, providers: [{ id: 'openai', base_url: 'http://127.0.0.1:1/v1' }] });
    assert.deepEqual(catalog.warnings, [
      'provider "openai" is configured but disabled: no credential (set OPENAI_API_KEY, give api_key, or set enabled: true)',
    ]);
  });

  it('overrides a built-in model: fields merged, endpoints replaced when given', () => {
    const catalog = build(
      {
        sim: false,
        ...LOCAL,
        models: [
          { id: 'openai/gpt-4.1', description: 'House default.', aliases: ['house'] },
          {
            id: 'openai/gpt-4o-mini',
            endpoints: [{ provider: 'local', model: 'mini-proxy', pricing: { prompt: '0.0000001', completion: '0.0000002' } }],
          },
          { id: 'openai/gpt-4o', enabled: false },
        ],
      },
      { OPENAI_API_KEY: 'k' },
    );
    const gpt41 = catalog.get('openai/gpt-4.1')!;
    assert.equal(gpt41.description, 'House default.');
    assert.equal(gpt41.name, 'OpenAI: GPT-4.1');
    assert.deepEqual(gpt41.aliases, ['house']);
    assert.equal(catalog.resolve('house')?.model, gpt41);
    const mini = catalog.get('openai/gpt-4o-mini')!;
    assert.deepEqual(
      mini.endpoints.map((e) => e.id),
      ['local/mini-proxy'],
    );
    assert.equal(mini.endpoints[0]?.maxOutputTokens, 16_384, 'limits still come from the built-in model');
    assert.equal(mini.contextLength, 128_000);
    assert.equal(catalog.get('openai/gpt-4o'), undefined);
  });

  it("config aliases on a built-in model map another name onto it (Claude Code's default model id); given aliases replace the built-in ones", () => {
    const adapters: ReadonlyMap<string, AdapterInfo> = new Map([
      ...ADAPTERS,
      ['anthropic', { supportedParameters: new Set(['max_tokens', 'tools', 'reasoning']) }],
    ]);
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test' };
    const aliased = build(
      {
        sim: false,
        models: [{ id: 'anthropic/claude-opus-4.5', aliases: ['claude-opus-5-5', 'claude-opus-4-5', 'claude-opus-4-5-20251101'] }],
      },
      env,
      adapters,
    );
    const opus = aliased.get('anthropic/claude-opus-4.5')!;
    assert.deepEqual(opus.aliases, ['claude-opus-5-5', 'claude-opus-4-5', 'claude-opus-4-5-20251101']);
    assert.deepEqual(
      opus.endpoints.map((e) => e.id),
      ['anthropic/claude-opus-4-5-20251101'],
      'the built-in endpoints stay',
    );
    for (const name of ['claude-opus-5-5', 'anthropic/claude-opus-5-5', 'claude-opus-4-5', 'claude-opus-4-5-20251101']) {
      assert.equal(aliased.resolve(name)?.model, opus, name);
    }
    assert.deepEqual(aliased.resolve('claude-opus-5-5:thinking'), { model: opus, variant: 'thinking' });
    assert.equal(aliased.resolve('claude-sonnet-4-5')?.model.id, 'anthropic/claude-sonnet-4.5', 'other models keep theirs');

    // Only the new name given: the built-in aliases are gone (the field is replaced, as every field is).
    const replaced = build({ sim: false, models: [{ id: 'anthropic/claude-opus-4.5', aliases: ['claude-opus-5-5'] }] }, env, adapters);
    assert.equal(replaced.resolve('claude-opus-5-5')?.model.id, 'anthropic/claude-opus-4.5');
    assert.equal(replaced.resolve('claude-opus-4-5-20251101'), undefined);
    assert.deepEqual(replaced.warnings, []);
  });

  it('drops endpoints of disabled providers, and models left without any', () => {
    const catalog = build({
      sim: false,
      ...LOCAL,
      models: [
        {
          id: 'acme/a',
          context_length: 1000,
          endpoints: [
            { provider: 'openai', pricing: { prompt: '0', completion: '0' } },
            { provider: 'local', model: 'a', pricing: { prompt: '0', completion: '0' } },
          ],
        },
        { id: 'acme/b', context_length: 1000, endpoints: [{ provider: 'openai', pricing: { prompt: '0', completion: '0' } }] },
      ],
    });
    assert.deepEqual(
      catalog.models.map((m) => m.id),
      ['acme/a'],
    );
    assert.deepEqual(catalog.warnings, [
      'models[0].endpoints[0] (acme/a): provider "openai" is not enabled; endpoint dropped',
      'models[1].endpoints[0] (acme/b): provider "openai" is not enabled; endpoint dropped',
      'models[1] (acme/b): no usable endpoint; model dropped',
    ]);
  });

  it('refuses an endpoint naming an unknown provider, with the nearest id as a suggestion', () => {
    const tree = {
      sim: false,
      ...LOCAL,
      models: [{ id: 'acme/a', context_length: 1000, endpoints: [{ provider: 'opnai', pricing: { prompt: '0', completion: '0' } }] }],
    };
    assert.throws(
      () => build(tree),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.path === 'models[0].endpoints[0].provider' &&
        /unknown provider "opnai"\. Did you mean "openai"\?/.test(err.message),
    );
    assert.throws(
      () =>
        build({
          ...tree,
          models: [{ ...tree.models[0], endpoints: [{ provider: 'nowhere', pricing: { prompt: '0', completion: '0' } }] }],
        }),
      (err: unknown) => err instanceof ConfigError && /unknown provider "nowhere"\. Use a built-in/.test(err.message),
    );
  });

  it('drops the endpoints of a kind that has no adapter, with warnings free of secrets', () => {
    const catalog = build({
      sim: false,
      providers: [{ id: 'claude-direct', kind: 'anthropic', base_url: 'https://api.anthropic.com', api_key: 'sk-ant-secret' }],
      models: [
        { id: 'acme/c', context_length: 1000, endpoints: [{ provider: 'claude-direct', pricing: { prompt: '0', completion: '0' } }] },
      ],
    });
    assert.equal(catalog.models.length, 0);
    assert.equal(catalog.providers.size, 0);
    assert.deepEqual(catalog.warnings, [
      'provider "claude-direct" is disabled: no adapter for kind "anthropic" yet; its endpoints are dropped',
      'models[0].endpoints[0] (acme/c): provider "claude-direct" is not enabled; endpoint dropped',
      'models[0] (acme/c): no usable endpoint; model dropped',
    ]);
    assert.ok(catalog.warnings.every((w) => !w.includes('sk-ant-secret')));
  });

  it('uses the config parameter list, and the endpoint context length, when given', () => {
    const catalog = build({
      sim: false,
      ...LOCAL,
      models: [
        {
          id: 'acme/p',
          endpoints: [
            {
              provider: 'local',
              model: 'p',
              context_length: 8192,
              max_output_tokens: 1024,
              supported_parameters: ['temperature', 'tools'],
              zdr: true,
              data_collection: 'deny',
              quantization: 'int4',
              pricing: { prompt: '0', completion: '0' },
            },
          ],
        },
      ],
    });
    const ep = catalog.get('acme/p')!.endpoints[0]!;
    assert.deepEqual([...ep.supportedParameters], ['temperature', 'tools']);
    assert.equal(catalog.get('acme/p')!.contextLength, 8192, "a new model without context_length takes its endpoints' largest");
    assert.equal(ep.maxOutputTokens, 1024);
    assert.equal(ep.zdr, true);
    assert.equal(ep.dataCollection, 'deny');
    assert.equal(ep.quantization, 'int4');
    assert.deepEqual(catalog.get('acme/p')!.capabilities, ['text', 'streaming']);
  });

  it('refuses what it cannot make sense of, naming the field', () => {
    assert.throws(
      () => build({ providers: [{ id: 'x', base_url: 'http://h' }] }),
      (err: unknown) => err instanceof ConfigError && err.path === 'providers[0].kind',
    );
    assert.throws(
      () => build({ providers: [{ id: 'x', kind: 'openai' }] }),
      (err: unknown) => err instanceof ConfigError && err.path === 'providers[0].base_url',
    );
    assert.throws(
      () => build({ ...LOCAL, models: [{ id: 'acme/n', endpoints: [{ provider: 'local', pricing: { prompt: '0', completion: '0' } }] }] }),
      (err: unknown) => err instanceof ConfigError && err.path === 'models[0].context_length',
    );
    assert.throws(
      () =>
        build({
          providers: [{ ...LOCAL.providers[0], cache_family: 'cache_control' }],
          models: [
            {
              id: 'acme/n',
              context_length: 10,
              endpoints: [{ provider: 'local', pricing: { prompt: '0.000000000000000001', completion: '0' } }],
            },
          ],
        }),
      (err: unknown) => err instanceof ConfigError && err.path === 'models[0].endpoints[0].pricing',
      'too fine for the cache family to derive cache prices',
    );
  });
});

describe('buildCatalog: the sim provider', () => {
  const simIds = [
    'switchyard/sim-embed',
    'switchyard/sim-fast',
    'switchyard/sim-image',
    'switchyard/sim-pro',
    'switchyard/sim-reasoner',
    'switchyard/sim-speech',
    'switchyard/sim-transcribe',
  ];

  it('auto: on when nothing else serves', () => {
    const catalog = build({});
    assert.deepEqual(
      catalog.models.map((m) => m.id),
      simIds,
    );
    const sim = catalog.providers.get('sim')!;
    assert.equal(sim.kind, 'sim');
    assert.equal(sim.baseUrl, 'sim://local');
    assert.deepEqual(sim.options, { chunk_delay_ms: 15 });
    assert.equal(catalog.get('switchyard/sim-fast')!.endpoints[0]!.compiledPricing.free, true);
    assert.equal(catalog.get('switchyard/sim-pro')!.endpoints[0]!.compiledPricing.free, false);
    assert.ok(catalog.get('switchyard/sim-reasoner')!.capabilities.includes('reasoning'));
  });

  it('auto: off when a credential enables a real provider, or the config defines one', () => {
    assert.equal(build({}, { OPENAI_API_KEY: 'k' }).providers.has('sim'), false);
    assert.equal(build(LOCAL).providers.has('sim'), false);
  });

  it('auto: on when the only other provider has no adapter', () => {
    const catalog = build({ providers: [{ id: 'native', kind: 'anthropic', base_url: 'https://x' }] });
    assert.equal(catalog.providers.has('sim'), true);
  });

  it('true and false are explicit', () => {
    assert.equal(build({ sim: true }, { OPENAI_API_KEY: 'k' }).providers.has('sim'), true);
    assert.equal(build({ sim: false }).providers.has('sim'), false);
  });

  it('a providers entry can tune it or switch it off', () => {
    const tuned = build({ sim: true, providers: [{ id: 'sim', options: { chunk_delay_ms: 0 } }] });
    assert.deepEqual(tuned.providers.get('sim')?.options, { chunk_delay_ms: 0 });
    assert.equal(build({ providers: [{ id: 'sim', enabled: false }] }).providers.has('sim'), false);
  });

  it('is dropped with a warning when no sim adapter is registered', () => {
    const catalog = build({ sim: true }, {}, new Map([['openai', { supportedParameters: OPENAI_PARAMS }]]));
    assert.equal(catalog.models.length, 0);
    assert.deepEqual(catalog.warnings, ['provider "sim" is disabled: no adapter for kind "sim" yet; its endpoints are dropped']);
  });
});

describe('buildCatalog: models sharing an upstream model', () => {
  const ep = (prompt: string) => ({ provider: 'local', model: 'mock-model', pricing: { prompt, completion: prompt } });
  it('keeps each model its own endpoint, with the same id; an endpoint listed twice for one model is dropped', () => {
    const catalog = build({
      ...LOCAL,
      models: [...LOCAL.models, { id: 'house/mock', context_length: 32000, endpoints: [ep('0.00001'), ep('0.00002')] }],
    });
    const [mock, house] = [catalog.get('acme/mock-1')!, catalog.get('house/mock')!];
    assert.deepEqual([mock.endpoints.map((e) => e.id), house.endpoints.map((e) => e.id)], [['local/mock-model'], ['local/mock-model']]);
    assert.equal(house.endpoints[0]!.pricing.prompt, '0.00001');
    assert.equal(mock.endpoints[0]!.pricing.prompt, '0.000001');
    assert.deepEqual(catalog.warnings, ['models[1].endpoints[1]: endpoint local/mock-model is listed twice for house/mock; dropped']);
  });
});
