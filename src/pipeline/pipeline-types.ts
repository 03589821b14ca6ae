import type { AuthContext } from '../auth/authenticate.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Endpoint, PlannedAttempt } from '../catalog/types.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { Usage } from '../canonical/usage.ts';
import type { DialectName } from '../canonical/dialect-name.ts';
import type { Cost } from '../billing/compute-cost.ts';
import type { CreditHolds } from '../billing/credit-holds.ts';
import type { SettlementQueue } from '../billing/settlement-queue.ts';
import type { RateLimitGate } from '../limits/rate-limit-gate.ts';
import type { InFlightLimiter } from '../limits/in-flight-limiter.ts';
import type { Moderator } from '../moderation/moderator.ts';
import type { AccountByok } from '../routing/byok-plan.ts';
import type { AttemptPlanner } from '../routing/plan-attempts.ts';
import type { AttemptExecutor, AttemptGate, ExecutionResult } from '../routing/execute-attempts.ts';
import type { StickyLookup, StickyRouting } from '../routing/sticky/sticky-routing.ts';
import type { SecretScrubber } from '../providers/http/scrub-secrets.ts';
import type { Telemetry } from '../observability/telemetry.ts';
import type { GuardrailHitRecord, ToolCallRecord } from '../store/generation-records.ts';
import type { CacheDirective, CacheProbe, ResponseCache } from './response-cache/response-cache.ts';
import type { FileParser } from './file-parser/file-parser.ts';
import type { WebSearchDeps } from './web-search/search-backend.ts';
import type { PlannedWebSearch } from './web-search/gateway-web-search.ts';

// The pipeline's vocabulary: what the route tells it, what admission hands to the run, what
// the run answers, and the collaborators it is built with (generation-pipeline.ts).

/** What the route knows of the HTTP request, for the generation record. */
export interface RequestInfo {
  dialect: DialectName;
  httpReferer: string | null;
  xTitle: string | null;
  /** The client's `traceparent` header (traces continue the caller's trace). */
  traceparent?: string | null;
  /** The client's response-cache headers (X-Switchyard-Cache, X-Switchyard-Cache-TTL). */
  cache?: CacheDirective;
  /** A later turn of a request that runs MCP tools (server/mcp-loop/): the first turn's generation id. */
  parentId?: string;
  /** The MCP calls whose results this turn is given, for its record. */
  toolCalls?: ToolCallRecord[];
}

/** A request that passed admission: who pays, what to try. */
export interface AdmittedRequest {
  generationId: string;
  created: number;
  auth: AuthContext;
  req: CanonicalRequest;
  plan: PlannedAttempt[];
  info: RequestInfo;
  startedAt: number;
  /** The credit hold taken for it, released at settlement. */
  heldNanos: bigint;
  /** Sent with the answer whatever it is: X-Generation-Id and the X-RateLimit-* headers. */
  responseHeaders: Record<string, string>;
  /** Per-model rate limits: a fallback model is counted (or refused) as its first attempt starts. */
  modelLimits: AttemptGate;
  /** The request's prompt-cache keys and remembered endpoint (sticky routing), or null without sticky routing. */
  sticky: StickyLookup | null;
  /** An eligible request's response-cache key and hit (X-Switchyard-Cache: HIT or MISS), or null. */
  cache: CacheProbe | null;
  /** The web search the gateway runs before the model (docs/tools.md), or null. */
  webSearch: PlannedWebSearch | null;
  /** The account's own provider keys in this plan (docs/byok.md), or null. */
  byok?: AccountByok | null;
  /** It holds a lease of its key's `max_in_flight` (given back when it has run: `run`). */
  leased: boolean;
  /** The account's guardrail rules that fired on it (redactions: a block refuses), for its record; empty: none. */
  guardrails: GuardrailHitRecord[];
}

/** Accounts' own provider keys, as the pipeline uses them (auth/byok-keys.ts). */
export interface ByokSource {
  /** False without a master key: nothing to look up, the request path skips it. */
  readonly enabled: boolean;
  /** The account's keys, decrypted, or null when it has none (cached briefly). */
  forAccount(accountId: string): Promise<AccountByok | null>;
  /** The upstream refused the account's key (401/403): recorded, alerted. Never throws. */
  rejected(accountId: string, endpoint: Endpoint, status: number): void;
}

/** Whether the client went away before its answer was complete (the route knows). */
export interface ClientPresence {
  readonly left: boolean;
}

export interface GenerationOutcome {
  execution: ExecutionResult;
  usage: Usage | null;
  cost: Cost | null;
  /** The attempt that served the answer (also after a mid-stream failure), or null. */
  served: PlannedAttempt | null;
}

export interface PipelineDeps {
  catalog: Catalog;
  planner: AttemptPlanner;
  executor: AttemptExecutor;
  settlements: SettlementQueue;
  /** Credit holds: in process (SQLite) or shared by a fleet (Redis). */
  reservations: CreditHolds;
  rateLimits: RateLimitGate;
  /** Keys' caps on concurrent requests (default: none enforced). */
  inFlight?: InFlightLimiter;
  moderator: Moderator;
  /** Sticky routing for prompt caches (default: none). */
  sticky?: StickyRouting;
  /** Opt-in response caching (default: none). */
  responseCache?: ResponseCache;
  /** Scrubs upstream credentials from errors before they reach the client (default: credential shapes only). */
  scrubber?: SecretScrubber;
  timeouts: { attemptMs: number; requestMs: number };
  /** Metrics, request log and traces (default: observes nothing). */
  telemetry?: Telemetry;
  /** PDFs for every model: their text where no endpoint reads them (default: PDFs go as files, as sent). */
  files?: FileParser;
  /** The operator's web search backend (`search:`); absent: search fields go to providers that search natively, as sent. */
  webSearch?: WebSearchDeps;
  /** Accounts' own provider keys (default: none). */
  byok?: ByokSource;
  now?: () => number;
}

/** PipelineDeps with its defaults filled in: what the pipeline's parts are given. */
export interface PipelineParts extends PipelineDeps {
  now: () => number;
  scrubber: SecretScrubber;
  telemetry: Telemetry;
}
