import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { buildInfo } from '../config/build-info.ts';
import { aggregateAcrossWorkers } from './cluster-metrics.ts';
import { BoundCounter } from './bound-counter.ts';
import { DIALECT_NAMES, type DialectName } from '../canonical/dialect-name.ts';

/** Seconds buckets for whole requests and upstream attempts (model calls last seconds to minutes). */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320];
/** The gateway's own time per request: 50 µs to 50 ms (1-2-5 steps), and beyond for moderation, retries, stalls. */
const OVERHEAD_BUCKETS = [0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25];

type OverheadLabels = { route: DialectName; streamed: 'true' | 'false' };

/** The overhead histogram's label sets, built once: [non-streamed, streamed] per dialect. */
const OVERHEAD_LABELS = Object.fromEntries(
  DIALECT_NAMES.map((route) => [
    route,
    [
      { route, streamed: 'false' },
      { route, streamed: 'true' },
    ],
  ]),
) as unknown as Record<DialectName, readonly [OverheadLabels, OverheadLabels]>;

export const TOKEN_TYPES = ['prompt', 'completion', 'cache_read', 'cache_write', 'reasoning'] as const;

/** What the collect-time gauges read (the services, at scrape time: nothing on the hot path). */
export interface GaugeSources {
  /** Endpoint ids of the catalog, and their circuit state. */
  endpoints: () => Iterable<string>;
  circuitState: (endpointId: string) => 'closed' | 'open' | 'half-open';
  settlementQueueDepth: () => number;
  settlementFailing: () => boolean;
  /** Log lines dropped so far, stdout's request log and stderr's operator messages (observability/log-sink.ts). */
  logLinesDropped?: () => { stdout: number; stderr: number };
}

/**
 * The Prometheus registry and every metric the gateway exports (docs/operations.md lists
 * them). Labels come from bounded sets only: route (dialect), catalog model id, provider
 * id, endpoint id, status class, error code from the catalogue, reason enums; never key
 * ids or client strings.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  /** Label sets bound once (bound-counter.ts): `.inc(value, ...label values in labelNames' order)`. */
  readonly httpRequests: BoundCounter<'method' | 'route' | 'status_class'>;
  /** Label sets bound once (bound-counter.ts): `.inc(value, ...label values in labelNames' order)`. */
  readonly requests: BoundCounter<'route' | 'model' | 'provider' | 'status_class'>;
  readonly requestDuration: Histogram<'route' | 'model' | 'provider'>;
  readonly timeToFirstToken: Histogram<'route' | 'model' | 'provider'>;
  readonly overhead: Histogram<'route' | 'streamed'>;
  readonly upstreamDuration: Histogram<'provider' | 'endpoint'>;
  /** Label sets bound once (bound-counter.ts): `.inc(value, ...label values in labelNames' order)`. */
  readonly attempts: BoundCounter<'provider' | 'endpoint' | 'outcome'>;
  readonly credentialAttempts: Counter<'provider' | 'credential' | 'outcome'>;
  readonly retries: Counter<'provider' | 'endpoint' | 'reason'>;
  readonly fallbacks: Counter<'reason'>;
  /** Label sets bound once (bound-counter.ts): `.inc(value, ...label values in labelNames' order)`. */
  readonly tokens: BoundCounter<'model' | 'provider' | 'type'>;
  /** Label sets bound once (bound-counter.ts): `.inc(value, ...label values in labelNames' order)`. */
  readonly cost: BoundCounter<'model' | 'provider'>;
  readonly rateLimitRefusals: Counter<'scope'>;
  readonly admissionRefusals: Counter<'reason'>;
  readonly guardrailHits: Counter<'detector' | 'action'>;
  readonly circuitOpened: Counter<'endpoint'>;
  readonly holdsOutstanding: Gauge;
  readonly settlementsDropped: Counter;
  /** The text GET /metrics serves: this process's registry, or every worker's (`aggregateAcrossWorkers`). */
  scrape: () => Promise<string> = () => this.registry.metrics();

  constructor(sources: GaugeSources, opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new BoundCounter({
      name: 'switchyard_http_requests_total',
      help: 'HTTP requests answered, every route (authentication failures and unknown routes included), by method, route pattern and status class.',
      labelNames: ['method', 'route', 'status_class'],
      registers,
    });
    this.requests = new BoundCounter({
      name: 'switchyard_requests_total',
      help: 'Model requests finished (refusals at admission included), by route, model, provider and status class.',
      labelNames: ['route', 'model', 'provider', 'status_class'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'switchyard_request_duration_seconds',
      help: 'Total latency of a model request, admission to settlement.',
      labelNames: ['route', 'model', 'provider'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.timeToFirstToken = new Histogram({
      name: 'switchyard_time_to_first_token_seconds',
      help: 'Time from the start of execution to the first content part sent to the client.',
      labelNames: ['route', 'model', 'provider'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.overhead = new Histogram({
      name: 'switchyard_gateway_overhead_seconds',
      help: "The gateway's own time per admitted request: received to answer written (a stream: to its first byte), minus the time spent waiting on upstreams.",
      labelNames: ['route', 'streamed'],
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    this.upstreamDuration = new Histogram({
      name: 'switchyard_upstream_duration_seconds',
      help: 'Duration of one upstream attempt, sending to its end.',
      labelNames: ['provider', 'endpoint'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.attempts = new BoundCounter({
      name: 'switchyard_upstream_attempts_total',
      help: 'Upstream attempts by outcome: ok, or the error code of the catalogue.',
      labelNames: ['provider', 'endpoint', 'outcome'],
      registers,
    });
    this.credentialAttempts = new Counter({
      name: 'switchyard_credential_attempts_total',
      help: 'Upstream attempts that carried a pooled credential (api_keys), by its label and outcome.',
      labelNames: ['provider', 'credential', 'outcome'],
      registers,
    });
    this.retries = new Counter({
      name: 'switchyard_retries_total',
      help: 'Attempts that retried the endpoint of the attempt before, by the error code that caused them.',
      labelNames: ['provider', 'endpoint', 'reason'],
      registers,
    });
    this.fallbacks = new Counter({
      name: 'switchyard_fallbacks_total',
      help: 'Attempts that moved on to another endpoint or model, by the error code of the attempt before.',
      labelNames: ['reason'],
      registers,
    });
    this.tokens = new BoundCounter({
      name: 'switchyard_tokens_total',
      help: 'Tokens charged, by type: prompt, completion, cache_read, cache_write, reasoning.',
      labelNames: ['model', 'provider', 'type'],
      registers,
    });
    this.cost = new BoundCounter({
      name: 'switchyard_cost_nanousd_total',
      help: 'Cost charged to accounts, in nano-USD (1e-9 USD).',
      labelNames: ['model', 'provider'],
      registers,
    });
    this.rateLimitRefusals = new Counter({
      name: 'switchyard_rate_limit_refusals_total',
      help: 'Rate-limit refusals: scope "request" (429 at admission) or "model" (a fallback model over its own limit).',
      labelNames: ['scope'],
      registers,
    });
    this.admissionRefusals = new Counter({
      name: 'switchyard_admission_refusals_total',
      help: 'Requests refused at admission, before any upstream call (no generation record: counted per key in refusal_counts), by error code.',
      labelNames: ['reason'],
      registers,
    });
    this.guardrailHits = new Counter({
      name: 'switchyard_guardrail_hits_total',
      help: "Requests in which an account's guardrail rule fired, by detector and action (redact: the text was rewritten; block: refused 403).",
      labelNames: ['detector', 'action'],
      registers,
    });
    this.circuitOpened = new Counter({
      name: 'switchyard_circuit_opened_total',
      help: 'Times an endpoint circuit opened (tripped, or a failed half-open probe).',
      labelNames: ['endpoint'],
      registers,
    });
    new Gauge({
      name: 'switchyard_circuit_state',
      help: 'Circuit state per endpoint: 0 closed, 1 half-open, 2 open.',
      labelNames: ['endpoint'],
      // Each worker has its own breakers: across workers, the worst state any of them sees.
      aggregator: 'max',
      registers,
      collect() {
        for (const id of sources.endpoints()) {
          const state = sources.circuitState(id);
          this.set({ endpoint: id }, state === 'closed' ? 0 : state === 'half-open' ? 1 : 2);
        }
      },
    });
    this.holdsOutstanding = new Gauge({
      name: 'switchyard_credit_holds_outstanding',
      help: 'Admitted requests whose credit hold is not settled yet.',
      registers,
    });
    const build = buildInfo();
    new Gauge({
      name: 'switchyard_build_info',
      help: 'Always 1; the labels name the running version, build and Node version (as /ready and --version).',
      labelNames: ['version', 'build', 'node'],
      aggregator: 'max',
      registers,
    }).set({ version: build.version, build: build.build, node: build.node }, 1);
    new Gauge({
      name: 'switchyard_settlement_queue_depth',
      help: 'Settlement records waiting to be written to the database.',
      registers,
      collect() {
        this.set(sources.settlementQueueDepth());
      },
    });
    new Gauge({
      name: 'switchyard_settlement_failing',
      help: '1 while the database refuses settlement writes (model calls are refused), else 0.',
      aggregator: 'max',
      registers,
      collect() {
        this.set(sources.settlementFailing() ? 1 : 0);
      },
    });
    this.settlementsDropped = new Counter({
      name: 'switchyard_settlements_dropped_total',
      help: 'Settlement records the database refused for a reason of their own (their charge is lost).',
      registers,
    });
    const seen = { stdout: 0, stderr: 0 };
    new Counter({
      name: 'switchyard_log_lines_dropped_total',
      help: 'Log lines that could not be written (a reader that does not read past 16 MB queued, or is gone), by stream.',
      labelNames: ['stream'],
      registers,
      collect() {
        const now = sources.logLinesDropped?.() ?? seen;
        for (const stream of ['stdout', 'stderr'] as const) {
          this.inc({ stream }, now[stream] - seen[stream]);
          seen[stream] = now[stream];
        }
      },
    });
  }

  /** One request's own time (seconds), under label sets built once (no object per request). */
  observeOverhead(dialect: DialectName, streamed: boolean, seconds: number): void {
    this.overhead.observe(OVERHEAD_LABELS[dialect][streamed ? 1 : 0], seconds);
  }

  /**
   * In a worker of `serve --workers N`: GET /metrics answers with the figures of every
   * worker, gathered by the primary (cluster-metrics.ts). Counters, histograms and the
   * holds and queue gauges are summed; circuit state, build info and settlement_failing
   * take the maximum.
   */
  aggregateAcrossWorkers(): void {
    this.scrape = aggregateAcrossWorkers(this.registry);
  }
}
