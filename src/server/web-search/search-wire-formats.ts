import type { SearchKind } from '../../config/parse-search.ts';
import type { SearchQuery, SearchResult } from '../../pipeline/web-search/search-backend.ts';

// Each search backend's own wire format (docs/tools.md, "Web search"):
// - SearXNG: `GET {url}/search?q=…&format=json` (the instance must enable the json format)
//   → `{results: [{url, title, content}]}`; a `key` goes as a bearer token (a proxy in front);
// - Brave: `GET {url}/res/v1/web/search?q=…&count=…` with `X-Subscription-Token`
//   → `{web: {results: [{url, title, description}]}}` (descriptions hold <strong> marks);
// - Tavily: `POST {url}/search` `{query, max_results, include_domains, exclude_domains,
//   start_date, end_date}` with `Authorization: Bearer` → `{results: [{url, title, content}]}`;
// - Exa: `POST {url}/search` `{query, numResults, includeDomains, excludeDomains,
//   startPublishedDate, endPublishedDate, contents: {text: {maxCharacters}}}` with
//   `x-api-key` → `{results: [{url, title, text}]}`.

export interface WireRequest {
  method: 'GET' | 'POST';
  /** Path and query, appended to the configured URL. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const BRAVE_MAX = 20;
const TAVILY_MAX = 20;
const EXA_TEXT_CHARS = 1_500;

export function wireRequest(kind: SearchKind, q: SearchQuery, key: string | undefined): WireRequest {
  switch (kind) {
    case 'searxng': {
      const params = new URLSearchParams({ q: q.q, format: 'json', pageno: '1' });
      return {
        method: 'GET',
        path: `/search?${params.toString()}`,
        headers: { accept: 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
      };
    }
    case 'brave': {
      const params = new URLSearchParams({ q: q.q, count: String(Math.min(q.maxResults, BRAVE_MAX)) });
      if (q.fromDate !== undefined) params.set('freshness', `${q.fromDate}to${q.toDate ?? new Date().toISOString().slice(0, 10)}`);
      return {
        method: 'GET',
        path: `/res/v1/web/search?${params.toString()}`,
        headers: { accept: 'application/json', 'x-subscription-token': key ?? '' },
      };
    }
    case 'tavily': {
      const body: Record<string, unknown> = { query: q.q, max_results: Math.min(q.maxResults, TAVILY_MAX) };
      if (q.includeDomains !== undefined) body.include_domains = q.includeDomains;
      if (q.excludeDomains !== undefined) body.exclude_domains = q.excludeDomains;
      if (q.fromDate !== undefined) body.start_date = q.fromDate;
      if (q.toDate !== undefined) body.end_date = q.toDate;
      return {
        method: 'POST',
        path: '/search',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key ?? ''}` },
        body: JSON.stringify(body),
      };
    }
    case 'exa': {
      const body: Record<string, unknown> = { query: q.q, numResults: q.maxResults, contents: { text: { maxCharacters: EXA_TEXT_CHARS } } };
      if (q.includeDomains !== undefined) body.includeDomains = q.includeDomains;
      if (q.excludeDomains !== undefined) body.excludeDomains = q.excludeDomains;
      if (q.fromDate !== undefined) body.startPublishedDate = q.fromDate;
      if (q.toDate !== undefined) body.endPublishedDate = q.toDate;
      return {
        method: 'POST',
        path: '/search',
        headers: { 'content-type': 'application/json', 'x-api-key': key ?? '' },
        body: JSON.stringify(body),
      };
    }
  }
}

/** The results of a backend's answer, or null when it is not in the kind's shape. */
export function readResults(kind: SearchKind, answer: unknown): SearchResult[] | null {
  if (answer === null || typeof answer !== 'object') return null;
  const a = answer as Record<string, unknown>;
  const list = kind === 'brave' ? ((a.web as Record<string, unknown> | undefined)?.results ?? []) : a.results;
  if (!Array.isArray(list)) return null;
  const text = kind === 'brave' ? 'description' : kind === 'exa' ? 'text' : 'content';
  const out: SearchResult[] = [];
  for (const item of list as Array<Record<string, unknown> | null>) {
    if (item === null || typeof item !== 'object' || typeof item.url !== 'string') continue;
    const title = typeof item.title === 'string' ? item.title : item.url;
    const content = typeof item[text] === 'string' ? item[text] : '';
    out.push({ url: item.url, title: stripTags(title), content: stripTags(content) });
  }
  return out;
}

/** Brave and SearXNG mark the query's words with HTML (`<strong>`): the model reads text. */
function stripTags(text: string): string {
  return text.includes('<') ? text.replace(/<\/?[a-z][^<>]*>/gi, '') : text;
}
