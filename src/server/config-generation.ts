import type { ByokSource } from '../pipeline/generation-pipeline.ts';
import type { CreditHolds } from '../billing/credit-holds.ts';
import type { SettlementQueue } from '../billing/settlement-queue.ts';
import { buildCatalog } from '../catalog/build-catalog.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { SharedCredentialUse } from '../catalog/shared-credential-use.ts';
import type { GatewayConfig } from '../config/types.ts';
import { RateLimitGate } from '../limits/rate-limit-gate.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { InFlightLimiter } from '../limits/in-flight-limiter.ts';
import type { TierLimits } from '../config/tier-limits.ts';
import { Moderator } from '../moderation/moderator.ts';
import { GenerationPipeline } from '../pipeline/generation-pipeline.ts';
import { scrubberForConfig } from '../providers/http/configured-secrets.ts';
import type { SecretScrubber } from '../providers/http/scrub-secrets.ts';
import type { UpstreamClient } from '../providers/http/upstream-client.ts';
import type { ProviderAdapter } from '../providers/types.ts';
import type { CircuitBreakers } from '../routing/circuit-breaker.ts';
import { AttemptExecutor } from '../routing/execute-attempts.ts';
import type { HealthStore } from '../routing/health/health-store.ts';
import { AttemptPlanner } from '../routing/plan-attempts.ts';
import type { Telemetry } from '../observability/telemetry.ts';
import type { StickyRouting } from '../routing/sticky/sticky-routing.ts';
import { ResponseCache } from '../pipeline/response-cache/response-cache.ts';
import { FileParser } from '../pipeline/file-parser/file-parser.ts';
import type { ResponseCacheStore } from '../pipeline/response-cache/response-cache-store.ts';
import type { WebSearchDeps } from '../pipeline/web-search/search-backend.ts';
import { usdToNanos } from '../money/money.ts';
import { HttpSearchBackend } from './web-search/http-search-backend.ts';
import type { McpClient } from '../mcp/mcp-client.ts';
import { McpRegistry, type AccountServers } from '../mcp/mcp-registry.ts';

/**
 * Everything built from the reloadable part of the configuration (providers, models,
 * prices, tiers, moderation, timeouts): one immutable object per load. A reload builds a
 * new one beside the one in force and swaps it in whole (wiring/in-force.ts); a request keeps
 * the pipeline it was admitted by, so it finishes on the config it started with.
 */
export interface ConfigGeneration {
  /** 1 at start, +1 per accepted reload. */
  generation: number;
  /** ISO time it was built. */
  loadedAt: string;
  config: GatewayConfig;
  catalog: Catalog;
  catalogWarnings: string[];
  tierList: readonly TierLimits[];
  planner: AttemptPlanner;
  pipeline: GenerationPipeline;
  scrubber: SecretScrubber;
  /** The operator's MCP servers and their tool lists (cached per generation: a reload lists them again). */
  mcp: McpRegistry;
}

/**
 * What outlives reloads: the upstream connection pool, routing health and circuits (kept
 * for the endpoints that remain: they are keyed by endpoint id), rate-limit counters,
 * credit holds and the settlement queue.
 */
export interface SharedState {
  env: Record<string, string | undefined>;
  adapters: ReadonlyMap<string, ProviderAdapter>;
  upstream: UpstreamClient;
  health: HealthStore;
  breakers: CircuitBreakers;
  limiter: RateLimiter;
  /** Keys' `max_in_flight` leases: in process, or in Redis for a fleet. */
  inFlight: InFlightLimiter;
  settlements: SettlementQueue;
  reservations: CreditHolds;
  telemetry: Telemetry;
  /** Sticky routing for prompt caches: in process, or in Redis for a fleet. */
  sticky: StickyRouting;
  /** Where response-cache entries are kept (outlives reloads; `cache:` in each generation's config says how they are used). */
  responseCacheStore: ResponseCacheStore;
  /** The connections to MCP servers (outlives reloads; its bounds and SSRF setting are read at start). */
  mcpClient: McpClient;
  /** Accounts' own MCP servers (from the store), joined to each generation's registry. */
  mcpAccountServers?: AccountServers;
  /** Credential pools' use counted by the fleet (Redis); absent: each process counts its own. */
  credentialUse?: SharedCredentialUse;
  /** The operator log. */
  log: (message: string) => void;
  /** Accounts' own provider keys (auth/byok-keys.ts). */
  byok?: ByokSource;
  random?: () => number;
  /** The clock of requests (epoch ms; default Date.now): tests move it across a key limit's period. */
  now?: () => number;
}

/** Builds a generation; throws (ConfigError, mostly) without side effects when the config cannot serve. */
export function buildGeneration(
  config: GatewayConfig,
  shared: SharedState,
  generation: number,
  built: { catalog: Catalog; warnings: string[] } = buildCatalog(config, shared.env, shared.adapters),
): ConfigGeneration {
  const { catalog, warnings } = built;
  if (shared.credentialUse !== undefined) {
    for (const provider of catalog.providers.values()) provider.credentials?.share(shared.credentialUse, provider.id);
  }
  const scrubber = scrubberForConfig(config, catalog);
  const tiers = new Map(config.tiers.map((t) => [t.id, t]));
  const planner = new AttemptPlanner({
    catalog,
    health: shared.health,
    breakers: shared.breakers,
    ...(shared.random === undefined ? {} : { random: shared.random }),
  });
  const executor = new AttemptExecutor({
    adapters: shared.adapters,
    client: shared.upstream,
    health: shared.health,
    breakers: shared.breakers,
    requestTimeoutMs: config.timeouts.requestMs,
    log: shared.log,
    ...(shared.now === undefined ? {} : { wallClock: shared.now }),
    ...(shared.random === undefined ? {} : { random: shared.random }),
  });
  const moderation = config.moderation;
  const moderator = new Moderator(moderation.rules, moderation.upstream, shared.upstream, moderation.maxInputChars);
  const pipeline = new GenerationPipeline({
    catalog,
    planner,
    executor,
    settlements: shared.settlements,
    reservations: shared.reservations,
    rateLimits: new RateLimitGate(shared.limiter, tiers),
    inFlight: shared.inFlight,
    moderator,
    sticky: shared.sticky,
    responseCache: new ResponseCache(config.cache, shared.responseCacheStore, catalog, shared.log),
    scrubber,
    timeouts: config.timeouts,
    telemetry: shared.telemetry,
    files: new FileParser(config.pdf, shared.adapters),
    ...webSearchOf(config),
    ...(shared.byok === undefined ? {} : { byok: shared.byok }),
    ...(shared.now === undefined ? {} : { now: shared.now }),
  });
  return {
    generation,
    loadedAt: new Date().toISOString(),
    config,
    catalog,
    catalogWarnings: warnings,
    tierList: config.tiers,
    planner,
    pipeline,
    scrubber,
    mcp: new McpRegistry(config.mcpServers, config.mcp, {
      client: shared.mcpClient,
      ...(shared.mcpAccountServers === undefined ? {} : { accountServers: shared.mcpAccountServers }),
    }),
  };
}

/** The operator's search backend (`search:`), when configured: web search for every model (docs/tools.md). */
function webSearchOf(config: GatewayConfig): { webSearch?: WebSearchDeps } {
  const search = config.search;
  if (search === null) return {};
  return {
    webSearch: {
      backend: new HttpSearchBackend(search),
      priceNanos: usdToNanos(search.pricePerSearch),
      defaultResults: search.defaultResults,
    },
  };
}

/** Fields a running gateway cannot change: a reload that changes one is refused, naming it. */
export function restartOnlyChange(current: GatewayConfig, next: GatewayConfig): string | null {
  const fields: Array<[string, unknown, unknown]> = [
    ['server.host', current.server.host, next.server.host],
    ['server.port', current.server.port, next.server.port],
    ['server.public_models', current.server.publicModels ?? true, next.server.publicModels ?? true],
    ['database.path', current.database.path, next.database.path],
    // The MCP client is built once (wiring/mcp-wiring.ts): its SSRF setting and bounds.
    ['mcp.allow_private_addresses', current.mcp.allowPrivateAddresses, next.mcp.allowPrivateAddresses],
    ['mcp.call_timeout_ms', current.mcp.callTimeoutMs, next.mcp.callTimeoutMs],
    ['mcp.max_result_bytes', current.mcp.maxResultBytes, next.mcp.maxResultBytes],
    // The keys stored are sealed under it: changing it is `switchyard byok rotate-master-key`, then a restart.
    ['byok.master_key', current.byok.masterKey, next.byok.masterKey],
  ];
  for (const [name, was, now] of fields) {
    if (was !== now) return `${name} changed (${String(was)} → ${String(now)}); it takes a restart to apply`;
  }
  // The sign-in mailer and its routes are built at start (its password is not quoted here).
  if (JSON.stringify(current.smtp) !== JSON.stringify(next.smtp)) return 'smtp changed; it takes a restart to apply';
  return null;
}
