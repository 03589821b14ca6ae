import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A web search backend on loopback that speaks each kind's wire format (SearXNG's
// `GET /search?format=json`, Brave's `GET /res/v1/web/search` with X-Subscription-Token,
// Tavily's and Exa's `POST /search`), records what it was sent, and can be made to fail.

export type FakeSearchKind = 'searxng' | 'brave' | 'tavily' | 'exa';

export interface FakeSearchRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FakeResult {
  url: string;
  title: string;
  content: string;
}

export interface FakeSearchBackend {
  url: string;
  readonly requests: FakeSearchRequest[];
  /** What the next searches answer (default: two results). */
  results: FakeResult[];
  /** Answer this HTTP status instead of results. */
  failWith: number | null;
  /** Never answer (until the connection is closed). */
  hang: boolean;
  reset(): void;
  close(): Promise<void>;
}

export const DEFAULT_RESULTS: FakeResult[] = [
  { url: 'https://example.com/switchyard', title: 'Switchyard gateway', content: 'Switchyard is a self-hosted model gateway.' },
  {
    url: 'https://docs.example.org/search',
    title: 'Web <strong>search</strong> docs',
    content: 'The gateway runs <strong>web search</strong> for every model.',
  },
];

export async function startFakeSearchBackend(kind: FakeSearchKind): Promise<FakeSearchBackend> {
  const state = {
    requests: [] as FakeSearchRequest[],
    results: DEFAULT_RESULTS,
    failWith: null as number | null,
    hang: false,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      state.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      });
      if (state.hang) return;
      if (state.failWith !== null) {
        res.writeHead(state.failWith, { 'content-type': 'application/json' }).end('{"error":"backend down"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(kind, state.results)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get results() {
      return state.results;
    },
    set results(r: FakeResult[]) {
      state.results = r;
    },
    get failWith() {
      return state.failWith;
    },
    set failWith(s: number | null) {
      state.failWith = s;
    },
    get hang() {
      return state.hang;
    },
    set hang(h: boolean) {
      state.hang = h;
    },
    reset() {
      state.requests.length = 0;
      state.results = DEFAULT_RESULTS;
      state.failWith = null;
      state.hang = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(kind: FakeSearchKind, results: FakeResult[]): unknown {
  switch (kind) {
    case 'searxng':
      return {
        query: 'q',
        number_of_results: results.length,
        results: results.map((r) => ({ url: r.url, title: r.title, content: r.content, engine: 'fake', score: 1 })),
      };
    case 'brave':
      return {
        type: 'search',
        web: {
          type: 'search',
          results: results.map((r) => ({ url: r.url, title: r.title, description: r.content, type: 'search_result' })),
        },
      };
    case 'tavily':
      return {
        query: 'q',
        results: results.map((r) => ({ url: r.url, title: r.title, content: r.content, score: 0.9 })),
        response_time: 0.1,
      };
    case 'exa':
      return {
        requestId: 'r1',
        results: results.map((r) => ({ id: r.url, url: r.url, title: r.title, text: r.content, publishedDate: '2026-01-01' })),
      };
  }
}
