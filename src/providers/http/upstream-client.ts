import { Agent, request, type Dispatcher } from 'undici';
import type { UpstreamRequest } from '../types.ts';

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

  constructor(opts: { connectionsPerOrigin?: number | null } = {}) {
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

  /** Sends the request; resolves when the status and headers have arrived. */
  async send(req: UpstreamRequest, signal: AbortSignal, headersTimeoutMs: number): Promise<UpstreamResponse> {
    const res = await request(req.url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
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
