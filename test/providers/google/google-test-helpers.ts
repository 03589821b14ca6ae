// Shared by this folder's tests: an endpoint for the google adapter, and a Gemini emulator
// per test file with the exchange run over real HTTP as the pipeline runs it.

import { after, before, beforeEach } from 'node:test';
import { Agent } from 'undici';
import { startGeminiEmulator, type GeminiEmulator } from '../../emulators/gemini-emulator.ts';
import { compilePricing } from '../../../src/money/pricing.ts';
import type { CanonicalRequest } from '../../../src/canonical/request.ts';
import type { Endpoint, ProviderConfig } from '../../../src/catalog/types.ts';
import { runExchange, type Exchange } from '../openai/openai-test-helpers.ts';
import { googleAdapter } from '../../../src/providers/google/google-adapter.ts';
import { GEMINI_SUPPORTED_PARAMETERS } from '../../../src/providers/google/gemini-parameters.ts';

export { partsOfType, testRequest, textOf } from '../openai/openai-test-helpers.ts';

export function geminiEndpoint(provider: Partial<ProviderConfig> = {}, upstreamModel = 'gemini-2.5-flash'): Endpoint {
  const pricing = { prompt: '0.0000003', completion: '0.0000025' };
  return {
    id: `google/${upstreamModel}`,
    modelId: `google/${upstreamModel}`,
    provider: {
      id: 'google',
      kind: 'google',
      name: 'Google AI Studio',
      baseUrl: 'http://127.0.0.1:1/v1beta',
      timeoutMs: 30_000,
      cacheFamily: 'none',
      ...provider,
    },
    upstreamModel,
    pricing,
    compiledPricing: compilePricing(pricing, 'none'),
    contextLength: 1_048_576,
    maxOutputTokens: 65_536,
    dataCollection: 'deny',
    zdr: false,
    supportedParameters: GEMINI_SUPPORTED_PARAMETERS,
  };
}

export interface GeminiHarness {
  readonly emu: GeminiEmulator;
  endpoint(model?: string, provider?: Partial<ProviderConfig>): Endpoint;
  run(req: CanonicalRequest, endpoint?: Endpoint): Promise<Exchange>;
}

export function useGeminiEmulator(): GeminiHarness {
  let emu: GeminiEmulator | undefined;
  let agent: Agent | undefined;
  before(async () => {
    emu = await startGeminiEmulator({ apiKey: 'gm-test' });
    agent = new Agent();
  });
  after(async () => {
    await agent?.close();
    await emu?.close();
  });
  beforeEach(() => emu?.reset());
  const harness: GeminiHarness = {
    get emu() {
      return emu!;
    },
    endpoint(model = 'gemini-2.5-flash', provider = {}) {
      return geminiEndpoint({ baseUrl: emu!.baseUrl, apiKey: 'gm-test', ...provider }, model);
    },
    run(req, endpoint = harness.endpoint()) {
      return runExchange(googleAdapter, req, endpoint, agent!);
    },
  };
  return harness;
}
