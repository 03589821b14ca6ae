import { isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { bareHost, isPrivateAddress, PrivateAddressError, privateAddressLookup } from '../net/ssrf-guard.ts';

const SETTING = 'mcp.allow_private_addresses';

/** An answer of an MCP server larger than `mcp.max_result_bytes`: its reading was stopped. */
export class McpAnswerTooLarge extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`the MCP server's answer is larger than ${limit} bytes (mcp.max_result_bytes)`);
    this.limit = limit;
  }
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface GuardedFetchOptions {
  allowPrivateAddresses: boolean;
  /** The most bytes read of one answer's body. */
  maxBytes: number;
  connectTimeoutMs: number;
}

export interface GuardedFetch {
  /** A fetch whose answers past the byte bound also call `onTooLarge` (the SDK reports a broken stream only as text). */
  fetchFor(onTooLarge: (err: McpAnswerTooLarge) => void): FetchLike;
  close(): Promise<void>;
}

/**
 * The fetch the MCP SDK's transports use: every connection through the SSRF guard (each
 * address the host resolves to, at connect; an IP literal before), and each answer's body
 * cut at `maxBytes` (the reading fails with McpAnswerTooLarge). Nothing but what the
 * transport sends goes out: no gateway credential is ever added here.
 */
export function guardedFetch(opts: GuardedFetchOptions): GuardedFetch {
  const agent = new Agent({
    connect: { timeout: opts.connectTimeoutMs, ...(opts.allowPrivateAddresses ? {} : { lookup: privateAddressLookup(SETTING) }) },
  });
  const fetchFor =
    (onTooLarge: (err: McpAnswerTooLarge) => void): FetchLike =>
    async (url, init) => {
      const target = typeof url === 'string' ? new URL(url) : url;
      const host = bareHost(target);
      // An IP literal is connected to without a lookup: checked here.
      if (!opts.allowPrivateAddresses && isIP(host) !== 0 && isPrivateAddress(host)) throw new PrivateAddressError(host, host, SETTING);
      const res = await undiciFetch(target, { ...(init as Record<string, unknown>), dispatcher: agent });
      const body = res.body as ReadableStream<Uint8Array> | null;
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > opts.maxBytes) {
        await body?.cancel().catch(() => {});
        const err = new McpAnswerTooLarge(opts.maxBytes);
        onTooLarge(err);
        throw err;
      }
      const bounded = body === null ? null : body.pipeThrough(byteBound(opts.maxBytes, onTooLarge));
      return new Response(bounded, { status: res.status, statusText: res.statusText, headers: res.headers as unknown as Headers });
    };
  return { fetchFor, close: () => agent.close() };
}

function byteBound(limit: number, onTooLarge: (err: McpAnswerTooLarge) => void): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen <= limit) return controller.enqueue(chunk);
      const err = new McpAnswerTooLarge(limit);
      onTooLarge(err);
      controller.error(err);
    },
  });
}
