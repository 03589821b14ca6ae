// Shared by this folder's tests: an Anthropic endpoint and a canonical request with test
// defaults, and an Anthropic emulator per test file. The exchange runner is the openai
// folder's: it drives any HTTP adapter the way the executor does.

import { after, before, beforeEach } from 'node:test';
import { Agent } from 'undici';
import { startAnthropicEmulator, type AnthropicEmulator } from '../../emulators/anthropic-messages-emulator.ts';
import type { CanonicalRequest } from '../../../src/canonical/request.ts';
import type { Endpoint, ProviderConfig } from '../../../src/catalog/types.ts';
import { compilePricing } from '../../../src/money/pricing.ts';
import { runExchange, type Exchange } from '../openai/openai-test-helpers.ts';
import { anthropicAdapter } from '../../../src/providers/anthropic/anthropic-adapter.ts';

export { partsOfType, textOf, waitFor, type Exchange } from '../openai/openai-test-helpers.ts';

export function anthropicEndpoint(provider: Partial<ProviderConfig> = {}, extra: Partial<Endpoint> = {}): Endpoint {
  const pricing = { prompt: '0.000003', completion: '0.000015' };
  return {
    id: 'anthropic/claude-test',
    modelId: 'anthropic/claude-test',
    provider: {
      id: 'anthropic',
      kind: 'anthropic',
      name: 'Anthropic',
      baseUrl: 'http://127.0.0.1:1',
      timeoutMs: 30_000,
      cacheFamily: 'cache_control',
      ...provider,
    },
    upstreamModel: 'claude-test',
    pricing,
    compiledPricing: compilePricing(pricing, 'cache_control'),
    contextLength: 200_000,
    dataCollection: 'deny',
    zdr: false,
    supportedParameters: anthropicAdapter.supportedParameters,
    ...extra,
  };
}

export function anthropicRequest(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    models: [{ model: 'anthropic/claude-test' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    sampling: {},
    stream: false,
    extra: {},
    ...overrides,
  };
}

export interface AnthropicHarness {
  readonly emu: AnthropicEmulator;
  readonly agent: Agent;
  /** An endpoint pointing at the emulator, with an api key. */
  endpoint(provider?: Partial<ProviderConfig>, extra?: Partial<Endpoint>): Endpoint;
  run(req: CanonicalRequest, endpoint?: Endpoint): Promise<Exchange>;
  /** The body the emulator received last. */
  lastBody(): any;
}

/** Starts an emulator and an undici agent for the calling test file; reset before each test. */
export function useAnthropicEmulator(): AnthropicHarness {
  let emu: AnthropicEmulator | undefined;
  let agent: Agent | undefined;
  before(async () => {
    emu = await startAnthropicEmulator();
    agent = new Agent();
  });
  after(async () => {
    await agent?.close();
    await emu?.close();
  });
  beforeEach(() => emu?.reset());
  const harness: AnthropicHarness = {
    get emu() {
      return emu!;
    },
    get agent() {
      return agent!;
    },
    endpoint(provider = {}, extra = {}) {
      return anthropicEndpoint({ baseUrl: emu!.baseUrl, apiKey: 'sk-ant-test', ...provider }, extra);
    },
    run(req, endpoint = harness.endpoint()) {
      return runExchange(anthropicAdapter, req, endpoint, agent!);
    },
    lastBody() {
      return emu!.requests.at(-1)!.body;
    },
  };
  return harness;
}
