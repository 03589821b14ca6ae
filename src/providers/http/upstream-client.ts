import type { Span } from '@opentelemetry/api';
import { Agent, request, type Dispatcher } from 'undici';
import type { UpstreamRequest } from '../types.ts';
import { GatewayTracing, type TracedAttempt } from '../../observability/gateway-tracing.ts';
import type { Telemetry } from '../../observability/telemetry.ts';

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
  private readonly telemetry: Telemetry | null;

  constructor(opts: { connectionsPerOrigin?: number | null; telemetry?: Telemetry } = {}) {
    this.telemetry = opts.telemetry ?? null;
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
  send(req: UpstreamRequest, signal: AbortSignal, headersTimeoutMs: number, attempt?: TracedAttempt): Promise<UpstreamResponse> {
    const traced = attempt === undefined || this.telemetry === null ? null : this.telemetry.attemptStarted(signal, attempt, req.headers);
    if (traced === null) return this.request(req.url, req.headers, req.body, signal, headersTimeoutMs);
    return this.sendTraced(req, traced.span, traced.headers, signal, headersTimeoutMs);
  }

  private async sendTraced(req: UpstreamRequest, span: Span, headers: Record<string, string>, signal: AbortSignal, headersTimeoutMs: number): Promise<UpstreamResponse> {
    let res: UpstreamResponse;
    try {
      res = await this.request(req.url, headers, req.body, signal, headersTimeoutMs);
    } catch (err) {
      GatewayTracing.attemptFailed(span, (err as { code?: string }).code ?? (err as Error).name ?? 'Error');
      throw err;
    }
    GatewayTracing.attemptAnswered(span, res.status);
    res.body.once('close', () => span.end());
    return res;
  }

  private async request(url: string, headers: Record<string, string>, body: UpstreamRequest['body'], signal: AbortSignal, headersTimeoutMs: number): Promise<UpstreamResponse> {
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
