import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StreamPart } from '../canonical/stream-part.ts';
import type { FrontDialect } from '../front/front-dialect.ts';
import type { AdmittedRequest, GenerationPipeline } from '../pipeline/generation-pipeline.ts';
import type { ExecutionSink } from '../routing/execute-attempts.ts';
import { resumeIdleTimeout } from './connection-guards.ts';
import { reportOverhead } from './gateway-overhead.ts';
import { ClientAbort } from './request-helpers.ts';
import type { InForce } from './wiring/in-force.ts';
import type { InFlight } from './in-flight.ts';
import type { Telemetry } from '../observability/telemetry.ts';

/** What binary-answer.ts uses of the services (handed out by build-app.ts). */
export interface BinaryAnswerDeps {
  inForce: Pick<InForce, 'config'>;
  inFlight: InFlight;
  telemetry: Telemetry;
}

// An answer that is a file the provider sends in pieces (speech audio), streamed to the
// client as the pieces arrive, with the last piece held back until the request is settled
// (docs/audio.md): the client never receives a complete answer that was not charged. Until
// the second piece arrives nothing is written, so a failure is still a plain error with its
// status and routing may still fail over; after that, a failure (or a settlement that could
// not be written) cuts the connection, and the client sees an incomplete answer, never a
// clean end. A provider that answers whole (the sim, an SSE answer joined) is sent whole,
// with its Content-Length, after settlement.

/** Receives `audio-delta` pieces (base64) or a whole speech result, and writes the bytes. */
export class BinaryAnswerSink implements ExecutionSink {
  private readonly res: ServerResponse;
  private readonly headers: Record<string, string>;
  private readonly defaultType: string;
  private contentType: string | null = null;
  private held: Buffer | null = null;
  private started = false;
  private blocked = false;

  constructor(res: ServerResponse, headers: Record<string, string>, defaultType: string) {
    this.res = res;
    this.headers = headers;
    this.defaultType = defaultType;
  }

  get committed(): boolean {
    return this.started;
  }

  beginAttempt(): void {
    this.held = null;
    this.contentType = null;
  }

  part(part: StreamPart): void {
    if (part.type === 'audio-delta' && part.data !== undefined) this.push(Buffer.from(part.data, 'base64'), part.format);
    else if (part.type === 'task-result' && part.result.kind === 'speech') this.push(part.result.audio, part.result.contentType);
  }

  /** Holds the newest piece and writes the one before it (the first write sends the headers). */
  private push(bytes: Buffer, type: string | undefined): void {
    if (bytes.length === 0) return;
    this.contentType ??= type !== undefined && type.startsWith('audio/') ? type : this.defaultType;
    const previous = this.held;
    this.held = bytes;
    if (previous === null || this.res.destroyed) return;
    if (!this.started) {
      this.started = true;
      this.res.writeHead(200, { ...this.headers, 'content-type': this.contentType });
    }
    if (!this.res.write(previous)) this.blocked = true;
  }

  waitForDrain(): Promise<void> | null {
    if (!this.blocked || this.res.destroyed) return null;
    this.blocked = false;
    const res = this.res;
    // Settles on drain, or on close (client gone) so the reader is never left waiting.
    return new Promise((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }

  /** Settled: the held piece ends the answer (the whole answer, with its length, when nothing was sent yet). */
  end(): void {
    if (this.res.destroyed) return;
    const last = this.held ?? Buffer.alloc(0);
    if (!this.started) {
      this.started = true;
      this.res.writeHead(200, {
        ...this.headers,
        'content-type': this.contentType ?? this.defaultType,
        'content-length': String(last.length),
      });
    }
    this.res.end(last);
  }

  /** Failed after bytes went out: the connection is cut so the answer cannot pass for complete. */
  cut(): void {
    this.res.destroy();
  }

  /** Failed before any byte: a plain error with its status. */
  sendJson(status: number, headers: Record<string, string>, body: unknown): void {
    if (this.res.destroyed) return;
    this.started = true;
    const text = JSON.stringify(body);
    this.res.writeHead(status, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
    });
    this.res.end(text);
  }
}

/** Runs an admitted request whose answer is a file (FrontDialect.binaryAnswer) and streams it. */
export async function streamBinaryAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: BinaryAnswerDeps,
  pipeline: GenerationPipeline,
  admitted: AdmittedRequest,
  dialect: FrontDialect,
  defaultType: string,
): Promise<FastifyReply> {
  reply.hijack();
  const sink = new BinaryAnswerSink(reply.raw, admitted.responseHeaders, defaultType);
  const client = new ClientAbort(reply, deps.inForce.config.timeouts.disconnectGraceMs);
  const leave = deps.inFlight.enter(client.controller);
  try {
    let outcome;
    try {
      outcome = await pipeline.run(admitted, sink, client.controller, client);
    } finally {
      client.release();
    }
    const execution = outcome.execution;
    if (execution.cancelled) sink.cut();
    else if (execution.error === null) sink.end();
    else if (sink.committed) sink.cut();
    else {
      const out = dialect.renderError(execution.error);
      sink.sendJson(out.status, { ...admitted.responseHeaders, ...out.headers }, out.body);
    }
    if (!execution.cancelled)
      reportOverhead(reply, deps.telemetry, false, dialect.name, false, reply.elapsedTime, execution.upstreamWaitMs);
    resumeIdleTimeout(request, deps.inForce.config.server.idleTimeoutMs);
  } finally {
    const res = reply.raw;
    if (res.writableFinished || res.destroyed) leave();
    else {
      res.once('finish', leave);
      res.once('close', leave);
    }
  }
  return reply;
}
