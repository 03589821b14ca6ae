import type { DatabaseSync } from 'node:sqlite';
import type { AuthContext } from '../auth/authenticate.ts';
import { CreditReservations } from '../billing/credit-reservations.ts';
import { SettlementQueue } from '../billing/settlement-queue.ts';
import { Catalog } from '../catalog/catalog.ts';
import type { Endpoint, ModelInfo, ProviderConfig } from '../catalog/types.ts';
import type { Allowlist } from '../catalog/model-access.ts';
import type { CanonicalRequest, RequestParameter } from '../canonical/request.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import { compileModerationPattern } from '../config/moderation-pattern.ts';
import { DEFAULT_TIERS } from '../config/tier-limits.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { InProcessInFlightLimiter } from '../limits/in-flight-limiter.ts';
import { InProcessRateLimiter } from '../limits/in-process-rate-limiter.ts';
import { RateLimitGate } from '../limits/rate-limit-gate.ts';
import type { GuardrailRule } from '../moderation/guardrails.ts';
import { Moderator } from '../moderation/moderator.ts';
import { compilePricing } from '../money/pricing.ts';
import { createRequestLogger } from '../observability/request-log.ts';
import { Telemetry, type RequestEnd, type RequestParty } from '../observability/telemetry.ts';
import { SecretScrubber } from '../providers/http/scrub-secrets.ts';
import { UpstreamClient } from '../providers/http/upstream-client.ts';
import type { LocalProviderAdapter, PartSink } from '../providers/types.ts';
import { CircuitBreakers } from '../routing/circuit-breaker.ts';
import { AttemptExecutor, type ExecutionSink } from '../routing/execute-attempts.ts';
import { InProcessHealthStore } from '../routing/health/in-process-health-store.ts';
import { AttemptPlanner } from '../routing/plan-attempts.ts';
import { AccountStore } from '../store/sqlite/account-store.ts';
import { GenerationStore } from '../store/sqlite/generation-store.ts';
import type { GenerationRecord } from '../store/generation-records.ts';
import { LedgerStore } from '../store/sqlite/ledger-store.ts';
import type { SettlementRecord } from '../store/ledger-records.ts';
import { openDatabase } from '../store/sqlite/open-database.ts';
import { ReservationStore } from '../store/sqlite/reservation-store.ts';
import { GenerationPipeline } from './generation-pipeline.ts';
import type { ClientPresence, GenerationOutcome, RequestInfo } from './pipeline-types.ts';

// A whole GenerationPipeline over real in-memory collaborators, no HTTP: an SQLite
// `:memory:` database (accounts, ledger, holds, generation records, refusal counts) written
// through the real settlement queue, the real planner, executor, rate limits, in-flight
// limiter, moderator and credit holds; the upstream is a local provider adapter (the kind the
// `sim` provider is) whose endpoints answer as each test scripts them. Telemetry is the real
// one (silent log) that also keeps the records it is handed.

export const NOW = '2026-01-01T00:00:00.000Z';
/** Per token: $1 per million prompt tokens, $2 per million completion tokens. */
const PRICING = { prompt: '0.000001', completion: '0.000002' };

/** How an endpoint of the scripted upstream answers. */
export type Script =
  | { kind: 'answer'; text: string; usage?: { input: number; output: number } }
  | { kind: 'fail'; status: number }
  /** Sends `text`, then waits until the request is aborted (a client that leaves mid-stream). */
  | { kind: 'stall'; text: string };

/** The scripted upstream: a local adapter; `calls` lists the endpoints asked, in order. */
export class ScriptedUpstream implements LocalProviderAdapter {
  readonly kind = 'sim' as const;
  readonly transport = 'local' as const;
  readonly supportedParameters: ReadonlySet<RequestParameter> = new Set<RequestParameter>(['max_tokens', 'temperature']);
  readonly scripts = new Map<string, Script>();
  readonly calls: string[] = [];
  /** What the upstream was sent, per call (the texts of the last message). */
  readonly prompts: string[] = [];

  async generate(req: CanonicalRequest, endpoint: Endpoint, emit: PartSink, signal: AbortSignal): Promise<void> {
    this.calls.push(endpoint.provider.id);
    const last = req.messages.at(-1);
    this.prompts.push(last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '');
    const script = this.scripts.get(endpoint.provider.id) ?? { kind: 'answer', text: 'ok' };
    switch (script.kind) {
      case 'fail':
        throw new GatewayError('provider_error', `The provider ${endpoint.provider.id} failed.`, {
          status: script.status,
          metadata: { provider_name: endpoint.provider.id },
        });
      case 'answer':
        emit({ type: 'stream-start', id: `up-${this.calls.length}` });
        emit({ type: 'text-delta', text: script.text });
        if (script.usage !== undefined)
          emit({
            type: 'usage',
            usage: { input: script.usage.input, output: script.usage.output, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
          });
        emit({ type: 'finish', reason: { unified: 'stop', raw: 'end_turn' } });
        return;
      case 'stall':
        emit({ type: 'stream-start', id: `up-${this.calls.length}` });
        emit({ type: 'text-delta', text: script.text });
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener('abort', () => resolve(), { once: true });
        });
        throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    }
  }
}

const NO_SECRETS = new SecretScrubber([]);

/** Telemetry as the gateway builds it (metrics off, a silent log), keeping the records it is handed. */
export class RecordingTelemetry extends Telemetry {
  readonly refused: SettlementRecord[] = [];
  readonly ended: SettlementRecord[] = [];

  constructor() {
    super({
      metrics: null,
      log: createRequestLogger({ level: 'silent' }),
      tracing: null,
      scrubber: () => NO_SECRETS,
      knownModel: () => false,
    });
  }

  override requestRefused(record: SettlementRecord, error: GatewayError, party: RequestParty, traceparent: string | null = null): void {
    this.refused.push(record);
    super.requestRefused(record, error, party, traceparent);
  }

  override requestEnded(end: RequestEnd, started: boolean, signal: AbortSignal | null): void {
    if (started) this.ended.push(end.record);
    super.requestEnded(end, started, signal);
  }
}

/** A sink as a dialect's: collects the parts; `streaming` commits at the first text (no failover after). */
export class CollectingSink implements ExecutionSink {
  readonly parts: StreamPart[] = [];
  private sent = false;
  private readonly streaming: boolean;
  /** Called with each part (a test's client may leave on one). */
  onPart: ((part: StreamPart) => void) | null = null;

  constructor(streaming = false) {
    this.streaming = streaming;
  }

  get committed(): boolean {
    return this.sent;
  }

  beginAttempt(): void {
    this.parts.length = 0;
  }

  part(part: StreamPart): void {
    this.parts.push(part);
    if (this.streaming && part.type === 'text-delta') this.sent = true;
    this.onPart?.(part);
  }

  waitForDrain(): Promise<void> | null {
    return null;
  }

  get text(): string {
    return this.parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
  }
}

function provider(id: string): ProviderConfig {
  return { id, kind: 'sim', name: id, baseUrl: `local://${id}`, timeoutMs: 5_000, cacheFamily: 'none' };
}

function endpoint(modelId: string, providerId: string, moderated: boolean): Endpoint {
  const ep: Endpoint = {
    id: `${providerId}/${modelId.split('/')[1]}`,
    modelId,
    provider: provider(providerId),
    upstreamModel: `${providerId}-model`,
    pricing: PRICING,
    compiledPricing: compilePricing(PRICING, 'none'),
    contextLength: 100_000,
    dataCollection: 'allow',
    zdr: false,
    supportedParameters: new Set<RequestParameter>(['max_tokens', 'temperature']),
  };
  if (moderated) ep.moderated = true;
  return ep;
}

function model(id: string, providers: string[], moderated = false): ModelInfo {
  return {
    id,
    kind: 'chat',
    name: id,
    author: id.split('/')[0] ?? id,
    description: '',
    contextLength: 100_000,
    capabilities: ['text'],
    aliases: [],
    created: 0,
    endpoints: providers.map((p) => endpoint(id, p, moderated)),
  };
}

export interface HarnessOptions {
  /** The account's balance, nano-USD (default $1). */
  balanceNanos?: bigint;
  guardrails?: GuardrailRule[];
  keyAllowlist?: Allowlist;
  maxInFlight?: number;
}

/** A pipeline, its database and upstream. Models: `acme/chat` (endpoints `first`, `second`), `acme/other` (`third`), `acme/moderated` (`guarded`, moderated). */
export class PipelineHarness {
  readonly db: DatabaseSync;
  readonly accounts: AccountStore;
  readonly ledger: LedgerStore;
  readonly generations: GenerationStore;
  readonly queue: SettlementQueue;
  readonly upstream = new ScriptedUpstream();
  readonly telemetry = new RecordingTelemetry();
  readonly inFlight = new InProcessInFlightLimiter();
  readonly pipeline: GenerationPipeline;
  private readonly client = new UpstreamClient();

  constructor(opts: HarnessOptions = {}) {
    this.db = openDatabase(':memory:');
    this.accounts = new AccountStore(this.db);
    this.ledger = new LedgerStore(this.db);
    this.generations = new GenerationStore(this.db);
    this.accounts.createAccount({ id: 'acct_1', name: 'a', accountType: 'user', tier: 'tier2', defaultModel: null, now: NOW });
    const balance = opts.balanceNanos ?? 1_000_000_000n;
    if (balance > 0n) this.ledger.addEntry('acct_1', 'credit', balance, null, NOW);
    if (opts.guardrails !== undefined) this.accounts.updateAccount('acct_1', { guardrails: opts.guardrails });
    this.accounts.createKey({
      hash: 'hash_1',
      accountId: 'acct_1',
      name: 'k',
      label: 'sk-sy-v1-x...y',
      limitNanos: null,
      isManagement: false,
      expiresAt: null,
      now: NOW,
      ...(opts.keyAllowlist === undefined ? {} : { allowlist: opts.keyAllowlist }),
      ...(opts.maxInFlight === undefined ? {} : { maxInFlight: opts.maxInFlight }),
    });
    const ledger = this.ledger;
    this.queue = new SettlementQueue(
      { settle: async (holds, batch, refusals) => ledger.settle(holds, batch, refusals) },
      { log: () => {} },
    );
    const catalog = new Catalog(
      [model('acme/chat', ['first', 'second']), model('acme/other', ['third']), model('acme/moderated', ['guarded'], true)],
      new Map(),
    );
    const health = new InProcessHealthStore();
    const breakers = new CircuitBreakers();
    let draws = 0;
    const random = () => ((draws++ * 7919) % 1000) / 1000;
    const moderator = new Moderator([{ name: 'violence', patterns: [compileModerationPattern('\\bkill\\b')] }], null, this.client, 100_000);
    this.pipeline = new GenerationPipeline({
      catalog,
      planner: new AttemptPlanner({ catalog, health, breakers, random }),
      executor: new AttemptExecutor({
        adapters: new Map([['sim', this.upstream]]),
        client: this.client,
        health,
        breakers,
        sleep: async () => {},
        random,
      }),
      settlements: this.queue,
      reservations: new CreditReservations(new ReservationStore(this.db), this.queue, { holdMs: 60_000 }),
      rateLimits: new RateLimitGate(new InProcessRateLimiter(), new Map(DEFAULT_TIERS.map((t) => [t.id, t]))),
      inFlight: this.inFlight,
      moderator,
      timeouts: { attemptMs: 5_000, requestMs: 10_000 },
      telemetry: this.telemetry,
    });
  }

  /** The caller as authentication finds it now (the account's balance as stored). */
  auth(): AuthContext {
    const key = this.accounts.getKey('hash_1');
    const account = this.accounts.getAccount('acct_1');
    if (key === undefined || account === undefined) throw new Error('the fixture account is gone');
    return { key, account };
  }

  balance(): bigint {
    return this.ledger.totals('acct_1').creditsNanos - this.ledger.totals('acct_1').usageNanos;
  }

  /** Rows of `reservations` (credit holds) left. */
  holds(): number {
    return Number((this.db.prepare('SELECT count(*) AS n FROM reservations').get() as { n: number | bigint }).n);
  }

  /** Refusals counted at admission, by reason (written with the settlement batches). */
  async refusals(): Promise<Record<string, number>> {
    await this.queue.flush();
    const rows = this.db.prepare('SELECT reason, sum(count) AS n FROM refusal_counts GROUP BY reason').all() as Array<{
      reason: string;
      n: number | bigint;
    }>;
    return Object.fromEntries(rows.map((r) => [r.reason, Number(r.n)]));
  }

  /** Generation records stored (refusals leave none). */
  recordCount(): number {
    return Number((this.db.prepare('SELECT count(*) AS n FROM generation_records').get() as { n: number | bigint }).n);
  }

  record(id: string): GenerationRecord | undefined {
    return this.generations.getRecord(id);
  }

  /** Admits and runs one request; a refusal at admission is returned as the error. */
  async call(
    req: CanonicalRequest,
    opts: { sink?: CollectingSink; client?: ClientPresence & { left: boolean }; abort?: AbortController } = {},
  ): Promise<CallResult> {
    const info: RequestInfo = { dialect: 'chat', httpReferer: null, xTitle: 'harness' };
    let admitted;
    try {
      admitted = await this.pipeline.admit(this.auth(), req, info);
    } catch (err) {
      if (err instanceof GatewayError) return { refused: err, outcome: null, id: err.headers?.['x-generation-id'] ?? null };
      throw err;
    }
    const sink = opts.sink ?? new CollectingSink();
    const outcome = await this.pipeline.run(admitted, sink, opts.abort ?? new AbortController(), opts.client);
    return { refused: null, outcome, id: admitted.generationId };
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.client.close();
    this.db.close();
  }
}

export interface CallResult {
  refused: GatewayError | null;
  outcome: GenerationOutcome | null;
  id: string | null;
}

/** A chat request for `model` (its text `text`); `order` pins the provider order. */
export function chat(model: string, text: string, more: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    models: [{ model }],
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    sampling: {},
    stream: false,
    extra: {},
    maxOutputTokens: 100,
    ...more,
  };
}
