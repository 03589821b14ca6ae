// Shared by this folder's tests: an endpoint and a canonical request with test defaults, an
// emulator per test file, and an upstream exchange run over real HTTP as the pipeline runs it.

import { allOpenAIProfileParameters } from '../../../src/providers/openai/openai-profiles.ts';
import { after, before, beforeEach } from 'node:test';
import { Agent, request } from 'undici';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../../emulators/openai-chat-emulator.ts';
import type { CanonicalRequest } from '../../../src/canonical/request.ts';
import type { StreamPart } from '../../../src/canonical/stream-part.ts';
import type { Endpoint, ProviderConfig } from '../../../src/catalog/types.ts';
import { compilePricing } from '../../../src/money/pricing.ts';
import type { GatewayError } from '../../../src/errors/gateway-error.ts';
import { SseParser } from '../../../src/providers/sse/parse-sse.ts';
import type { HttpProviderAdapter } from '../../../src/providers/types.ts';
import { openaiAdapter } from '../../../src/providers/openai/openai-adapter.ts';

export function testEndpoint(provider: Partial<ProviderConfig> = {}, upstreamModel = 'gpt-test'): Endpoint {
  const pricing = { prompt: '0.000001', completion: '0.000002' };
  return {
    id: `${provider.id ?? 'openai'}/${upstreamModel}`,
    modelId: `openai/${upstreamModel}`,
    provider: {
      id: 'openai',
      kind: 'openai',
      name: 'OpenAI',
      baseUrl: 'http://127.0.0.1:1/v1',
      timeoutMs: 30_000,
      cacheFamily: 'prompt_cache_key',
      ...provider,
    },
    upstreamModel,
    pricing,
    compiledPricing: compilePricing(pricing, 'prompt_cache_key'),
    contextLength: 128_000,
    dataCollection: 'deny',
    zdr: false,
    supportedParameters: allOpenAIProfileParameters(),
  };
}

export function testRequest(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    models: [{ model: 'openai/gpt-test' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    sampling: {},
    stream: false,
    extra: {},
    ...overrides,
  };
}

export interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  parts: StreamPart[];
  /** decodeError's answer, when the upstream said >= 400. */
  error: GatewayError | null;
  /** The connection failed while the body was being read. */
  transportError: unknown;
}

/** Encode, send with undici, decode: a non-streamed or streamed exchange depending on `req.stream`. */
export async function runExchange(
  adapter: HttpProviderAdapter,
  req: CanonicalRequest,
  endpoint: Endpoint,
  dispatcher: Agent,
): Promise<Exchange> {
  const upstream = adapter.encodeRequest(req, endpoint);
  const res = await request(upstream.url, { method: 'POST', headers: upstream.headers, body: upstream.body, dispatcher });
  const out: Exchange = { status: res.statusCode, headers: res.headers, parts: [], error: null, transportError: null };
  const emit = (p: StreamPart): void => {
    out.parts.push(p);
  };
  if (res.statusCode >= 400) {
    out.error = adapter.decodeError(res.statusCode, await res.body.text(), res.headers, endpoint);
    return out;
  }
  if (!req.stream) {
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      out.transportError = err;
      return out;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    adapter.decodeResponse(body, endpoint, emit);
    return out;
  }
  const decoder = adapter.createStreamDecoder(endpoint, emit);
  const parser = new SseParser((ev) => decoder.onEvent(ev));
  res.body.setEncoding('utf8');
  try {
    for await (const chunk of res.body) parser.push(chunk as string);
  } catch (err) {
    out.transportError = err;
  }
  parser.end();
  decoder.end();
  return out;
}

export function partsOfType<T extends StreamPart['type']>(parts: StreamPart[], type: T): Array<Extract<StreamPart, { type: T }>> {
  return parts.filter((p): p is Extract<StreamPart, { type: T }> => p.type === type);
}

export function textOf(parts: StreamPart[]): string {
  return partsOfType(parts, 'text-delta')
    .map((p) => p.text)
    .join('');
}

export interface EmulatorHarness {
  readonly emu: OpenAIChatEmulator;
  readonly agent: Agent;
  /** An endpoint pointing at the emulator, with an api key. */
  endpoint(provider?: Partial<ProviderConfig>): Endpoint;
  run(req: CanonicalRequest, endpoint?: Endpoint): Promise<Exchange>;
}

/** Starts an emulator and an undici agent for the calling test file; reset before each test. */
export function useOpenAIEmulator(adapter: HttpProviderAdapter = openaiAdapter): EmulatorHarness {
  let emu: OpenAIChatEmulator | undefined;
  let agent: Agent | undefined;
  before(async () => {
    emu = await startOpenAIChatEmulator();
    agent = new Agent();
  });
  after(async () => {
    await agent?.close();
    await emu?.close();
  });
  beforeEach(() => emu?.reset());
  const harness: EmulatorHarness = {
    get emu() {
      return emu!;
    },
    get agent() {
      return agent!;
    },
    endpoint(provider = {}) {
      return testEndpoint({ baseUrl: emu!.baseUrl, apiKey: 'sk-test', ...provider });
    },
    run(req, endpoint = harness.endpoint()) {
      return runExchange(adapter, req, endpoint, agent!);
    },
  };
  return harness;
}

export async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
