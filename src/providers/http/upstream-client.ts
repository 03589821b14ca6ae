import { Agent, request, type Dispatcher } from 'undici';
import type { UpstreamRequest, UpstreamTaskRequest } from '../types.ts';
import type { ModelKind } from '../../canonical/task.ts';

/** What a client span needs of the attempt (routing's PlannedAttempt fits). */
export interface TracedAttempt {
  /** The catalog model; its kind names the span's operation (chat, embeddings, ...). */
  model: { id: string; kind?: ModelKind };
  endpoint: { id: string; upstreamModel: string; provider: { id: string } };
  /** The label of the pooled credential the attempt carries (never its key). */
  credential?: string;
}

/** One traced upstream attempt: the headers to send (with `traceparent`), and how it went. */
export interface UpstreamTrace {
  headers: Record<string, string>;
  answered(status: number): void;
  failed(errorType: string): void;
  end(): void;
}

/** Watches upstream attempts (observability's Telemetry, for tracing); null when it does not trace. */
export interface UpstreamObserver {
  attemptStarted(signal: AbortSignal, attempt: TracedAttempt, headers: Record<string, string>): UpstreamTrace | null;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/**
 * The one HTTP client to every upstream: a keep-alive undici pool per origin.
 * Injected into the executor so tests can substitute it.
 */
export class UpstreamClient {
  private readonly agent: Agent;
  private readonly observer: UpstreamObserver | null;

  constructor(opts: { connectionsPerOrigin?: number | null; observer?: UpstreamObserver } = {}) {
    this.observer = opts.observer ?? null;
    this.agent = new Agent({
      // No cap by default: every open stream holds a connection, and a cap would queue
      // streams behind each other with the client seeing nothing.
      connections: opts.connectionsPerOrigin ?? null,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      // Idle time between body chunks: long, since models may think for minutes between tokens.
      bodyTimeout: 600_000,
    });
  }

  /**
   * Sends the request; resolves when the status and headers have arrived. With tracing on,
   * the attempt gets a client span (ended when its body closes) and the upstream a W3C
   * `traceparent` header.
   */
  send(
    req: UpstreamRequest | UpstreamTaskRequest,
    signal: AbortSignal,
    headersTimeoutMs: number,
    attempt?: TracedAttempt,
  ): Promise<UpstreamResponse> {
    const trace = attempt === undefined || this.observer === null ? null : this.observer.attemptStarted(signal, attempt, req.headers);
    if (trace === null) return this.request(req.url, req.headers, req.body, signal, headersTimeoutMs);
    return this.sendTraced(req, trace, signal, headersTimeoutMs);
  }

  private async sendTraced(
    req: UpstreamRequest | UpstreamTaskRequest,
    trace: UpstreamTrace,
    signal: AbortSignal,
    headersTimeoutMs: number,
  ): Promise<UpstreamResponse> {
    let res: UpstreamResponse;
    try {
      res = await this.request(req.url, trace.headers, req.body, signal, headersTimeoutMs);
    } catch (err) {
      trace.failed((err as { code?: string }).code ?? (err as Error).name ?? 'Error');
      throw err;
    }
    trace.answered(res.status);
    res.body.once('close', () => trace.end());
    return res;
  }

  private async request(
    url: string,
    headers: Record<string, string>,
    body: UpstreamTaskRequest['body'],
    signal: AbortSignal,
    headersTimeoutMs: number,
  ): Promise<UpstreamResponse> {
    const res = await request(url, {
      method: 'POST',
      headers,
      body,
      signal,
      dispatcher: this.agent,
      headersTimeout: headersTimeoutMs,
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
