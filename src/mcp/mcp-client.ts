import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { PrivateAddressError } from '../net/ssrf-guard.ts';
import { guardedFetch, McpAnswerTooLarge, type GuardedFetch } from './guarded-fetch.ts';
import { toolResultText, toolsOf } from './mcp-result.ts';
import { McpCallError, type McpServerSpec, type McpTool, type McpToolResult } from './mcp-types.ts';

export interface McpClientOptions {
  allowPrivateAddresses: boolean;
  /** One exchange (connecting, a list, a call) must answer within this. */
  callTimeoutMs: number;
  /** The most bytes of one answer read. */
  maxResultBytes: number;
  /** A pooled session unused this long is closed (default 60 s). */
  idleMs?: number;
  /** The client's name and version in MCP's `initialize`. */
  clientInfo?: { name: string; version: string };
}

/** Pages of a tool list read at most (each bounded in bytes). */
const MAX_LIST_PAGES = 10;

interface Session {
  client: Client;
  /** Aborted when an answer of this session passed the byte bound (the SDK reports that only as text). */
  broken: AbortController;
  idle: NodeJS.Timeout | null;
  /** Operations in flight. */
  busy: number;
  /** One session per operation (HTTP+SSE: one GET stream carries every answer, the byte bound would add them up). */
  pooled: boolean;
}

/**
 * Talks to MCP servers through the official SDK's client: MCP's streamable HTTP, or the
 * older HTTP+SSE (`transport: sse`, or `auto` when the server refuses streamable HTTP's
 * POST with a 4xx). Streamable HTTP sessions are pooled per server (URL and headers) and
 * closed after a while unused, or at once after a failure. Every exchange is bounded by
 * `callTimeoutMs` and each answer by `maxResultBytes`; connections go through the SSRF guard.
 * Only the server's own configured headers are sent.
 */
export class McpClient {
  private readonly opts: McpClientOptions;
  private readonly http: GuardedFetch;
  private readonly sessions = new Map<string, Promise<Session>>();
  /** Each pooled session once open (set before anyone awaiting the promise gets it): lets `drop` forget it synchronously. */
  private readonly opened = new WeakMap<Promise<Session>, Session>();
  /** Servers (by key) found to speak only HTTP+SSE under `transport: auto`. */
  private readonly sseOnly = new Set<string>();
  private closed = false;

  constructor(opts: McpClientOptions) {
    this.opts = opts;
    this.http = guardedFetch({ allowPrivateAddresses: opts.allowPrivateAddresses, maxBytes: opts.maxResultBytes, connectTimeoutMs: opts.callTimeoutMs });
  }

  /** Every tool the server lists (all pages, up to 10), unfiltered. */
  listTools(server: McpServerSpec, signal?: AbortSignal): Promise<McpTool[]> {
    return this.exchange(server, signal, async (client, options) => {
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const listed = await client.listTools(cursor === undefined ? {} : { cursor }, options);
        tools.push(...toolsOf(listed.tools));
        cursor = listed.nextCursor;
        if (cursor === undefined) break;
      }
      return tools;
    });
  }

  /** Calls one tool; a tool that reports failure (`isError`) is a result, a failed exchange throws McpCallError. */
  callTool(server: McpServerSpec, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpToolResult> {
    return this.exchange(server, signal, async (client, options) => {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, options);
      return toolResultText(result, this.opts.maxResultBytes);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(open.map(async (s) => (await s).client.close()));
    await this.http.close();
  }

  private async exchange<T>(server: McpServerSpec, signal: AbortSignal | undefined, op: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>): Promise<T> {
    if (this.closed) throw new McpCallError(server.name, 'unreachable', 'the gateway is stopping');
    const timeout = this.opts.callTimeoutMs;
    const deadline = AbortSignal.timeout(timeout);
    const key = sessionKey(server);
    let session: Session | null = null;
    try {
      session = await this.session(server, key, signal === undefined ? deadline : AbortSignal.any([deadline, signal]));
      session.busy++;
      if (session.idle !== null) clearTimeout(session.idle);
      const signals = [deadline, session.broken.signal];
      if (signal !== undefined) signals.push(signal);
      return await op(session.client, { signal: AbortSignal.any(signals), timeout });
    } catch (err) {
      if (session !== null) this.drop(key, session);
      throw explain(server, err, session?.broken.signal, deadline, timeout);
    } finally {
      if (session !== null) this.release(key, session);
    }
  }

  private session(server: McpServerSpec, key: string, signal: AbortSignal): Promise<Session> {
    const pooled = this.sessions.get(key);
    if (pooled !== undefined) return pooled;
    const opening = this.open(server, key, signal);
    if (server.transport !== 'sse' && !this.sseOnly.has(key)) {
      this.sessions.set(key, opening);
      opening.then((s) => {
        if (s.pooled) this.opened.set(opening, s);
        else if (this.sessions.get(key) === opening) this.sessions.delete(key);
      }, () => {
        if (this.sessions.get(key) === opening) this.sessions.delete(key);
      });
    }
    return opening;
  }

  private async open(server: McpServerSpec, key: string, signal: AbortSignal): Promise<Session> {
    const useSse = server.transport === 'sse' || this.sseOnly.has(key);
    try {
      return await this.connect(server, useSse, signal);
    } catch (err) {
      // `auto`: a server that refuses streamable HTTP's POST (404, 405, 400) may speak the older HTTP+SSE.
      if (useSse || server.transport !== 'auto' || !(err instanceof StreamableHTTPError) || !refusesPost(err.code)) throw err;
      const session = await this.connect(server, true, signal);
      this.sseOnly.add(key);
      return session;
    }
  }

  private async connect(server: McpServerSpec, sse: boolean, signal: AbortSignal): Promise<Session> {
    const broken = new AbortController();
    const fetch = this.http.fetchFor((err) => broken.abort(err));
    const url = new URL(server.url);
    const requestInit = { headers: { ...server.headers } };
    const transport: Transport = sse
      ? new SSEClientTransport(url, { requestInit, fetch })
      : new StreamableHTTPClientTransport(url, { requestInit, fetch, reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 } });
    const client = new Client(this.opts.clientInfo ?? { name: 'switchyard', version: '1' }, { capabilities: {} });
    // Transport noise (a closed GET stream) is not an error of any call: calls fail on their own.
    client.onerror = () => {};
    try {
      await client.connect(transport, { signal: AbortSignal.any([signal, broken.signal]), timeout: this.opts.callTimeoutMs });
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
    return { client, broken, idle: null, busy: 0, pooled: !sse };
  }

  private release(key: string, session: Session): void {
    session.busy--;
    if (session.busy > 0) return;
    if (!session.pooled) {
      void session.client.close().catch(() => {});
      return;
    }
    session.idle = setTimeout(() => this.drop(key, session), this.opts.idleMs ?? 60_000);
    session.idle.unref();
  }

  /** A session that failed, or sat unused, is forgotten and closed once its last exchange ends; the next exchange opens a new one. */
  private drop(key: string, session: Session): void {
    const entry = this.sessions.get(key);
    if (entry !== undefined && this.opened.get(entry) === session) this.sessions.delete(key);
    if (session.idle !== null) clearTimeout(session.idle);
    session.idle = null;
    session.pooled = false;
    if (session.busy === 0) void session.client.close().catch(() => {});
  }
}

function refusesPost(code: number | undefined): boolean {
  return code === 400 || code === 404 || code === 405;
}

/** Servers differ by URL, transport and headers (an account's server may share a URL with another credential). */
function sessionKey(server: McpServerSpec): string {
  return JSON.stringify([server.url, server.transport, server.headers]);
}

/** A failure as a reason and a message that names no header and no secret. */
function explain(server: McpServerSpec, err: unknown, broken: AbortSignal | undefined, deadline: AbortSignal, timeoutMs: number): McpCallError {
  if (err instanceof McpCallError) return err;
  const name = server.name;
  const tooLarge = broken?.aborted === true ? broken.reason : findCause(err, McpAnswerTooLarge);
  if (tooLarge instanceof McpAnswerTooLarge) return new McpCallError(name, 'too_large', tooLarge.message);
  const privateAddress = findCause(err, PrivateAddressError);
  if (privateAddress !== null) return new McpCallError(name, 'private_address', `the MCP server "${name}" is on a private or loopback address (mcp.allow_private_addresses is off)`);
  if (deadline.aborted || /timed? ?out/i.test(String((err as Error)?.message))) {
    return new McpCallError(name, 'timeout', `the MCP server "${name}" did not answer within ${timeoutMs} ms (mcp.call_timeout_ms)`);
  }
  if (err instanceof StreamableHTTPError) return new McpCallError(name, 'unreachable', `the MCP server "${name}" answered HTTP ${err.code ?? 'error'}`);
  const code = (findCode(err) ?? '').toString();
  if (code !== '') return new McpCallError(name, 'unreachable', `the MCP server "${name}" could not be reached (${code})`);
  return new McpCallError(name, 'protocol', `the MCP server "${name}" failed: ${oneLine((err as Error)?.message ?? String(err))}`);
}

function findCause<T extends Error>(err: unknown, type: new (...args: never[]) => T): T | null {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof type) return e;
  }
  return null;
}

function findCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  }
  return null;
}

function oneLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}
