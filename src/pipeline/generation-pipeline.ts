import { randomFillSync } from 'node:crypto';
import type { AuthContext } from '../auth/authenticate.ts';
import { keyAccess } from '../auth/key-access.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { Usage } from '../canonical/usage.ts';
import { admittedPromptTokens } from '../canonical/estimate-tokens.ts';
import { PromptBound } from '../canonical/prompt-token-bound.ts';
import { addWebSearchCost, computeCost, writeOff, type Cost } from '../billing/compute-cost.ts';
import { countInputImages } from '../billing/worst-case-cost.ts';
import { addTaskUnits } from '../billing/task-cost.ts';
import { storageUnavailable, type SettlementQueue, type SettlementResult } from '../billing/settlement-queue.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CreditHolds } from '../billing/credit-holds.ts';
import { SharedStateUnavailable, sharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import type { RateLimitGate } from '../limits/rate-limit-gate.ts';
import { inFlightRefusal, type InFlightLimiter } from '../limits/in-flight-limiter.ts';
import type { Moderator } from '../moderation/moderator.ts';
import type { Endpoint, PlannedAttempt } from '../catalog/types.ts';
import { byokPlan, type AccountByok } from '../routing/byok-plan.ts';
import { guardRequest, guardrailRefusal } from '../moderation/guardrails.ts';
import type { ModelAccess } from '../catalog/model-access.ts';
import type { AttemptPlanner } from '../routing/plan-attempts.ts';
import { AttemptExecutor, RequestDeadlineError, type AttemptGate, type ExecutionResult, type ExecutionSink } from '../routing/execute-attempts.ts';
import type { StickyLookup, StickyRouting } from '../routing/sticky/sticky-routing.ts';
import { mayUsePromptCache } from '../routing/sticky/prompt-cache-keys.ts';
import { TrackingSink } from './tracking-sink.ts';
import { RecordingSink, type CacheDirective, type CacheProbe, type ResponseCache } from './response-cache/response-cache.ts';
import { replayCachedAnswer } from './response-cache/replay-cached-answer.ts';
import { estimateUsage } from './estimate-usage.ts';
import { ScrubbingSink } from './scrubbing-sink.ts';
import type { FileParser } from './file-parser/file-parser.ts';
import { pdfEngineOf } from './file-parser/file-parser-plugin.ts';
import type { WebSearchDeps } from './web-search/search-backend.ts';
import { mayAskWebSearch, readWebSearchAsk } from './web-search/web-search-ask.ts';
import { planWebSearch, runWebSearch, type PlannedWebSearch, type WebSearchOutcome } from './web-search/gateway-web-search.ts';
import { CitingSink } from './web-search/citing-sink.ts';
import { logSafely, SecretScrubber } from '../providers/http/scrub-secrets.ts';

import type { DialectName } from '../canonical/dialect-name.ts';
import type { SettlementRecord } from '../store/ledger-records.ts';
import type { ToolCallRecord } from '../store/generation-records.ts';
import { silentTelemetry, type Telemetry } from '../observability/telemetry.ts';

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

/**
 * The spine of a model call after decoding: admit (default model, credits), plan,
 * execute, settle. Routes call `admit` then `run`; each dialect brings its own sink.
 */
export class GenerationPipeline {
  private readonly deps: PipelineDeps;
  private readonly now: () => number;

  private readonly scrubber: SecretScrubber;
  private readonly telemetry: Telemetry;

  constructor(deps: PipelineDeps) {
    this.deps = deps;
    this.now = deps.now ?? Date.now;
    this.scrubber = deps.scrubber ?? new SecretScrubber([]);
    this.telemetry = deps.telemetry ?? silentTelemetry();
  }

  /**
   * What can be refused from the key and the announced body size alone, before the body is
   * read or parsed (route-access.ts): a negative balance (402), a body larger than the key's
   * tier takes (413), a daily or account rate limit that refused this key moments ago and has
   * not lifted (429). Null: read the body and admit as usual. Costs no store call.
   */
  refusalBeforeBody(auth: AuthContext, contentLength: number): GatewayError | null {
    const account = auth.account;
    if (account.balanceNanos < 0n) {
      return new GatewayError('insufficient_quota', 'Insufficient credits: the account balance is negative. Add credits to continue.');
    }
    const tier = this.deps.rateLimits.tierOf(account.tier);
    if (tier.maxBodyBytes !== null && contentLength > tier.maxBodyBytes) {
      return new GatewayError('request_too_large', `The request body is larger than the ${tier.name} tier accepts (${tier.maxBodyBytes} bytes).`);
    }
    return this.deps.rateLimits.refusalBeforeBody(auth.key.hash, account.id, this.now());
  }

  /** A refusal made before admission (from the headers): counted per key, reason and minute, and in the metrics. */
  countRefusal(auth: AuthContext, error: GatewayError): void {
    this.deps.settlements.countRefusal(auth.account.id, auth.key.hash, error.code, this.now());
    this.telemetry.refusedBeforeBody(error);
  }

  /**
   * Admission: default model, plan, tier model access, rate limits, credit hold. Every
   * answer from here on names its generation (X-Generation-Id), refusals included (the id
   * the request log names); a refusal leaves no generation record, only a count per key,
   * reason and minute (store/sqlite/refusal-counts.ts). When the shared state (Redis, Postgres)
   * cannot answer, the request is refused with 503 `shared_state_unavailable`: a request
   * is never served without its hold.
   */
  async admit(auth: AuthContext, req: CanonicalRequest, info: RequestInfo): Promise<AdmittedRequest> {
    const startedAt = this.now();
    const generationId = newGenerationId(startedAt);
    const responseHeaders: Record<string, string> = { 'x-generation-id': generationId };
    let leased = false;
    try {
      if (auth.key.isManagement) {
        throw new GatewayError('forbidden', 'A management key manages keys; it cannot call models. Use an API key of the account.');
      }
      if (auth.key.isAdmin) throw new GatewayError('forbidden', 'An admin key is for the admin API; it cannot call models. Use an API key of an account.');
      if (req.models.length === 0) {
        const fallback = auth.account.defaultModel;
        if (fallback === null) {
          throw new GatewayError('missing_parameter', 'Missing required parameter: "model" (this account has no default model).', { param: 'model' });
        }
        req.models.push({ model: fallback });
      }
      // Before the estimate: a PDF sent as its text is held and charged as text.
      const access = keyAccess(auth);
      if (req.inlinePdfs !== undefined || req.extra.plugins !== undefined) await this.readPdfs(req, access);
      // The account's guardrails, before the estimate (a redaction changes the prompt) and any upstream call.
      const guardrails = auth.account.guardrails;
      if (guardrails != null && guardrails.length > 0) {
        const outcome = guardRequest(req, guardrails);
        if (outcome.hits.length > 0) this.telemetry.guardrailsFired(outcome.hits);
        if (outcome.blocked.length > 0) throw guardrailRefusal(outcome.blocked);
      }
      // Read (and a malformed one refused) before anything is counted; decided once the plan is known.
      const searchAsk = this.deps.webSearch !== undefined && mayAskWebSearch(req) ? readWebSearchAsk(req) : null;
      const promptTokens = admittedPromptTokens(req);
      const account = auth.account;
      const subject = { keyHash: auth.key.hash, accountId: account.id, tier: account.tier, limitsOverride: account.limitsOverride };
      // The sticky lookup and the rate limits at once (in a fleet: one Redis round trip, not
      // two): the limits depend on the plan's models, which stickiness does not change.
      const draft = this.deps.planner.draft(req, promptTokens, access);
      const drawn = this.deps.rateLimits.allowedAttempts(subject, draft.finish(null));
      const lookup = this.stickyLookup(account.id, req, promptTokens, draft.stickyApplies);
      // Refused by the limits below, the lookup is not awaited: its failure must not go unhandled.
      lookup.catch(() => {});
      const limits = await this.deps.rateLimits.admit(subject, drawn, startedAt, this.now);
      Object.assign(responseHeaders, limits.headers);
      const sticky = await lookup;
      let plan = sticky?.endpointId == null ? drawn : this.deps.rateLimits.allowedAttempts(subject, draft.finish(sticky.endpointId));
      const maxInFlight = auth.key.maxInFlight;
      if (maxInFlight != null && this.deps.inFlight !== undefined) {
        if (!(await this.deps.inFlight.acquire(auth.key.hash, account.id, maxInFlight, generationId))) throw inFlightRefusal(maxInFlight);
        leased = true;
      }
      // Decided on the plan (does every endpoint search natively?), held with the rest.
      const webSearch = searchAsk === null ? null : planWebSearch(req, searchAsk, plan, this.deps.webSearch!);
      const byok = this.deps.byok?.enabled === true ? await this.deps.byok.forAccount(account.id) : null;
      let heldNanos: bigint;
      if (byok === null) {
        heldNanos = await this.deps.reservations.reserve(generationId, auth, req, plan, new PromptBound(req));
      } else {
        ({ plan, heldNanos } = await this.reserveByok(generationId, auth, req, plan, byok));
      }
      // Nothing goes upstream before the hold's row is on disk (asked now, awaited beside the cache probe).
      const holdRow = heldNanos !== 0n && this.deps.reservations.holdRows ? this.deps.settlements.holdWritten(generationId) : null;
      // Search results change: an answer built on them is not cached.
      const cache = webSearch !== null ? null : ((await this.deps.responseCache?.probe(account.id, req, info.cache)) ?? null);
      if (holdRow !== null) await this.holdDurable(holdRow, generationId, auth, heldNanos);
      if (cache !== null) responseHeaders['x-switchyard-cache'] = cache.hit === null ? 'MISS' : 'HIT';
      return { generationId, created: Math.floor(startedAt / 1000), auth, req, plan, info, startedAt, heldNanos, responseHeaders, modelLimits: limits.models, sticky, cache, webSearch, byok, leased };
    } catch (thrown) {
      if (leased) await this.releaseLease(auth, generationId);
      const err = thrown instanceof SharedStateUnavailable ? sharedStateUnavailable(thrown) : thrown;
      if (!(err instanceof GatewayError)) throw err;
      // Counted per key, reason and minute, never a record of its own: a flood of refusals
      // must not fill the disk (store/sqlite/refusal-counts.ts). The record is for telemetry only.
      this.deps.settlements.countRefusal(auth.account.id, auth.key.hash, err.code, startedAt);
      const record = this.refusalRecord(generationId, auth, req, info, err, startedAt);
      this.telemetry.requestRefused(record, err, { keyLabel: auth.key.label }, info.traceparent ?? null);
      throw withHeaders(err, responseHeaders);
    }
  }

  /**
   * The plan with the account's own keys (routing/byok-plan.ts), held at the BYOK fee. In mode
   * `prefer` the operator's fallbacks are priced in full: when the account cannot pay for
   * them, they are dropped and the account's keys alone carry the request.
   */
  private async reserveByok(id: string, auth: AuthContext, req: CanonicalRequest, drawn: PlannedAttempt[], byok: AccountByok): Promise<{ plan: PlannedAttempt[]; heldNanos: bigint }> {
    const { plan, fallbacks } = byokPlan(drawn, byok);
    if (plan.length === 0) {
      throw new GatewayError('no_provider_available', 'This model is served only by providers set to your own key (BYOK mode "only"), and that key cannot be used now (the gateway\'s operator is rotating its encryption); the gateway\'s own credentials are not used instead.', {
        metadata: { byok: true },
      });
    }
    try {
      return { plan, heldNanos: await this.holdByok(id, auth, req, plan) };
    } catch (err) {
      const own = plan.filter((a) => !fallbacks.has(a));
      if (fallbacks.size === 0 || own.length === 0 || !(err instanceof GatewayError) || err.code !== 'insufficient_quota') throw err;
      return { plan: own, heldNanos: await this.holdByok(id, auth, req, own) };
    }
  }

  /**
   * The hold of a plan with BYOK attempts. A plan carried by the account's own keys alone
   * that can cost nothing (`byok.fee_percent` 0) is not refused for a balance of $0: the
   * operator is owed nothing (a negative balance is refused before the body, as ever).
   */
  private async holdByok(id: string, auth: AuthContext, req: CanonicalRequest, plan: PlannedAttempt[]): Promise<bigint> {
    if (auth.account.balanceNanos >= 0n && plan.every((a) => a.endpoint.provider.byok !== undefined && a.endpoint.compiledPricing.free)) return 0n;
    return this.deps.reservations.reserve(id, auth, req, plan, new PromptBound(req));
  }

  /**
   * The request's inline PDFs become their text when its `file-parser` plugin asks for
   * `pdf-text`, or, without the plugin, when no endpoint of its plan reads PDFs (a plan
   * whose context the PDFs as files overflow counts as one that does not). `native` keeps
   * them as files. Throws the plugin's 400 and the extraction's 400 and 413.
   */
  private async readPdfs(req: CanonicalRequest, access: ModelAccess | null): Promise<void> {
    const files = this.deps.files;
    if (files === undefined) return;
    const engine = pdfEngineOf(req);
    if (req.inlinePdfs === undefined || engine === 'native') return;
    if (engine === 'auto' && this.planReadsPdf(req, files, access)) return;
    await files.replacePdfs(req);
  }

  private planReadsPdf(req: CanonicalRequest, files: FileParser, access: ModelAccess | null): boolean {
    let plan: PlannedAttempt[];
    try {
      plan = this.deps.planner.plan(req, undefined, null, access);
    } catch (err) {
      if (err instanceof GatewayError && err.code === 'context_length_exceeded') return false;
      throw err;
    }
    return plan.some((a) => files.readsPdf(a.endpoint));
  }

  /**
   * Waits for the request's hold row to commit (group commit: one transaction for every
   * request admitted meanwhile). So every request an upstream may bill has a durable row,
   * and a crash (SIGKILL, power loss) leaves it to be recorded as interrupted at the next
   * start. A row that could not be written refuses the request (503, nothing sent), its
   * hold released.
   */
  private async holdDurable(written: Promise<SettlementResult>, id: string, auth: AuthContext, heldNanos: bigint): Promise<void> {
    if ((await written).committed) return;
    this.deps.settlements.forgetHold(id);
    await this.deps.reservations.finish(id, auth.account.id, auth.key.hash, heldNanos, 0n);
    throw storageUnavailable();
  }

  /**
   * The endpoint remembered for this conversation's prompt cache, keyed by the primary model.
   * `find` false (no model of this request's plan has a choice of endpoints left, or each
   * has an explicit order): the keys only, so that the turn is still remembered.
   */
  private async stickyLookup(accountId: string, req: CanonicalRequest, promptTokens: number, find: boolean): Promise<StickyLookup | null> {
    const sticky = this.deps.sticky;
    // Task requests (embeddings, images, audio) have no prompt cache to stick to.
    if (sticky === undefined || req.task !== undefined) return null;
    // Too short for any provider to cache, and not asking for caching: nothing to find or remember.
    if (!mayUsePromptCache(req, promptTokens)) return null;
    const model = this.deps.catalog.resolve(req.models[0]!.model)?.model;
    // Unknown: the planner refuses it. One endpoint: there is no choice to make.
    if (model === undefined || model.endpoints.length < 2) return null;
    return sticky.lookup(accountId, model.id, req, find);
  }

  private refusalRecord(id: string, auth: AuthContext, req: CanonicalRequest, info: RequestInfo, err: GatewayError, startedAt: number): SettlementRecord {
    return {
      id,
      accountId: auth.account.id,
      keyHash: auth.key.hash,
      costNanos: 0n,
      holdRowWritten: false,
      model: req.models[0]?.model ?? null,
      provider: null,
      upstreamModel: null,
      upstreamId: null,
      dialect: info.dialect,
      streamed: req.stream,
      cancelled: false,
      status: 'error',
      errorCode: err.code,
      finishReason: null,
      nativeFinishReason: null,
      tokensPrompt: 0,
      tokensCompletion: 0,
      tokensCacheRead: 0,
      tokensCacheWrite: 0,
      tokensReasoning: 0,
      costBreakdown: null,
      latencyMs: this.now() - startedAt,
      firstTokenMs: null,
      attempts: [],
      httpReferer: info.httpReferer,
      xTitle: info.xTitle,
      endUser: req.user ?? null,
      createdAt: new Date(startedAt).toISOString(),
    };
  }

  /**
   * Moderates (when the plan reaches moderated endpoints), runs the plan into `sink`,
   * then settles and waits until the charge is committed, so the caller writes the
   * answer's last bytes only once its charge is on disk. Never throws for upstream
   * failures: see outcome.execution.error. When the charge cannot be written, the answer
   * is not delivered: the error becomes `storage_unavailable` (the charge stays queued).
   */
  async run(admitted: AdmittedRequest, sink: ExecutionSink, abort: AbortController, client?: ClientPresence): Promise<GenerationOutcome> {
    if (!admitted.leased) return this.runAdmitted(admitted, sink, abort, client);
    try {
      return await this.runAdmitted(admitted, sink, abort, client);
    } finally {
      // Whatever the outcome, before the answer's last bytes: the client's next request finds the slot free.
      admitted.leased = false;
      await this.releaseLease(admitted.auth, admitted.generationId);
    }
  }

  /** Gives a `max_in_flight` lease back; a failure to (a fleet's Redis down) is logged by the limiter, the lease expires. */
  private async releaseLease(auth: AuthContext, generationId: string): Promise<void> {
    try {
      await this.deps.inFlight?.release(auth.key.hash, auth.account.id, generationId);
    } catch (err) {
      logSafely(`a concurrent-request lease could not be released: ${(err as Error).message}`);
    }
  }

  private async runAdmitted(admitted: AdmittedRequest, sink: ExecutionSink, abort: AbortController, client?: ClientPresence): Promise<GenerationOutcome> {
    const timer = setTimeout(abortAtDeadline, this.deps.timeouts.requestMs, abort);
    const signal = abort.signal;
    // The catalog's id of the model asked for (an alias or `:variant` resolved), not the client's text.
    const span = this.telemetry.requestStarted(admitted.plan[0]?.model.id ?? 'unknown', admitted.info.dialect, admitted.startedAt, signal, admitted.info.traceparent ?? null);
    const cache = admitted.cache;
    const hit = cache?.hit ?? null;
    const recorder = cache !== null && hit === null ? new RecordingSink(sink) : null;
    const tracking = new TrackingSink(recorder ?? sink);
    let execution: ExecutionResult = { served: null, attempts: [], error: null, cancelled: false, firstTokenMs: null, upstreamWaitMs: 0 };
    // The account's own keys are secrets too: an upstream's error that repeats one is scrubbed.
    const byok = admitted.byok ?? null;
    const scrubber = byok === null ? this.scrubber : this.scrubber.with(new SecretScrubber(byok.secrets));
    const byokRejected = byok === null ? undefined : (endpoint: Endpoint, status: number) => this.deps.byok?.rejected(byok.accountId, endpoint, status);
    let searched: WebSearchOutcome | null = null;
    try {
      const plan = await this.moderate(admitted, signal);
      let inner: ExecutionSink = tracking;
      if (admitted.webSearch !== null) {
        searched = await runWebSearch(admitted.webSearch, admitted.req, this.deps.webSearch!, signal, this.now());
        inner = new CitingSink(tracking, searched.results, admitted.webSearch.ask.returnCitations, searched.skipped);
      }
      execution = hit !== null
        ? await replayCachedAnswer(hit.attempt, hit.parts, tracking)
        : await this.deps.executor.execute(plan, admitted.req, new ScrubbingSink(inner, scrubber), signal, this.deps.timeouts.attemptMs, admitted.modelLimits, () => client?.left === true, byokRejected);
    } catch (thrown) {
      const err = thrown instanceof SharedStateUnavailable ? sharedStateUnavailable(thrown) : thrown;
      execution.error = err instanceof GatewayError ? err : new GatewayError('internal_error', 'Internal server error');
      if (!(err instanceof GatewayError)) logSafely(`internal error: ${(err as Error)?.stack ?? String(err)}`);
    } finally {
      clearTimeout(timer);
    }
    // Whatever an upstream said goes to the client without our credentials.
    if (execution.error !== null) execution.error = scrubber.error(execution.error);
    const served = execution.served;
    // The client left (streamed or not, before its first byte or after): the upstream was read on for its usage.
    if (client?.left === true) execution.cancelled = true;
    let usage = tracking.usage;
    if (usage === null && served !== null) {
      usage = await estimateUsage(admitted.req, served, tracking);
      // The answer reports the tokens it is charged for, like any upstream usage.
      if (!execution.cancelled) tracking.inner.part({ type: 'usage', usage });
    }
    if (usage !== null && usage.images === undefined) usage.images = countInputImages(admitted.req);
    if (usage !== null && admitted.req.task !== undefined) addTaskUnits(usage, admitted.req.task, tracking.taskResult);
    // A response-cache hit called no upstream: it says nothing of where a prompt cache is.
    if (admitted.sticky !== null && hit === null && served !== null && execution.error === null && !execution.cancelled) {
      this.deps.sticky?.remember(admitted.sticky, served.endpoint.id, usage);
    }
    if (recorder !== null && served !== null && execution.error === null && !execution.cancelled) this.deps.responseCache?.save(cache!, served, recorder.parts);
    let cost = served !== null && usage !== null ? computeCost(usage, served.endpoint.compiledPricing) : null;
    if (hit !== null && cost !== null && this.deps.responseCache !== undefined) cost = this.deps.responseCache.priceHit(cost);
    // A search that ran is charged at the operator's price, whatever became of the answer.
    if (searched !== null && searched.searches > 0) {
      if (usage !== null) usage.webSearchRequests = searched.searches;
      cost = addWebSearchCost(cost, searched.searches, this.deps.webSearch!.priceNanos);
    }
    // The hold is released; beyond it, an answer is charged only what the account and key have room for.
    const { auth, heldNanos } = admitted;
    const charged = await this.deps.reservations.finish(admitted.generationId, auth.account.id, auth.key.hash, heldNanos, cost?.totalNanos ?? 0n);
    if (cost !== null) cost = writeOff(cost, charged);
    const { settled, record } = await this.settle(admitted, execution, tracking, usage, cost);
    if (!settled.committed && execution.error === null && !execution.cancelled) execution.error = storageUnavailable();
    this.telemetry.requestEnded({ record, error: execution.error, party: { keyLabel: admitted.auth.key.label }, span }, true, signal);
    return { execution, usage, cost, served };
  }

  /**
   * Input bound for moderated endpoints is checked first. Flagged input, and input that
   * could not be checked (over the moderation cap, or the moderation upstream failed), may
   * still go to the plan's unmoderated endpoints; when none is left, the request is refused:
   * 403 when flagged, else the reason it could not be checked (413, 502).
   */
  private async moderate(admitted: AdmittedRequest, signal: AbortSignal): Promise<PlannedAttempt[]> {
    const plan = admitted.plan;
    const moderator = this.deps.moderator;
    if (!moderator.enabled || !plan.some((a) => a.endpoint.moderated === true)) return plan;
    const verdict = await moderator.check(admitted.req, signal, admitted.auth.account.id);
    if (verdict.kind === 'clear') return plan;
    const open = plan.filter((a) => a.endpoint.moderated !== true);
    if (open.length > 0) return open;
    if (verdict.kind === 'unchecked') throw verdict.error;
    const first = plan[0]!;
    throw new GatewayError('content_filtered', `The input was flagged by moderation (${verdict.reasons.join(', ')}).`, {
      metadata: {
        reasons: verdict.reasons,
        flagged_input: verdict.flaggedInput,
        provider_name: first.endpoint.provider.id,
        model_slug: first.model.id,
      },
    });
  }

  private async settle(a: AdmittedRequest, ex: ExecutionResult, t: TrackingSink, usage: Usage | null, cost: Cost | null): Promise<{ settled: SettlementResult; record: SettlementRecord }> {
    const served = ex.served;
    const failed = ex.error !== null;
    const costNanos = cost?.totalNanos ?? 0n;
    const record: SettlementRecord = {
      id: a.generationId,
      accountId: a.auth.account.id,
      keyHash: a.auth.key.hash,
      costNanos,
      // Holds kept only in Redis have no row for the settlement to remove (CreditHolds.holdRows).
      holdRowWritten: this.deps.reservations.holdRows && a.heldNanos !== 0n,
      model: (served ?? a.plan[0]!).model.id,
      provider: served?.endpoint.provider.id ?? null,
      upstreamModel: served?.endpoint.upstreamModel ?? null,
      upstreamId: t.upstreamId,
      dialect: a.info.dialect,
      streamed: a.req.stream,
      cancelled: ex.cancelled,
      status: failed || ex.cancelled ? 'error' : 'success',
      errorCode: ex.error?.code ?? null,
      finishReason: t.finish?.unified ?? null,
      nativeFinishReason: t.finish?.raw ?? null,
      tokensPrompt: usage?.input ?? 0,
      tokensCompletion: usage?.output ?? 0,
      tokensCacheRead: usage?.cacheRead ?? 0,
      tokensCacheWrite: usage?.cacheWrite ?? 0,
      tokensReasoning: usage?.reasoning ?? 0,
      costBreakdown: cost?.breakdown ?? null,
      latencyMs: this.now() - a.startedAt,
      firstTokenMs: ex.firstTokenMs,
      attempts: ex.attempts,
      httpReferer: a.info.httpReferer,
      xTitle: a.info.xTitle,
      endUser: a.req.user ?? null,
      createdAt: new Date(a.startedAt).toISOString(),
      cacheHit: a.cache?.hit != null,
      ...(served?.endpoint.provider.byok === undefined ? {} : { byok: true }),
    };
    if (a.info.parentId !== undefined) record.parentId = a.info.parentId;
    if (a.info.toolCalls !== undefined && a.info.toolCalls.length > 0) record.toolCalls = a.info.toolCalls;
    const result = await this.deps.settlements.push(record);
    if (!result.committed && record.status === 'success') {
      // Written later, when the database accepts writes again: the client got no answer.
      record.status = 'error';
      record.errorCode = 'storage_unavailable';
    }
    return { settled: result, record };
  }
}

/** The refusal, carrying the answer's headers (its generation id, the rate-limit state) as well as its own. */
function withHeaders(err: GatewayError, headers: Record<string, string>): GatewayError {
  const opts: ConstructorParameters<typeof GatewayError>[2] = { headers: { ...headers, ...err.headers }, retryable: err.retryable, status: err.status };
  if (err.metadata !== undefined) opts.metadata = err.metadata;
  if (err.param !== undefined) opts.param = err.param;
  if (err.detail !== undefined) opts.detail = err.detail;
  return new GatewayError(err.code, err.message, opts);
}

function abortAtDeadline(abort: AbortController): void {
  abort.abort(new RequestDeadlineError());
}

// Ids draw 10 random bytes from a pool refilled 4 KiB at a time: one system call per
// ~400 requests instead of one each.
const ID_POOL = Buffer.alloc(4096);
let idPoolOffset = ID_POOL.length;

function newGenerationId(now: number): string {
  if (idPoolOffset + 10 > ID_POOL.length) {
    randomFillSync(ID_POOL);
    idPoolOffset = 0;
  }
  const id = ID_POOL.toString('base64url', idPoolOffset, idPoolOffset + 10);
  idPoolOffset += 10;
  return `gen-${Math.floor(now / 1000)}-${id}`;
}
