import type { AuthContext } from '../auth/authenticate.ts';
import { keyAccess } from '../auth/key-access.ts';
import { admittedPromptTokens } from '../canonical/estimate-tokens.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { SharedStateUnavailable, sharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import type { GuardrailHitRecord } from '../store/generation-records.ts';
import { applyGuardrails } from './apply-guardrails.ts';
import { holdCredits, holdNotWritten } from './credit-hold.ts';
import { newGenerationId } from './generation-id.ts';
import { buildGenerationRecord } from './generation-record.ts';
import { acquireLease, releaseLease } from './in-flight-lease.ts';
import { readInlinePdfs } from './inline-pdfs.ts';
import type { AdmittedRequest, PipelineParts, RequestInfo } from './pipeline-types.ts';
import { withHeaders } from './refusal-headers.ts';
import { stickyLookup } from './sticky-lookup.ts';
import { mayAskWebSearch, readWebSearchAsk } from './web-search/web-search-ask.ts';
import { planWebSearch } from './web-search/gateway-web-search.ts';

/**
 * Admission, in this order: the caller may call models (not a management or admin key), a
 * default model, inline PDFs read, the account's guardrails (403; a redaction rewrites the
 * prompt), the plan within the key's allowlist (400 `model_not_found`), the rate limits
 * (429) with the sticky lookup beside them, the key's `max_in_flight` (429), the credit hold
 * (402; BYOK plans at their fee) and its durable row (unless the in-flight journal defers
 * it: docs/billing.md), the response-cache probe. Nothing goes
 * upstream before all of it passed. Every answer from here on names its generation
 * (X-Generation-Id), refusals included; a refusal leaves no generation record, only a count
 * per key, reason and minute (store/refusal-counts.ts), and its record goes to telemetry.
 * When the shared state (Redis, Postgres) cannot answer, the request is refused with 503
 * `shared_state_unavailable`: a request is never served without its hold.
 */
export async function admitRequest(
  deps: PipelineParts,
  auth: AuthContext,
  req: CanonicalRequest,
  info: RequestInfo,
): Promise<AdmittedRequest> {
  const startedAt = deps.now();
  const generationId = newGenerationId(startedAt);
  const responseHeaders: Record<string, string> = { 'x-generation-id': generationId };
  const guardrails: GuardrailHitRecord[] = [];
  let leased = false;
  try {
    mayCallModels(auth);
    withDefaultModel(auth, req);
    const access = keyAccess(auth);
    if (req.inlinePdfs !== undefined || req.extra.plugins !== undefined) await readInlinePdfs(req, deps.files, deps.planner, access);
    applyGuardrails(auth, req, deps.telemetry, guardrails);
    // Read (and a malformed one refused) before anything is counted; decided once the plan is known.
    const searchAsk = deps.webSearch !== undefined && mayAskWebSearch(req) ? readWebSearchAsk(req) : null;
    const promptTokens = admittedPromptTokens(req);
    const account = auth.account;
    const subject = { keyHash: auth.key.hash, accountId: account.id, tier: account.tier, limitsOverride: account.limitsOverride };
    // The sticky lookup and the rate limits at once (in a fleet: one Redis round trip, not
    // two): the limits depend on the plan's models, which stickiness does not change.
    const draft = deps.planner.draft(req, promptTokens, access);
    const drawn = deps.rateLimits.allowedAttempts(subject, draft.finish(null));
    // Steps that answer at once on one node (in-process limits, no sticky lookup, no lease,
    // an in-process hold) are not awaited: each await is a promise and a microtask turn (issue 29).
    const lookup = stickyLookup(deps.sticky, deps.catalog, account.id, req, promptTokens, draft.stickyApplies);
    // Refused by the limits below, the lookup is not awaited: its failure must not go unhandled.
    lookup?.catch(() => {});
    const admission = deps.rateLimits.admit(subject, drawn, startedAt, deps.now);
    const limits = admission instanceof Promise ? await admission : admission;
    Object.assign(responseHeaders, limits.headers);
    const sticky = lookup === null ? null : await lookup;
    const stuck = sticky?.endpointId == null ? drawn : deps.rateLimits.allowedAttempts(subject, draft.finish(sticky.endpointId));
    const lease = acquireLease(deps.inFlight, auth, generationId);
    leased = typeof lease === 'boolean' ? lease : await lease;
    // Decided on the plan (does every endpoint search natively?), held with the rest.
    const webSearch = searchAsk === null || deps.webSearch === undefined ? null : planWebSearch(req, searchAsk, stuck, deps.webSearch);
    const byok = deps.byok?.enabled === true ? await deps.byok.forAccount(account.id) : null;
    const held = holdCredits(deps.reservations, generationId, auth, req, stuck, byok);
    const { plan, heldNanos } = held instanceof Promise ? await held : held;
    // Strict (timeouts.hold_journal_ms 0): nothing goes upstream before the hold's row is on
    // disk (asked now, awaited beside the cache probe). With the journal, nothing to wait for.
    const holdRow = heldNanos !== 0n && deps.reservations.holdRows ? deps.settlements.holdWritten(generationId) : null;
    // Search results change: an answer built on them is not cached.
    const probing = webSearch !== null || deps.responseCache === undefined ? null : deps.responseCache.probe(account.id, req, info.cache);
    const cache = probing === null ? null : await probing;
    if (holdRow !== null && !(await holdRow).committed)
      await holdNotWritten(deps.settlements, deps.reservations, generationId, auth, heldNanos);
    if (cache !== null) responseHeaders['x-switchyard-cache'] = cache.hit === null ? 'MISS' : 'HIT';
    return {
      generationId,
      created: Math.floor(startedAt / 1000),
      auth,
      req,
      plan,
      info,
      startedAt,
      heldNanos,
      responseHeaders,
      modelLimits: limits.models,
      sticky,
      cache,
      webSearch,
      byok,
      leased,
      guardrails,
    };
  } catch (thrown) {
    if (leased) await releaseLease(deps.inFlight, auth, generationId);
    const err = thrown instanceof SharedStateUnavailable ? sharedStateUnavailable(thrown) : thrown;
    if (!(err instanceof GatewayError)) throw err;
    // Counted per key, reason and minute, never a record of its own: a flood of refusals
    // must not fill the disk (store/refusal-counts.ts). The record is for telemetry only.
    deps.settlements.countRefusal(auth.account.id, auth.key.hash, err.code, startedAt);
    const record = buildGenerationRecord(
      { id: generationId, auth, req, info, startedAt, guardrails },
      { kind: 'refused', error: err },
      deps.now(),
    );
    deps.telemetry.requestRefused(record, err, { keyLabel: auth.key.label }, info.traceparent ?? null);
    throw withHeaders(err, responseHeaders);
  }
}

/** Management and admin keys manage; they cannot call models (403). */
function mayCallModels(auth: AuthContext): void {
  if (auth.key.isManagement) {
    throw new GatewayError('forbidden', 'A management key manages keys; it cannot call models. Use an API key of the account.');
  }
  if (auth.key.isAdmin)
    throw new GatewayError('forbidden', 'An admin key is for the admin API; it cannot call models. Use an API key of an account.');
}

/** A request naming no model takes the account's default model (400 when it has none). */
function withDefaultModel(auth: AuthContext, req: CanonicalRequest): void {
  if (req.models.length > 0) return;
  const fallback = auth.account.defaultModel;
  if (fallback === null) {
    throw new GatewayError('missing_parameter', 'Missing required parameter: "model" (this account has no default model).', {
      param: 'model',
    });
  }
  req.models.push({ model: fallback });
}
