// One canonical request through the gateway's real upstream path: the executor, the one
// undici client, the SSE parser and the adapter, with a sink that keeps every part.

import { StreamFolder } from '../../src/canonical/fold-stream-parts.ts';
import type { CanonicalRequest } from '../../src/canonical/request.ts';
import type { CanonicalResponse } from '../../src/canonical/response.ts';
import type { StreamPart } from '../../src/canonical/stream-part.ts';
import { compilePricing } from '../../src/money/pricing.ts';
import type { Endpoint, ModelInfo } from '../../src/catalog/types.ts';
import type { GatewayError } from '../../src/errors/gateway-error.ts';
import { UpstreamClient } from '../../src/providers/http/upstream-client.ts';
import type { ExecutionSink } from '../../src/routing/execute-attempts.ts';
import { AttemptExecutor } from '../../src/routing/execute-attempts.ts';
import { RetryPolicy } from '../../src/routing/retry-policy.ts';
import type { ProviderAdapter } from '../../src/providers/types.ts';
import type { ConformanceSubject } from './conformance-types.ts';

export interface CaseResult {
  parts: StreamPart[];
  response: CanonicalResponse;
  /** The attempt's failure (the executor takes error parts out of the stream). */
  error: GatewayError | null;
}

class CollectingSink implements ExecutionSink {
  readonly committed = false;
  parts: StreamPart[] = [];
  beginAttempt(): void {
    this.parts = [];
  }
  part(part: StreamPart): void {
    this.parts.push(part);
  }
  waitForDrain(): null {
    return null;
  }
}

export class ExecutorHarness {
  private readonly client = new UpstreamClient({ connectionsPerOrigin: 8 });
  private readonly adapters: ReadonlyMap<string, ProviderAdapter>;
  private readonly subject: ConformanceSubject;
  readonly endpoint: Endpoint;
  private readonly model: ModelInfo;

  constructor(subject: ConformanceSubject, baseUrl: string) {
    this.subject = subject;
    this.adapters = new Map([[subject.adapter.kind, subject.adapter]]);
    const provider = { ...subject.config, baseUrl };
    const adapter = subject.adapter;
    const pricing = { prompt: '0.000001', completion: '0.000002' };
    this.endpoint = {
      id: `${provider.id}/${subject.upstreamModel}`,
      modelId: `conformance/${subject.upstreamModel}`,
      provider,
      upstreamModel: subject.upstreamModel,
      pricing,
      compiledPricing: compilePricing(pricing, provider.cacheFamily),
      contextLength: 128_000,
      maxOutputTokens: 32_768,
      dataCollection: 'deny',
      zdr: false,
      supportedParameters:
        adapter.transport === 'http' && adapter.supportedParametersFor !== undefined
          ? adapter.supportedParametersFor(provider)
          : adapter.supportedParameters,
    };
    this.model = {
      id: this.endpoint.modelId,
      kind: 'chat',
      name: subject.upstreamModel,
      author: 'conformance',
      description: '',
      contextLength: 128_000,
      capabilities: ['text'],
      aliases: [],
      created: 0,
      endpoints: [this.endpoint],
    };
  }

  /**
   * One attempt, as the executor makes it. A fresh executor each time, with no retries:
   * the cases look at what one upstream answer decodes to, and a circuit opened by one
   * case's faults must not skip the next case.
   */
  async run(req: CanonicalRequest): Promise<CaseResult> {
    const executor = new AttemptExecutor({ adapters: this.adapters, client: this.client, retry: new RetryPolicy({ maxRetries: 0 }) });
    const sink = new CollectingSink();
    const result = await executor.execute(
      [{ model: this.model, endpoint: this.endpoint }],
      req,
      sink,
      new AbortController().signal,
      10_000,
    );
    const folder = new StreamFolder();
    for (const p of sink.parts) folder.push(p);
    return { parts: sink.parts, response: folder.response, error: result.error };
  }

  close(): Promise<void> {
    return this.client.close();
  }

  get name(): string {
    return this.subject.name;
  }
}
