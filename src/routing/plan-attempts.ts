import type { Catalog } from '../catalog/catalog.ts';
import type { Endpoint, ModelInfo } from '../catalog/types.ts';
import { estimateContextTokens, estimateRequestTokens } from '../canonical/estimate-tokens.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { requestKind, type ModelKind } from '../canonical/task.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { ModelAccess } from '../catalog/model-access.ts';
import type { CircuitBreakers } from './circuit-breaker.ts';
import { compilePreferences } from './compile-preferences.ts';
import { filterEndpoints, newTally, type Candidate, type Exclusion, type FilterTally, type RequestFacts } from './filter-endpoints.ts';
import type { HealthStore } from './health/health-store.ts';
import { orderCandidates } from './order-endpoints.ts';
import { preferredParameters, requestParameters } from './request-parameters.ts';
import { buildRouteEndpoints, type RouteEndpoint } from './route-endpoint.ts';

export interface PlannerDeps {
  catalog: Catalog;
  health: HealthStore;
  breakers: CircuitBreakers;
  /** Uniform in [0, 1): the weighted draw's source, injected so tests are deterministic. */
  random?: () => number;
}

/**
 * Turns a request's model list into the ordered attempts the executor will try: for each
 * model in order (the primary, then `models`, then `fallbacks`), its endpoints filtered by
 * the preferences that apply to it and ordered (order-endpoints.ts). Throws 400
 * `model_not_found` for an unknown model (and, alike, for a model outside the key's
 * allowlist: `access`, catalog/model-access.ts, whose endpoints are the only ones planned), 400 `context_length_exceeded` when the prompt
 * fits no endpoint that meets the preferences, and 503 `no_provider_available` (saying what
 * excluded each endpoint) when nothing else is left.
 */
export class AttemptPlanner {
  private readonly catalog: Catalog;
  private readonly health: HealthStore;
  private readonly breakers: CircuitBreakers;
  private readonly random: () => number;
  private readonly routes: ReadonlyMap<ModelInfo, readonly RouteEndpoint[]>;

  constructor(deps: PlannerDeps) {
    this.catalog = deps.catalog;
    this.health = deps.health;
    this.breakers = deps.breakers;
    this.random = deps.random ?? Math.random;
    const routes = new Map<ModelInfo, readonly RouteEndpoint[]>();
    for (const model of deps.catalog.models) routes.set(model, buildRouteEndpoints(model));
    this.routes = routes;
  }

  /**
   * `promptTokens`: the request's token estimate, when the caller has it already.
   * `sticky`: the endpoint id holding this conversation's prompt cache (sticky-routing.ts),
   * or null: see `moveStickyFirst`.
   */
  plan(
    req: CanonicalRequest,
    promptTokens: number = estimateRequestTokens(req),
    sticky: string | null = null,
    access: ModelAccess | null = null,
  ): PlannedAttempt[] {
    return this.draft(req, promptTokens, access).finish(sticky);
  }

  /**
   * The plan before sticky routing: every model's candidates filtered and ordered (the
   * weighted draw made, once), so that the caller can look up the sticky endpoint while it
   * counts the request's rate limits, which depend on the plan's models only, never on the
   * order of a model's endpoints (what stickiness changes). Throws as `plan` does for an
   * unknown model.
   */
  draft(req: CanonicalRequest, promptTokens: number = estimateRequestTokens(req), access: ModelAccess | null = null): PlanDraft {
    const used = requestParameters(req);
    const facts: RequestFacts = {
      promptTokens: estimateContextTokens(req, promptTokens),
      maxOutputTokens: req.maxOutputTokens ?? -1,
      used,
      preferred: preferredParameters(used),
    };
    const excluded: Exclusion[] = [];
    const tally = newTally();
    const models: DraftModel[] = [];
    const kind = requestKind(req.task);
    for (const choice of req.models) {
      const resolved = this.catalog.resolve(choice.model);
      // Outside the allowlist, a model is an unknown one: the same error, word for word.
      if (resolved === undefined || (access !== null && !access.allowsModel(resolved.model))) {
        throw new GatewayError('model_not_found', `Model "${choice.model}" is not a valid model ID or is not available.`, {
          param: 'model',
        });
      }
      const model = resolved.model;
      if (!servesKind(model, kind)) throw wrongKind(choice.model, model.kind, kind);
      const prefs = compilePreferences(req.provider, choice.provider, resolved.variant);
      const cands: Candidate[] = [];
      // Endpoints the allowlist excludes are not candidates at all (nor named in a 503's `excluded`).
      const routes = this.routes.get(model) ?? [];
      filterEndpoints(access === null ? routes : access.endpointsOf(routes), prefs, facts, this.breakers, model.id, cands, excluded, tally);
      orderCandidates(cands, prefs, this.health, this.random);
      models.push({ model, ordered: prefs.order !== null, allowFallbacks: prefs.allowFallbacks, cands });
    }
    return new PlanDraft(req, facts, models, excluded, tally, this.breakers);
  }
}

interface DraftModel {
  model: ModelInfo;
  /** An explicit `order`: stickiness is not applied, and every endpoint it names is kept. */
  ordered: boolean;
  allowFallbacks: boolean;
  cands: Candidate[];
}

/** A plan whose models and draws are fixed, finished with or without a sticky endpoint (AttemptPlanner.draft). */
export class PlanDraft {
  private readonly req: CanonicalRequest;
  private readonly facts: RequestFacts;
  private readonly models: readonly DraftModel[];
  private readonly excluded: Exclusion[];
  private readonly tally: FilterTally;
  private readonly breakers: CircuitBreakers;

  constructor(
    req: CanonicalRequest,
    facts: RequestFacts,
    models: readonly DraftModel[],
    excluded: Exclusion[],
    tally: FilterTally,
    breakers: CircuitBreakers,
  ) {
    this.req = req;
    this.facts = facts;
    this.models = models;
    this.excluded = excluded;
    this.tally = tally;
    this.breakers = breakers;
  }

  /**
   * Whether a sticky endpoint could change the plan: some model has two candidates or more
   * and no explicit `order`. When none has, a lookup could not change anything.
   */
  get stickyApplies(): boolean {
    return this.models.some((m) => !m.ordered && m.cands.length > 1);
  }

  /**
   * The attempts, with `sticky` (an endpoint id, or null) first where it applies. Every call
   * gives the same models in the same order; only the order of a model's endpoints differs.
   * Throws 400 or 503 when no endpoint is left.
   */
  finish(sticky: string | null): PlannedAttempt[] {
    const attempts: PlannedAttempt[] = [];
    // A model named twice is tried once. Another model on the same upstream model has
    // endpoints of its own (its price, its tier and rate limits), so they are kept.
    const seen: Set<Endpoint> | null = this.models.length > 1 ? new Set() : null;
    for (const { model, ordered, allowFallbacks, cands: drawn } of this.models) {
      let cands = drawn;
      if (sticky !== null && !ordered) {
        cands = [...drawn];
        moveStickyFirst(cands, sticky, this.breakers);
      }
      // allow_fallbacks: false without an order: the top endpoint alone (with an order, the
      // filter already kept only the endpoints it names).
      const take = !allowFallbacks && !ordered ? Math.min(1, cands.length) : cands.length;
      for (let i = 0; i < take; i++) {
        const endpoint = cands[i]!.route.endpoint;
        if (seen !== null) {
          if (seen.has(endpoint)) continue;
          seen.add(endpoint);
        }
        attempts.push({ model, endpoint });
      }
    }
    if (attempts.length === 0) throw noPlan(this.req, this.facts, this.excluded, this.tally);
    return attempts;
  }
}

/**
 * Sticky routing for prompt caches: the endpoint that holds the conversation's cache goes
 * first, the others keep their order behind it as fallbacks, when it is still among the
 * candidates (it passed this request's filters), its circuit is closed (not open, not
 * probing), and it fits the request as well as the head does. Not applied under an explicit
 * `order` (the caller's own choice wins).
 */
function moveStickyFirst(cands: Candidate[], sticky: string, breakers: CircuitBreakers): void {
  const head = cands[0];
  if (head === undefined || head.route.endpoint.id === sticky) return;
  const at = cands.findIndex((c) => c.route.endpoint.id === sticky);
  if (at < 0) return;
  const chosen = cands[at]!;
  if (chosen.tier > head.tier || breakers.state(sticky) !== 'closed') return;
  for (let i = at; i > 0; i--) cands[i] = cands[i - 1]!;
  cands[0] = chosen;
}

function noPlan(req: CanonicalRequest, facts: RequestFacts, excluded: Exclusion[], tally: FilterTally): GatewayError {
  if (tally.preferred > 0 && tally.tooSmall === tally.preferred) {
    return new GatewayError(
      'context_length_exceeded',
      `This request's prompt is about ${facts.promptTokens} tokens, more than the context window of any endpoint that could serve it ` +
        `(the largest is ${tally.largestTooSmall} tokens). Shorten the messages or choose a model with a longer context.`,
      {
        param: req.task?.kind === 'embedding' ? 'input' : 'messages',
        metadata: { prompt_tokens: facts.promptTokens, context_length: tally.largestTooSmall, excluded },
      },
    );
  }
  const headers = tally.circuitRetryMs >= 0 ? { 'retry-after': String(Math.max(1, Math.ceil(tally.circuitRetryMs / 1000))) } : undefined;
  return new GatewayError(
    'no_provider_available',
    'No provider endpoint meets the requirements of this request; metadata.excluded says why each was left out.',
    {
      metadata: { models: req.models.map((m) => m.model), excluded },
      ...(headers === undefined ? {} : { headers }),
    },
  );
}

/** Where each kind of model is called: named in the 400 for a model sent to the wrong endpoint. */
const KIND_ROUTES: Record<ModelKind, string> = {
  chat: "POST /v1/chat/completions (or /v1/messages, /v1/responses, Gemini's :generateContent)",
  embedding: "POST /v1/embeddings (or Gemini's :embedContent, :batchEmbedContents)",
  image: 'POST /v1/images/generations (or /v1/images/edits)',
  speech: 'POST /v1/audio/speech',
  transcription: 'POST /v1/audio/transcriptions (or /v1/audio/translations)',
};

function article(kind: ModelKind): string {
  return kind === 'image' || kind === 'embedding' ? 'an' : 'a';
}

function wrongKind(name: string, kind: ModelKind, wanted: ModelKind): GatewayError {
  return new GatewayError(
    'invalid_parameter',
    `Model "${name}" is ${article(kind)} ${kind} model and cannot serve ${article(wanted)} ${wanted} request: call it with ${KIND_ROUTES[kind]}.`,
    { param: 'model', metadata: { model_kind: kind, request_kind: wanted } },
  );
}

/** A model serves requests of its kind; a chat model that outputs images also serves image requests (Gemini's image models). */
function servesKind(model: ModelInfo, kind: ModelKind): boolean {
  return model.kind === kind || (kind === 'image' && model.kind === 'chat' && model.capabilities.includes('image_output'));
}
