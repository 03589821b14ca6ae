import type { Span } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import { symbols as pinoSymbols, type DestinationStream, type Logger } from 'pino';
import { formatNanos } from '../money/money.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import { SecretScrubber } from '../providers/http/scrub-secrets.ts';
import { createRequestLogger } from './request-log.ts';
import type { LogSink } from './log-sink.ts';
import type { SettlementRecord } from '../store/ledger-records.ts';
import type { AttemptRecord } from '../routing/attempt.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import type { DialectName } from '../canonical/dialect-name.ts';
import { GatewayTracing } from './gateway-tracing.ts';
import type { TracedAttempt, UpstreamObserver, UpstreamTrace } from '../providers/http/upstream-client.ts';

/** Who made the request, for the log line (never the key itself). */
export interface RequestParty {
  keyLabel: string;
}

/** What the end of a request adds to its settlement record. */
export interface RequestEnd {
  record: SettlementRecord;
  error: GatewayError | null;
  party: RequestParty;
  /** The request's server span (null when tracing is off). */
  span: Span | null;
}

/**
 * The one observability object (built in server/wiring/telemetry-wiring.ts, handed to the pipeline, the
 * upstream client and the breakers): metrics, the request log and traces behind it, each
 * a no-op when off. It observes at a few points only: the end of a request (its
 * settlement record holds the whole outcome, attempts included), a circuit opening, a
 * settlement dropped, and each upstream attempt's span when tracing is on.
 */
export class Telemetry implements UpstreamObserver {
  readonly metrics: GatewayMetrics | null;
  readonly log: Logger;
  readonly tracing: GatewayTracing | null;
  /** Where the request log's lines go when that is stdout (null: a terminal, a test's destination, silent). */
  readonly logSink: LogSink | null;
  /** The scrubber of the configuration in force (it changes on reload). */
  private readonly scrubber: () => SecretScrubber;
  private readonly knownModel: (id: string) => boolean;

  constructor(opts: {
    metrics: GatewayMetrics | null;
    log: Logger;
    logSink?: LogSink | null;
    tracing: GatewayTracing | null;
    scrubber: () => SecretScrubber;
    knownModel: (id: string) => boolean;
  }) {
    this.metrics = opts.metrics;
    this.log = opts.log;
    this.logSink = opts.logSink ?? null;
    this.tracing = opts.tracing;
    this.scrubber = opts.scrubber;
    this.knownModel = opts.knownModel;
  }

  /** A request enters execution: its credit hold is outstanding until `requestEnded`. */
  requestStarted(
    requestModel: string,
    dialect: DialectName,
    startedAt: number,
    signal: AbortSignal | null,
    traceparent: string | null = null,
  ): Span | null {
    this.metrics?.holdsOutstanding.inc();
    return this.tracing === null ? null : this.tracing.startRequest(this.modelLabel(requestModel), dialect, startedAt, signal, traceparent);
  }

  /** Guardrail rules that fired on one request (moderation/guardrails.ts): counted by detector and action, never the text. */
  guardrailsFired(hits: ReadonlyArray<{ detector: string; action: string }>): void {
    const m = this.metrics;
    if (m === null) return;
    for (const h of hits) m.guardrailHits.inc({ detector: h.detector, action: h.action });
  }

  /** A model call refused from its headers, before its body was read: counted by reason. */
  refusedBeforeBody(error: GatewayError): void {
    this.metrics?.admissionRefusals.inc({ reason: error.code });
  }

  /** A request refused at admission (no attempt was made): counted, logged and traced like any other. */
  requestRefused(record: SettlementRecord, error: GatewayError, party: RequestParty, traceparent: string | null = null): void {
    // The reason is an error code of the catalogue: a bounded label.
    this.metrics?.admissionRefusals.inc({ reason: error.code });
    const span =
      this.tracing === null
        ? null
        : this.tracing.startRequest(this.modelLabel(record.model), record.dialect, Date.parse(record.createdAt), null, traceparent);
    this.requestEnded({ record, error, party, span }, false, null);
  }

  /**
   * A model as metric labels and span names and attributes carry it: a catalog id, else
   * `unknown`. A client's text (an unknown model name, a title, a referer, a user id) never
   * becomes a label, a span's name or an attribute that span metrics turn into a label:
   * each would be a new series, and a place for a client to write into the operator's
   * monitoring. The request log (one line per request, nothing aggregated) keeps them.
   */
  private modelLabel(model: string | null): string {
    return model !== null && this.knownModel(model) ? model : 'unknown';
  }

  /**
   * The gateway's own time for one admitted request whose answer was written (ms; the
   * generation route measures it: received → answer written, a stream's first byte, minus
   * the waits on upstreams).
   */
  overheadMeasured(dialect: DialectName, streamed: boolean, ms: number): void {
    this.metrics?.observeOverhead(dialect, streamed, ms / 1000);
  }

  /** A request ended (admission refusals included: then `started` is false). */
  requestEnded(end: RequestEnd, started: boolean, signal: AbortSignal | null): void {
    const { record, error } = end;
    if (started) this.metrics?.holdsOutstanding.dec();
    const status = error !== null ? error.status : record.cancelled ? 499 : 200;
    if (this.metrics !== null) this.count(record, error, status);
    if (this.log.isLevelEnabled('info')) this.logRequest(end, status);
    if (end.span !== null) this.endSpan(end.span, record, error);
    if (signal !== null) this.tracing?.forget(signal);
  }

  /** A circuit opened: the endpoint is skipped for its cool-down. */
  circuitOpened(endpointId: string, consecutiveFailures: number): void {
    this.metrics?.circuitOpened.inc({ endpoint: endpointId });
    this.log.warn({ endpoint: endpointId, consecutive_failures: consecutiveFailures }, 'circuit opened');
  }

  /** A settlement the database refused for a reason of its own: its charge is lost. */
  settlementDropped(record: SettlementRecord): void {
    this.metrics?.settlementsDropped.inc();
    this.log.error({ generation_id: record.id, account: record.accountId, cost_usd: formatNanos(record.costNanos) }, 'settlement dropped');
  }

  /** The client span of one upstream attempt, and the headers to send (with `traceparent`); null when tracing is off. */
  attemptStarted(signal: AbortSignal, attempt: TracedAttempt, headers: Record<string, string>): UpstreamTrace | null {
    if (this.tracing === null) return null;
    const started = this.tracing.startAttempt(signal, attempt, headers);
    const span = started.span;
    return {
      headers: started.headers,
      answered: (status) => GatewayTracing.attemptAnswered(span, status),
      failed: (errorType) => GatewayTracing.attemptFailed(span, errorType),
      end: () => span.end(),
    };
  }

  private count(r: SettlementRecord, error: GatewayError | null, status: number): void {
    const m = this.metrics!;
    const route = r.dialect;
    const model = this.modelLabel(r.model);
    const provider = r.provider ?? 'none';
    m.requests.inc(
      1,
      route,
      model,
      provider,
      r.cancelled && error === null ? 'cancelled' : (STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`),
    );
    const latencyMs = r.latencyMs ?? 0;
    const seconds = latencyMs / 1000;
    m.requestDuration.observe({ route, model, provider }, seconds);
    if (r.firstTokenMs !== null) m.timeToFirstToken.observe({ route, model, provider }, r.firstTokenMs / 1000);
    const attempts = r.attempts as AttemptRecord[];
    for (let i = 0; i < attempts.length; i++) {
      const a = attempts[i]!;
      if (a.status === 0 && a.ms === 0 && a.errorCode === 'rate_limited') {
        // A fallback model over its own limit: nothing was sent.
        m.rateLimitRefusals.inc({ scope: 'model' });
        continue;
      }
      m.attempts.inc(1, a.provider, a.endpoint, a.errorCode ?? 'ok');
      if (a.credential !== undefined)
        m.credentialAttempts.inc({ provider: a.provider, credential: a.credential, outcome: a.errorCode ?? 'ok' });
      m.upstreamDuration.observe({ provider: a.provider, endpoint: a.endpoint }, a.ms / 1000);
      if (i > 0) {
        const before = attempts[i - 1]!;
        const reason = before.errorCode ?? 'unknown';
        if (before.endpoint === a.endpoint) m.retries.inc({ provider: a.provider, endpoint: a.endpoint, reason });
        else m.fallbacks.inc({ reason });
      }
    }
    if (error?.code === 'rate_limited' && attempts.length === 0) m.rateLimitRefusals.inc({ scope: 'request' });
    if (r.provider !== null) {
      m.tokens.inc(r.tokensPrompt, model, provider, 'prompt');
      m.tokens.inc(r.tokensCompletion, model, provider, 'completion');
      m.tokens.inc(r.tokensCacheRead, model, provider, 'cache_read');
      m.tokens.inc(r.tokensCacheWrite, model, provider, 'cache_write');
      m.tokens.inc(r.tokensReasoning, model, provider, 'reasoning');
      if (r.costNanos > 0n) m.cost.inc(Number(r.costNanos), model, provider);
    }
  }

  private logRequest(end: RequestEnd, status: number): void {
    const { record: r, error } = end;
    const s = this.scrubber();
    const attempts = (r.attempts as AttemptRecord[]).map((a) => ({
      model: a.model,
      provider: a.provider,
      endpoint: a.endpoint,
      status: a.status,
      error: a.errorCode,
      ms: a.ms,
      // A pooled credential's label (never its key). Left out when undefined (JSON.stringify), like
      // the optional fields below: a literal without spreads is built from its shape (issue 29).
      credential: a.credential,
    }));
    for (let i = 0; i < attempts.length; i++) {
      const a = attempts[i]!;
      if (a.error === null) continue;
      const next = attempts[i + 1];
      this.log.warn(
        { generation_id: r.id, ...a, fallback_to: next?.endpoint ?? null },
        next === undefined
          ? 'upstream attempt failed'
          : next.endpoint === a.endpoint
            ? 'upstream attempt failed, retrying'
            : 'upstream attempt failed, falling back',
      );
    }
    const line = {
      generation_id: r.id,
      account: r.accountId,
      key_label: end.party.keyLabel,
      referer: r.httpReferer === null ? null : s.text(r.httpReferer),
      app: r.xTitle === null ? null : s.text(r.xTitle),
      route: r.dialect,
      model: r.model === null ? null : s.text(r.model),
      provider: r.provider,
      upstream_model: r.upstreamModel,
      streamed: r.streamed,
      status,
      error: error?.code ?? null,
      error_message: error === null ? null : s.text(error.message),
      // The operator's own: what the client's message leaves out (a transport error's address).
      error_detail: error?.detail === undefined ? undefined : s.text(error.detail),
      attempts,
      latency_ms: r.latencyMs,
      ttft_ms: r.firstTokenMs,
      tokens: {
        prompt: r.tokensPrompt,
        completion: r.tokensCompletion,
        cache_read: r.tokensCacheRead,
        cache_write: r.tokensCacheWrite,
        reasoning: r.tokensReasoning,
      },
      cost_usd: formatNanos(r.costNanos),
      finish_reason: r.finishReason,
      cancelled: r.cancelled,
      // The account's guardrail rules that fired (a block's refusal included): names and actions, never the text.
      guardrails: r.guardrails == null || r.guardrails.length === 0 ? undefined : r.guardrails.map((h) => `${h.name}:${h.action}`),
    };
    const error50 = error?.code === 'storage_unavailable' || error?.code === 'internal_error';
    // The line as pino writes it (numeric level, epoch ms, the fields, then `msg`; `base: null`),
    // serialized once by JSON.stringify and handed to the logger's destination: pino's own
    // per-field serialization and redaction pass cost more than the rest of the line (issue
    // 29). None of its fields is a redacted path (request-log.ts REDACT_PATHS): the texts that
    // came from a client or an upstream are scrubbed above.
    const fields = JSON.stringify(line);
    const text = `{"level":${error50 ? 50 : 30},"time":${Date.now()},${fields.slice(1, -1)},"msg":"request"}\n`;
    if (error50 ? this.log.isLevelEnabled('error') : true) requestLogDestination(this.log).write(text);
  }

  private endSpan(span: Span, r: SettlementRecord, error: GatewayError | null): void {
    if (r.provider !== null) span.setAttribute('gen_ai.provider.name', r.provider);
    if (r.upstreamModel !== null) span.setAttribute('gen_ai.response.model', r.upstreamModel);
    span.setAttribute('gen_ai.usage.input_tokens', r.tokensPrompt);
    span.setAttribute('gen_ai.usage.output_tokens', r.tokensCompletion);
    if (r.finishReason !== null) span.setAttribute('gen_ai.response.finish_reasons', [r.finishReason]);
    span.setAttribute('switchyard.generation_id', r.id);
    if (error !== null) {
      span.setAttribute('error.type', error.code);
      span.setAttribute('http.response.status_code', error.status);
      // The code, not the message: a message may quote the client (`The model "…" does not exist`).
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
    } else {
      span.setAttribute('http.response.status_code', r.cancelled ? 499 : 200);
    }
    span.end();
  }
}

const NO_SECRETS = new SecretScrubber([]);
/** A status's class label by its hundreds (no string built per request). */
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

/** The stream a pino logger writes its lines to (a LogSink, a file, pino-pretty's stream). */
function requestLogDestination(log: Logger): DestinationStream {
  return (log as unknown as Record<symbol, DestinationStream>)[pinoSymbols.streamSym]!;
}

/** Telemetry that observes nothing (a pipeline built without one: unit tests, tools). */
export function silentTelemetry(): Telemetry {
  return new Telemetry({
    metrics: null,
    log: createRequestLogger({ level: 'silent' }),
    tracing: null,
    scrubber: () => NO_SECRETS,
    knownModel: () => false,
  });
}
