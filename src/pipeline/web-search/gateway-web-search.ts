import type { CanonicalRequest } from '../../canonical/request.ts';
import type { PlannedAttempt } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { RequestDeadlineError } from '../../routing/execute-attempts.ts';
import { SearchBackendError, type SearchQuery, type SearchResult, type WebSearchDeps } from './search-backend.ts';
import { clipResults, injectResults, resultsTokenBound, searchQueryOf } from './search-results-message.ts';
import { passNative, stripWebSearchFields, type WebSearchAsk } from './web-search-ask.ts';
import { searchesNatively } from './native-search.ts';

// Web search for every model (docs/tools.md, "Web search"). At admission (the request's
// ask read by web-search-ask.ts), `planWebSearch`
// decides who searches: the provider, when every endpoint of the plan searches natively
// (or the request says `engine: "native"`): the fields go to it as before; else the
// gateway, through the operator's backend: the fields are removed from what providers are
// sent, and the hold covers the search's price and the prompt tokens its results may add.
// Before the model is called, `runWebSearch` searches and puts the results in the prompt.

/** A search the gateway runs for an admitted request. */
export interface PlannedWebSearch {
  ask: WebSearchAsk;
  maxResults: number;
  /** The last user text; null: nothing to search for (no search, no charge). */
  query: string | null;
}

/** What the search gave: how many searches to charge, the results the model was given, or why it was skipped. */
export interface WebSearchOutcome {
  searches: number;
  results: SearchResult[];
  skipped?: string;
}

export function planWebSearch(
  req: CanonicalRequest,
  ask: WebSearchAsk,
  plan: readonly PlannedAttempt[],
  deps: WebSearchDeps,
): PlannedWebSearch | null {
  if (ask.engine === 'native' || (ask.engine === 'auto' && isNativeOnPlan(req, plan, ask))) {
    passNative(req, ask);
    return null;
  }
  stripWebSearchFields(req);
  const maxResults = ask.maxResults ?? deps.defaultResults;
  req.webSearch = { priceNanos: deps.priceNanos, promptTokens: resultsTokenBound(maxResults, ask.searchPrompt) };
  return { ask, maxResults, query: searchQueryOf(req) };
}

function isNativeOnPlan(req: CanonicalRequest, plan: readonly PlannedAttempt[], ask: WebSearchAsk): boolean {
  const field = ask.field;
  if (field === null || plan.length === 0) return false;
  const value = req.extra[field] ?? [{ id: 'web' }];
  return plan.every((a) => searchesNatively(a.endpoint, field, value));
}

/**
 * Runs the search and puts its results before the last user message. A failing backend is
 * 502 `search_failed`, or, when the request said `on_error: "continue"`, no search (not
 * charged) and the reason in the answer. An abort (deadline, client gone) is rethrown.
 */
export async function runWebSearch(
  planned: PlannedWebSearch,
  req: CanonicalRequest,
  deps: WebSearchDeps,
  signal: AbortSignal,
  now: number,
): Promise<WebSearchOutcome> {
  if (planned.query === null) return { searches: 0, results: [], skipped: 'the conversation has no user text to search for' };
  const ask = planned.ask;
  const query: SearchQuery = { q: planned.query, maxResults: planned.maxResults };
  if (ask.fromDate !== undefined) query.fromDate = ask.fromDate;
  if (ask.toDate !== undefined) query.toDate = ask.toDate;
  if (ask.includeDomains !== undefined) query.includeDomains = ask.includeDomains;
  if (ask.excludeDomains !== undefined) query.excludeDomains = ask.excludeDomains;
  let results: SearchResult[];
  try {
    results = clipResults(await deps.backend.search(query, signal), planned.maxResults);
  } catch (err) {
    if (signal.aborted) throw abortedSearch(signal, deps.backend.kind);
    if (!(err instanceof SearchBackendError)) throw err;
    if (ask.continueOnError) return { searches: 0, results: [], skipped: `the web search failed (${err.reason})` };
    throw new GatewayError(
      'search_failed',
      `The web search failed (${deps.backend.kind}: ${err.reason}). Send "on_error": "continue" with the search options to be answered without search instead.`,
      {
        metadata: { backend: deps.backend.kind, reason: err.reason },
      },
    );
  }
  injectResults(req, results, ask.searchPrompt, now);
  return { searches: 1, results };
}

/** The request's deadline passed during the search (408, as an upstream that took too long), or its client left. */
function abortedSearch(signal: AbortSignal, kind: string): GatewayError {
  if (signal.reason instanceof RequestDeadlineError)
    return new GatewayError('timeout', 'The request exceeded its time limit (during its web search).');
  return new GatewayError('search_failed', 'The web search was cancelled: the client left.', {
    metadata: { backend: kind, reason: 'cancelled' },
  });
}
