import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import type { SearchConfig } from '../../config/parse-search.ts';
import { SearchBackendError, type SearchBackend, type SearchQuery, type SearchResult } from '../../pipeline/web-search/search-backend.ts';
import { bareHost, guardedLookup, isPrivateAddress } from '../../net/ssrf-guard.ts';
import { readResults, wireRequest } from './search-wire-formats.ts';

// The operator's search backend over HTTP: the kind's wire format (search-wire-formats.ts),
// one undici agent whose DNS lookup refuses private, loopback and link-local addresses
// unless `search.allow_private_addresses` (the webhooks' SSRF guard), redirects not
// followed, the whole exchange bounded by `search.timeout_ms` and the answer by 2 MiB.
// Errors say what failed in words that name neither the host nor the key.

const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

export class HttpSearchBackend implements SearchBackend {
  readonly kind: string;
  private readonly config: SearchConfig;
  private readonly agent: Agent;

  constructor(config: SearchConfig) {
    this.kind = config.kind;
    this.config = config;
    this.agent = new Agent({
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
      connect: { timeout: config.timeoutMs, ...(config.allowPrivateAddresses ? {} : { lookup: guardedLookup }) },
    });
  }

  async search(query: SearchQuery, signal: AbortSignal): Promise<SearchResult[]> {
    const c = this.config;
    const wire = wireRequest(c.kind, query, c.key);
    const url = new URL(c.url + wire.path);
    const host = bareHost(url);
    // An IP literal is connected to without a lookup: checked here.
    if (!c.allowPrivateAddresses && isIP(host) !== 0 && isPrivateAddress(host)) throw privateAddress();
    let text: string;
    let status: number;
    try {
      const res = await request(url, {
        method: wire.method,
        headers: { 'user-agent': 'switchyard-web-search', ...wire.headers },
        ...(wire.body === undefined ? {} : { body: wire.body }),
        dispatcher: this.agent,
        signal: AbortSignal.any([signal, AbortSignal.timeout(c.timeoutMs)]),
      });
      status = res.statusCode;
      if (status < 200 || status >= 300) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
        throw new SearchBackendError(`HTTP ${status}`);
      }
      text = await readBounded(res.body);
    } catch (err) {
      if (err instanceof SearchBackendError || signal.aborted) throw err;
      throw new SearchBackendError(reasonOf(err));
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new SearchBackendError('the answer is not JSON');
    }
    const results = readResults(c.kind, answer);
    if (results === null) throw new SearchBackendError(`the answer is not in ${c.kind}'s shape`);
    return results;
  }
}

async function readBounded(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) throw new SearchBackendError('the answer is larger than 2 MiB');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function privateAddress(): SearchBackendError {
  return new SearchBackendError('the backend is at a private or loopback address (search.allow_private_addresses is off)');
}

function reasonOf(err: unknown): string {
  const e = err as Error & { code?: string; cause?: Error & { code?: string } };
  const code = e.cause?.code ?? e.code;
  if (code === 'EPRIVATEADDRESS') return privateAddress().reason;
  if (
    e.name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return 'timed out';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'DNS lookup failed';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  return 'network error';
}
