// The search backend the gateway runs web searches through (`search:` in the config,
// docs/tools.md): an interface here, its HTTP implementation (the four kinds' wire formats,
// the SSRF guard, the timeout) in server/web-search/.

export interface SearchQuery {
  /** What to search for: the conversation's last user text. */
  q: string;
  maxResults: number;
  /** ISO 8601 dates (`search_parameters.from_date` / `to_date`), passed to backends that filter on them. */
  fromDate?: string;
  toDate?: string;
  includeDomains?: string[];
  excludeDomains?: string[];
}

export interface SearchResult {
  url: string;
  title: string;
  content: string;
}

export interface SearchBackend {
  /** `searxng`, `brave`, `tavily`, `exa`: named in errors. */
  readonly kind: string;
  /** Throws SearchBackendError when the backend fails, answers an error or something unreadable, or times out. */
  search(query: SearchQuery, signal: AbortSignal): Promise<SearchResult[]>;
}

/** A backend failure, in words that name nothing of the operator's network (no host, no key). */
export class SearchBackendError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`web search failed: ${reason}`);
    this.reason = reason;
  }
}

/** What the pipeline needs of web search: the backend, its price and defaults (server/services.ts builds it). */
export interface WebSearchDeps {
  backend: SearchBackend;
  /** nano-USD per search, charged to the caller. */
  priceNanos: bigint;
  /** Results a request gets when it names no number. */
  defaultResults: number;
}
