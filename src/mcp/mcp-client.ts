import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { PrivateAddressError } from '../net/ssrf-guard.ts';
import { guardedFetch, McpAnswerTooLarge, type GuardedFetch } from './guarded-fetch.ts';
import { mcpSdk, type McpSdk } from './mcp-sdk.ts';
import { toolResultText, toolsOf } from './mcp-result.ts';
import { McpCallError, type McpServerSpec, type McpTool, type McpToolResult } from './mcp-types.ts';

export interface McpClientOptions {
  allowPrivateAddresses: boolean;
  /** One exchange (connecting, a list, a call) must answer within this. */
  callTimeoutMs: number;
  /** The most bytes of one answer read. */
  maxResultBytes: number;
  /** The client's name and version in MCP's `initialize`. */
  clientInfo?: { name: string; version: string };
}

/** Pages of a tool list read at most (each bounded in bytes). */
const MAX_LIST_PAGES = 10;

interface Session {
  client: Client;
  /** Aborted when an answer of this session passed the byte bound (the SDK reports that only as text). */
  broken: AbortController;
}

/**
 * Talks to MCP servers through the official SDK's client: MCP's streamable HTTP, or the
 * older HTTP+SSE (`transport: sse`, or `auto` when the server refuses streamable HTTP's
 * POST with a 4xx, remembered per server). Each exchange (a tool list, a call) has its own
 * session, opened with MCP's `initialize` and closed after: a failure, a stall or an answer
 * past the byte bound then ends that exchange alone, never a neighbour's. Every exchange is
 * bounded by `callTimeoutMs` and each answer by `maxResultBytes`; connections go through the
 * SSRF guard. Only the server's own configured headers are sent. The SDK itself is loaded by
 * the first exchange (mcp-sdk.ts).
 */
export class McpClient {
  private readonly opts: McpClientOptions;
  private readonly http: GuardedFetch;
  /** Servers (by key) found to speak only HTTP+SSE under `transport: auto`. */
  private readonly sseOnly = new Set<string>();
  /** Sessions open now (closed by `close()`). */
  private readonly open = new Set<Client>();
  private closed = false;

  constructor(opts: McpClientOptions) {
    this.opts = opts;
    this.http = guardedFetch({
      allowPrivateAddresses: opts.allowPrivateAddresses,
      maxBytes: opts.maxResultBytes,
      connectTimeoutMs: opts.callTimeoutMs,
    });
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
    await Promise.allSettled([...this.open].map((c) => c.close()));
    this.open.clear();
    await this.http.close();
  }

  private async exchange<T>(
    server: McpServerSpec,
    signal: AbortSignal | undefined,
    op: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw new McpCallError(server.name, 'unreachable', 'the gateway is stopping');
    const timeout = this.opts.callTimeoutMs;
    const deadline = AbortSignal.timeout(timeout);
    const broken = new AbortController();
    const signals = [deadline, broken.signal];
    if (signal !== undefined) signals.push(signal);
    const bounded = AbortSignal.any(signals);
    let session: Session | null = null;
    let sdk: McpSdk | null = null;
    try {
      sdk = await mcpSdk();
      session = await this.openSession(sdk, server, sessionKey(server), broken, bounded);
      return await op(session.client, { signal: bounded, timeout });
    } catch (err) {
      throw explain(sdk, server, err, broken.signal, deadline, timeout);
    } finally {
      if (session !== null) {
        this.open.delete(session.client);
        void session.client.close().catch(() => {});
      }
    }
  }

  private async openSession(
    sdk: McpSdk,
    server: McpServerSpec,
    key: string,
    broken: AbortController,
    signal: AbortSignal,
  ): Promise<Session> {
    const useSse = server.transport === 'sse' || this.sseOnly.has(key);
    try {
      return await this.connect(sdk, server, useSse, broken, signal);
    } catch (err) {
      // `auto`: a server that refuses streamable HTTP's POST (404, 405, 400) may speak the older HTTP+SSE.
      if (useSse || server.transport !== 'auto' || !(err instanceof sdk.StreamableHTTPError) || !refusesPost(err.code)) throw err;
      const session = await this.connect(sdk, server, true, broken, signal);
      this.sseOnly.add(key);
      return session;
    }
  }

  private async connect(sdk: McpSdk, server: McpServerSpec, sse: boolean, broken: AbortController, signal: AbortSignal): Promise<Session> {
    const { Client, SSEClientTransport, StreamableHTTPClientTransport } = sdk;
    const fetch = this.http.fetchFor((err) => broken.abort(err));
    const url = new URL(server.url);
    const requestInit = { headers: { ...server.headers } };
    const transport: Transport = sse
      ? new SSEClientTransport(url, { requestInit, fetch })
      : new StreamableHTTPClientTransport(url, {
          requestInit,
          fetch,
          reconnectionOptions: {
            maxRetries: 0,
            initialReconnectionDelay: 1000,
            maxReconnectionDelay: 1000,
            reconnectionDelayGrowFactor: 1,
          },
        });
    const client = new Client(this.opts.clientInfo ?? { name: 'switchyard', version: '1' }, { capabilities: {} });
    // Transport noise (a closed GET stream) is not an error of the exchange: it fails on its own.
    client.onerror = () => {};
    this.open.add(client);
    try {
      await client.connect(transport, { signal, timeout: this.opts.callTimeoutMs });
    } catch (err) {
      this.open.delete(client);
      await client.close().catch(() => {});
      throw err;
    }
    return { client, broken };
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
function explain(
  sdk: McpSdk | null,
  server: McpServerSpec,
  err: unknown,
  broken: AbortSignal | undefined,
  deadline: AbortSignal,
  timeoutMs: number,
): McpCallError {
  if (err instanceof McpCallError) return err;
  const name = server.name;
  const tooLarge: unknown = broken?.aborted === true ? broken.reason : findCause(err, McpAnswerTooLarge);
  if (tooLarge instanceof McpAnswerTooLarge) return new McpCallError(name, 'too_large', tooLarge.message);
  const privateAddress = findCause(err, PrivateAddressError);
  if (privateAddress !== null)
    return new McpCallError(
      name,
      'private_address',
      `the MCP server "${name}" is on a private or loopback address (mcp.allow_private_addresses is off)`,
    );
  if (deadline.aborted || /timed? ?out/i.test(String((err as Error)?.message))) {
    return new McpCallError(name, 'timeout', `the MCP server "${name}" did not answer within ${timeoutMs} ms (mcp.call_timeout_ms)`);
  }
  if (sdk !== null && err instanceof sdk.StreamableHTTPError)
    return new McpCallError(name, 'unreachable', `the MCP server "${name}" answered HTTP ${err.code ?? 'error'}`);
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
