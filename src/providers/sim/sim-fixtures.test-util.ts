// Shared fixtures for the sim's tests: an endpoint, request builders and a runner that
// collects the emitted parts and folds them into a whole answer.

import { compilePricing } from '../../money/pricing.ts';
import { foldStreamParts } from '../../canonical/fold-stream-parts.ts';
import type { CanonicalRequest, Message } from '../../canonical/request.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import { simAdapter } from './sim-adapter.ts';

export function simEndpoint(options: Record<string, unknown> = {}, maxOutputTokens?: number): Endpoint {
  const pricing = { prompt: '0', completion: '0' };
  const endpoint: Endpoint = {
    id: 'sim/sim-echo',
    modelId: 'switchyard/sim-echo',
    provider: { id: 'sim', kind: 'sim', name: 'Simulator', baseUrl: '', timeoutMs: 60_000, cacheFamily: 'none', options },
    upstreamModel: 'sim-echo-1',
    pricing,
    compiledPricing: compilePricing(pricing, 'none'),
    contextLength: 128_000,
    dataCollection: 'deny',
    zdr: true,
    supportedParameters: simAdapter.supportedParameters,
  };
  if (maxOutputTokens !== undefined) endpoint.maxOutputTokens = maxOutputTokens;
  return endpoint;
}

export function userSays(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function simRequest(messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { models: [{ model: 'switchyard/sim-echo' }], messages, sampling: {}, stream: true, extra: {}, ...extra };
}

export interface SimRun {
  parts: StreamPart[];
  response: CanonicalResponse;
  error: GatewayError | null;
  text: string;
}

export async function runSim(
  req: CanonicalRequest,
  endpoint: Endpoint = simEndpoint(),
  signal: AbortSignal = new AbortController().signal,
): Promise<SimRun> {
  const parts: StreamPart[] = [];
  await simAdapter.generate(req, endpoint, (part) => parts.push(part), signal);
  const { response, error } = foldStreamParts(parts);
  let text = '';
  for (const block of response.content) if (block.type === 'text') text += block.text;
  return { parts, response, error, text };
}
