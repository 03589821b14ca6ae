import type { DatabaseSync } from 'node:sqlite';
import { Authenticator } from '../auth/authenticate.ts';
import { AccountService } from '../billing/account-service.ts';
import { SettlementQueue } from '../billing/settlement-queue.ts';
import { buildCatalog } from '../catalog/build-catalog.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { GatewayConfig } from '../config/types.ts';
import { GenerationPipeline } from '../pipeline/generation-pipeline.ts';
import { UpstreamClient } from '../providers/http/upstream-client.ts';
import { builtinAdapters } from '../providers/registry.ts';
import type { ProviderAdapter } from '../providers/types.ts';
import { AttemptExecutor } from '../routing/execute-attempts.ts';
import { CircuitBreakers } from '../routing/circuit-breaker.ts';
import type { HealthStore } from '../routing/health/health-store.ts';
import { InProcessHealthStore } from '../routing/health/in-process-health-store.ts';
import { AttemptPlanner } from '../routing/plan-attempts.ts';
import { AccountStore } from '../store/account-store.ts';
import { GenerationStore } from '../store/generation-store.ts';
import { LedgerStore } from '../store/ledger-store.ts';
import { openDatabase, startWalCheckpoints } from '../store/open-database.ts';
import { ExternalChangeWatcher } from '../store/external-change-watcher.ts';
import { ServeLock } from '../store/serve-lock.ts';
import { ReservationStore } from '../store/reservation-store.ts';
import { CreditReservations } from '../billing/credit-reservations.ts';
import { InProcessRateLimiter } from '../limits/in-process-rate-limiter.ts';
import { RateLimitGate } from '../limits/rate-limit-gate.ts';
import type { TierTable } from '../limits/tier-limits.ts';
import { Moderator } from '../moderation/moderator.ts';
import { scrubberForConfig } from '../providers/http/configured-secrets.ts';
import { logSafely, scrubInProcessLogs, type SecretScrubber } from '../providers/http/scrub-secrets.ts';
import type { DestinationStream } from 'pino';
import { Telemetry } from '../observability/telemetry.ts';
import { GatewayMetrics } from '../observability/gateway-metrics.ts';
import { createRequestLogger, logLevelFromEnv } from '../observability/request-log.ts';
import { GatewayTracing, tracesEndpoint } from '../observability/gateway-tracing.ts';
import { buildInfo } from './build-info.ts';

/** The composition root: every long-lived service, built once at boot. */
export interface Services {
  config: GatewayConfig;
  db: DatabaseSync;
  accounts: AccountStore;
  ledger: LedgerStore;
  generations: GenerationStore;
  accountService: AccountService;
  tiers: TierTable;
  auth: Authenticator;
  catalog: Catalog;
  catalogWarnings: string[];
  adapters: ReadonlyMap<string, ProviderAdapter>;
  upstream: UpstreamClient;
  settlements: SettlementQueue;
  reservations: CreditReservations;
  /** Routing state: endpoint health figures and circuits, shared by planner and executor. */
  health: HealthStore;
  breakers: CircuitBreakers;
  planner: AttemptPlanner;
  pipeline: GenerationPipeline;
  /** Scrubs upstream credentials from what goes to clients and logs. */
  scrubber: SecretScrubber;
  /** Metrics (GET /metrics), the request log (JSON lines on stdout) and traces (OTLP, when configured). */
  telemetry: Telemetry;
  close(): Promise<void>;
}

export interface ServiceOptions {
  env: Record<string, string | undefined>;
  log?: (message: string) => void;
  /** How often stale credit holds are swept (default: the hold grace period). */
  holdSweepMs?: number;
  /** The uniform source of routing's weighted draw (default Math.random); tests seed it. */
  random?: () => number;
  /** The serve lease of the database was lost (store/serve-lock.ts): this process must stop serving. */
  onLeaseLost?: (reason: string) => void;
  /** Where the request log's JSON lines go (default stdout; tests capture them). */
  logDestination?: DestinationStream;
}

/** Opens the database and builds the stores only (what the CLI's account commands need). */
export function openStores(config: GatewayConfig): Pick<Services, 'db' | 'accounts' | 'ledger' | 'generations' | 'accountService' | 'tiers'> {
  const db = openDatabase(config.database.path);
  const accounts = new AccountStore(db);
  const ledger = new LedgerStore(db);
  const tiers: TierTable = new Map(config.tiers.map((t) => [t.id, t]));
  return { db, accounts, ledger, generations: new GenerationStore(db), accountService: new AccountService(accounts, ledger, tiers), tiers };
}

/** How long a credit hold may outlive its request's deadline before it counts as stale. */
const HOLD_GRACE_MS = 60_000;

export function createServices(config: GatewayConfig, opts: ServiceOptions): Services {
  // The catalog first: a config mistake stops the start before any file is created.
  const adapters = builtinAdapters();
  const { catalog, warnings } = buildCatalog(config, opts.env, adapters);
  // Upstream credentials never reach a client or a log line (scrub-secrets.ts).
  const scrubber = scrubberForConfig(config, catalog);
  scrubInProcessLogs(scrubber);
  const log = opts.log === undefined ? logSafely : (m: string) => opts.log!(scrubber.text(m));
  const stores = openStores(config);
  let lock: ServeLock;
  try {
    lock = ServeLock.acquire(stores.db, config.database.path, { onLost: opts.onLeaseLost ?? log });
  } catch (err) {
    stores.db.close();
    throw err;
  }
  const settlements = new SettlementQueue(stores.ledger, { log });
  const health = new InProcessHealthStore();
  const breakers = new CircuitBreakers();
  const telemetry = buildTelemetry(config, opts, catalog, scrubber, breakers, settlements);
  const upstream = new UpstreamClient({ telemetry });
  const planner = new AttemptPlanner({ catalog, health, breakers, ...(opts.random === undefined ? {} : { random: opts.random }) });
  const executor = new AttemptExecutor({ adapters, client: upstream, health, breakers, requestTimeoutMs: config.timeouts.requestMs });
  const reservations = new CreditReservations(new ReservationStore(stores.db), settlements, { holdMs: config.timeouts.requestMs + HOLD_GRACE_MS });
  // The embedded database has one gateway process: whatever it holds at start-up was left by a dead one.
  const released = reservations.releaseStale(true);
  if (released > 0) log(`released ${released} credit hold(s) left by requests interrupted at the last shutdown`);
  const sweep = setInterval(() => {
    // Holds of requests whose settlements wait in memory (writes refused) are not stale.
    if (!settlements.failing) sweepStaleHolds(reservations, log);
  }, opts.holdSweepMs ?? HOLD_GRACE_MS);
  sweep.unref();
  const stopCheckpoints = startWalCheckpoints(stores.db);
  // Account and key changes drop the caches at once, whether made here or by another
  // process on the same database (the operator CLI).
  const watcher = new ExternalChangeWatcher(stores.db);
  const auth = new Authenticator(stores.accounts, { watcher });
  const dropCaches = (): void => {
    reservations.forget();
    auth.invalidate();
  };
  stores.accountService.onChange(dropCaches);
  watcher.onChange(dropCaches);
  const moderator = new Moderator(config.moderation.rules, config.moderation.upstream, upstream, config.moderation.maxInputChars);
  const pipeline = new GenerationPipeline({
    catalog,
    planner,
    executor,
    settlements,
    reservations,
    rateLimits: new RateLimitGate(new InProcessRateLimiter(), stores.tiers),
    moderator,
    scrubber,
    timeouts: config.timeouts,
    telemetry,
  });
  return {
    config,
    ...stores,
    auth,
    catalog,
    catalogWarnings: warnings,
    adapters,
    upstream,
    settlements,
    reservations,
    health,
    breakers,
    planner,
    pipeline,
    scrubber,
    telemetry,
    async close() {
      clearInterval(sweep);
      stopCheckpoints();
      settlements.close();
      await upstream.close();
      await telemetry.tracing?.shutdown();
      lock.release();
      stores.db.close();
    },
  };
}

/** Metrics (unless `metrics.enabled: false`), the request log at `LOG_LEVEL`, traces when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. */
function buildTelemetry(
  config: GatewayConfig,
  opts: ServiceOptions,
  catalog: Catalog,
  scrubber: SecretScrubber,
  breakers: CircuitBreakers,
  settlements: SettlementQueue,
): Telemetry {
  const metrics = config.metrics.enabled
    ? new GatewayMetrics({
      endpoints: () => catalog.models.flatMap((m) => m.endpoints.map((e) => e.id)),
      circuitState: (id) => breakers.state(id),
      settlementQueueDepth: () => settlements.queued,
      settlementFailing: () => settlements.failing,
    })
    : null;
  const logOpts = { level: logLevelFromEnv(opts.env), ...(opts.logDestination === undefined ? {} : { destination: opts.logDestination }) };
  const url = tracesEndpoint(opts.env);
  const telemetry = new Telemetry({
    metrics,
    log: createRequestLogger(logOpts),
    tracing: url === null ? null : new GatewayTracing(url, buildInfo.version, opts.env),
    scrubber,
    knownModel: (id) => catalog.get(id) !== undefined,
  });
  breakers.onOpen((id, failures) => telemetry.circuitOpened(id, failures));
  settlements.onDropped((record) => telemetry.settlementDropped(record));
  return telemetry;
}

/** The periodic sweep: holds of requests that outlived their deadline (a write failure must not crash the process). */
function sweepStaleHolds(reservations: CreditReservations, log: (message: string) => void): void {
  try {
    const released = reservations.releaseStale(false);
    if (released > 0) log(`released ${released} stale credit hold(s)`);
  } catch (err) {
    log(`stale-hold sweep failed: ${(err as Error).message}`);
  }
}
