import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { nanosToNumber } from '../money/money.ts';
import { storageUnavailable, type SettlementQueue } from '../billing/settlement-queue.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import { RawAnswer, type DialectStreamEncoder, type FrontDialect, type ResponseMeta } from '../front/front-dialect.ts';
import { FoldingSink } from '../pipeline/folding-sink.ts';
import type { AdmittedRequest, GenerationOutcome } from '../pipeline/generation-pipeline.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { ExecutionSink } from '../routing/execute-attempts.ts';
import { access, requestAuth, type RouteAccess } from './route-access.ts';
import { closeIfBodyPending, resumeIdleTimeout } from './connection-guards.ts';
import { normalizeError } from './normalize-error.ts';
import { ClientAbort, requestInfo } from './request-helpers.ts';
import { SseWriter } from './sse-writer.ts';
import { streamBinaryAnswer } from './binary-answer.ts';
import { overheadClock, reportOverhead } from './gateway-overhead.ts';
import { publicBase } from './public-base.ts';
import { runMcpGeneration, type McpGenerationDeps } from './mcp-loop/mcp-generation.ts';
import type { InForce } from './wiring/in-force.ts';
import type { InFlight } from './in-flight.ts';
import type { Telemetry } from '../observability/telemetry.ts';

/** What generation-route.ts uses of the services (handed out by build-app.ts). */
export type GenerationRouteDeps = McpGenerationDeps & {
  inForce: Pick<InForce, 'config' | 'pipeline'>;
  settlements: SettlementQueue;
  inFlight: InFlight;
  telemetry: Telemetry;
};

const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * Registers a model-calling endpoint: one handler for every dialect, parameterized by the
 * dialect's codec. authenticate (from the headers, before the body is read) → decode →
 * admit → run (fold or stream) → encode.
 */
export function registerGenerationRoute(
  app: FastifyInstance,
  deps: GenerationRouteDeps,
  dialect: FrontDialect,
  paths: readonly string[],
): void {
  const handler = (request: FastifyRequest, reply: FastifyReply): Promise<unknown> =>
    runGeneration(deps, dialect, request, reply, dialect.decode(request.body));
  const errorHandler = dialectErrorHandler(dialect);
  const declared = generationAccess(deps, dialect);
  const clock = overheadClock(deps.telemetry);
  for (const path of paths) app.post(path, { errorHandler, ...declared, ...clock }, handler);
}

/**
 * A model call, once decoded: admit → run (fold or stream) → encode. The one path of every
 * model-calling route (routes that read part of the request from the path, Gemini's, decode
 * themselves and call this).
 */
export async function runGeneration(
  deps: GenerationRouteDeps,
  dialect: FrontDialect,
  request: FastifyRequest,
  reply: FastifyReply,
  req: CanonicalRequest,
): Promise<unknown> {
  const auth = requestAuth(request);
  // Charges cannot be written: fail closed before any upstream call (each refusal retries the writes).
  if (deps.settlements.failing && !(await deps.settlements.retry())) throw storageUnavailable();
  // MCP servers named: the gateway runs their tools between model turns (mcp-loop/).
  if (req.mcp !== undefined) return runMcpGeneration(deps, dialect, request, reply, req);
  // The configuration in force when the request arrived serves it to the end, whatever a reload swaps in meanwhile.
  const pipeline = deps.inForce.pipeline;
  const admitted = await pipeline.admit(auth, req, requestInfo(request, dialect.name));
  reply.headers(admitted.responseHeaders);

  if (dialect.binaryAnswer !== undefined)
    return streamBinaryAnswer(request, reply, deps, pipeline, admitted, dialect, dialect.binaryAnswer(req));

  if (!req.stream) {
    const sink = new FoldingSink();
    // A client that leaves before its answer: the upstream is read on for its usage (as a stream's).
    const client = new ClientAbort(reply, deps.inForce.config.timeouts.disconnectGraceMs);
    const leave = deps.inFlight.enter(client.controller);
    let outcome: GenerationOutcome;
    try {
      outcome = await pipeline.run(admitted, sink, client.controller, client);
    } finally {
      client.release();
      leave();
    }
    // Charged; nobody is left to answer.
    if (client.left) return reply.hijack();
    const execution = outcome.execution;
    const header = deps.inForce.config.metrics.overheadHeader === true;
    if (execution.error !== null) {
      reportOverhead(reply, deps.telemetry, header, dialect.name, false, reply.elapsedTime, execution.upstreamWaitMs);
      throw execution.error;
    }
    const meta = responseMeta(admitted, outcome.served ?? admitted.plan[0]!, outcome);
    // Image answers by URL name the gateway's public address (only they need it).
    if (req.task?.kind === 'image') meta.publicBase = publicBase(request, deps.inForce.config.server);
    const encoded = dialect.encodeResponse(sink.folder.response, meta, req);
    if (encoded instanceof RawAnswer) {
      reportOverhead(reply, deps.telemetry, header, dialect.name, false, reply.elapsedTime, execution.upstreamWaitMs);
      reply.type(encoded.contentType);
      return encoded.body;
    }
    // Serialized here (as Fastify would) so that the gateway's own time includes it.
    const body = JSON.stringify(encoded);
    reportOverhead(reply, deps.telemetry, header, dialect.name, false, reply.elapsedTime, execution.upstreamWaitMs);
    reply.type(JSON_UTF8);
    return body;
  }

  reply.hijack();
  const sink = new DialectSseSink(dialect, new SseWriter(reply.raw), admitted, reply);
  // A client that leaves the stream, before its first byte or after: the upstream is read on for its usage.
  const client = new ClientAbort(reply, deps.inForce.config.timeouts.disconnectGraceMs);
  // A stream counts as in flight until its last bytes are written (a graceful stop waits for it).
  const leave = deps.inFlight.enter(client.controller);
  try {
    let outcome: GenerationOutcome;
    try {
      outcome = await pipeline.run(admitted, sink, client.controller, client);
    } finally {
      client.release();
      sink.stopKeepAlive();
    }
    sink.close(outcome);
    // Its first byte's time (there is no header: the headers left with it).
    if (!outcome.execution.cancelled)
      reportOverhead(reply, deps.telemetry, false, dialect.name, true, sink.answeredAfterMs, outcome.execution.upstreamWaitMs);
    resumeIdleTimeout(request, deps.inForce.config.server.idleTimeoutMs);
  } finally {
    afterResponse(reply, leave);
  }
  return reply;
}

/**
 * The access of a model-calling route: an API key read by the dialect's rule, the server's
 * body limit, and the refusals the key and the announced size decide before a byte of the
 * body is read (`refuseBeforeBody` says whether this request is a model call: Gemini's one
 * route also counts tokens, which a key that cannot pay may still do).
 */
export function generationAccess(
  deps: GenerationRouteDeps,
  dialect: Pick<FrontDialect, 'readKey' | 'keyHeaders'>,
  more: { refuseBeforeBody?: (request: FastifyRequest) => boolean; note?: string } = {},
): { config: { access: RouteAccess } } {
  const refuse = more.refuseBeforeBody;
  return access('model-key', {
    readKey: dialect.readKey,
    ...(dialect.keyHeaders === undefined ? {} : { keyHeaders: dialect.keyHeaders }),
    maxBodyBytes: 'server',
    beforeBody: (request, auth) => {
      if (refuse !== undefined && !refuse(request)) return;
      const refusal = deps.inForce.pipeline.refusalBeforeBody(auth!, Number(request.headers['content-length'] ?? 0));
      if (refusal !== null) throw refusal;
    },
    // Counted per key, reason and minute like the refusals at admission.
    onRefused: (auth, error) => deps.inForce.pipeline.countRefusal(auth, error),
    ...(more.note === undefined ? {} : { note: more.note }),
  });
}

/** Calls `done` once the response's last bytes left the process (or the connection closed). */
export function afterResponse(reply: FastifyReply, done: () => void): void {
  const res = reply.raw;
  if (res.writableFinished || res.destroyed) return done();
  res.once('finish', done);
  res.once('close', done);
}

/** Renders any error reaching a route in its dialect's shape. */
export function dialectErrorHandler(dialect: FrontDialect) {
  return function renderDialectError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const out = dialect.renderError(normalizeError(error, request.routeOptions.bodyLimit));
    closeIfBodyPending(request, reply);
    reply.code(out.status).headers(out.headers).send(out.body);
  };
}

export function responseMeta(admitted: AdmittedRequest, attempt: PlannedAttempt, outcome: GenerationOutcome | null): ResponseMeta {
  const meta: ResponseMeta = {
    id: admitted.generationId,
    created: admitted.created,
    model: attempt.model.id,
    provider: attempt.endpoint.provider.id,
    excludeReasoning: admitted.req.reasoning?.exclude === true,
    accountId: admitted.auth.account.id,
  };
  if (outcome?.cost) meta.cost = nanosToNumber(outcome.cost.totalNanos);
  return meta;
}

/**
 * Streams an answer in a dialect. No answer bytes are written until the first part of an
 * answer arrives, so a failure before that is still a plain HTTP error with its own status
 * and routing may still fail over. A dialect with a keep-alive may open the response
 * earlier with keep-alive events only: that still leaves failover open (nothing of an
 * answer was sent), but a failure is then written in-stream, the status being gone.
 */
export class DialectSseSink implements ExecutionSink {
  private readonly dialect: FrontDialect;
  private readonly writer: SseWriter;
  private readonly admitted: AdmittedRequest;
  private readonly reply: FastifyReply;
  /** Milliseconds from the request received to the answer's first byte (or its error, or its end), -1 before. */
  answeredAfterMs = -1;
  private encoder: DialectStreamEncoder | null = null;
  private attempt: PlannedAttempt;
  private readonly pending: StreamPart[] = [];
  private keepAliveTimer: NodeJS.Timeout | null = null;
  /** Something was written since the last keep-alive tick (one flag store per chunk, no timer reset). */
  private wrote = false;

  constructor(dialect: FrontDialect, writer: SseWriter, admitted: AdmittedRequest, reply: FastifyReply) {
    this.dialect = dialect;
    this.writer = writer;
    this.admitted = admitted;
    this.reply = reply;
    this.attempt = admitted.plan[0]!;
    const keepAlive = dialect.keepAlive;
    if (keepAlive !== undefined) {
      this.keepAliveTimer = setInterval(keepAliveTick, keepAlive.intervalMs, this, keepAlive.text);
      this.keepAliveTimer.unref();
    }
  }

  /** Called by the keep-alive interval: a keep-alive event when the last interval wrote nothing. */
  tick(text: string): void {
    if (this.wrote) {
      this.wrote = false;
      return;
    }
    if (!this.writer.started) this.writer.start(this.streamHeaders());
    this.writer.write(text);
  }

  get committed(): boolean {
    return this.encoder !== null;
  }

  beginAttempt(attempt: PlannedAttempt): void {
    this.attempt = attempt;
    this.pending.length = 0;
  }

  part(part: StreamPart): void {
    this.wrote = true;
    const encoder = this.encoder;
    if (encoder !== null) {
      this.writer.write(encoder.push(part));
      return;
    }
    // Metadata before the answer starts is held, not sent: it must not commit the stream.
    if (part.type === 'stream-start' || part.type === 'usage') {
      this.pending.push(part);
      return;
    }
    const opened = this.open();
    for (const held of this.pending) this.writer.write(opened.push(held));
    this.pending.length = 0;
    this.writer.write(opened.push(part));
  }

  waitForDrain(): Promise<void> | null {
    return this.writer.waitForDrain();
  }

  stopKeepAlive(): void {
    if (this.keepAliveTimer !== null) {
      clearInterval(this.keepAliveTimer);
      this.keepAliveTimer = null;
    }
  }

  close(outcome: GenerationOutcome): void {
    if (this.answeredAfterMs < 0) this.answeredAfterMs = this.reply.elapsedTime;
    const error = outcome.execution.error;
    if (this.encoder === null) {
      if (outcome.execution.cancelled) return this.writer.end();
      if (error !== null) {
        // Keep-alives already sent the headers: the error can only go in-stream.
        if (this.writer.started) return this.writer.end(this.createEncoder().error(error));
        return this.sendPlainError(error);
      }
      this.part({ type: 'finish', reason: { unified: 'stop', raw: null } });
    }
    const encoder = this.encoder!;
    if (outcome.execution.cancelled) return this.writer.end();
    if (error !== null) return this.writer.end(encoder.error(error));
    this.writer.end(encoder.end(outcome.cost ? nanosToNumber(outcome.cost.totalNanos) : undefined));
  }

  private open(): DialectStreamEncoder {
    this.answeredAfterMs = this.reply.elapsedTime;
    const encoder = this.createEncoder();
    this.encoder = encoder;
    // Usage that came before the answer can be announced at its start (messages' message_start).
    if (encoder.primeUsage !== undefined) {
      for (const held of this.pending) if (held.type === 'usage') encoder.primeUsage(held.usage);
    }
    if (!this.writer.started) this.writer.start(this.streamHeaders());
    this.writer.write(encoder.start());
    return encoder;
  }

  /** The admission's headers, and the dialect's content type when its stream is not SSE. */
  private streamHeaders(): Record<string, string> {
    const type = this.dialect.streamContentType;
    return type === undefined ? this.admitted.responseHeaders : { ...this.admitted.responseHeaders, 'content-type': type };
  }

  private createEncoder(): DialectStreamEncoder {
    return this.dialect.createStreamEncoder(responseMeta(this.admitted, this.attempt, null), this.admitted.req);
  }

  private sendPlainError(error: GatewayError): void {
    const out = this.dialect.renderError(error);
    this.writer.sendJson(out.status, { ...this.admitted.responseHeaders, ...out.headers }, out.body);
  }
}

function keepAliveTick(sink: DialectSseSink, text: string): void {
  sink.tick(text);
}
