import { loadConfig } from '../config/load-config.ts';
import { Authenticator } from '../auth/authenticate.ts';
import { AccountService } from '../billing/account-service.ts';
import { SettlementQueue } from '../billing/settlement-queue.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { buildCatalog } from '../catalog/build-catalog.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { GenerationPipeline } from '../pipeline/generation-pipeline.ts';
import { UpstreamClient } from '../providers/http/upstream-client.ts';
import { builtinAdapters } from '../providers/registry.ts';
import type { ProviderAdapter } from '../providers/types.ts';
import { CircuitBreakers } from '../routing/circuit-breaker.ts';
import type { HealthStore } from '../routing/health/health-store.ts';
import { InProcessHealthStore } from '../routing/health/in-process-health-store.ts';
import type { AttemptPlanner } from '../routing/plan-attempts.ts';
import type { AccountRepository, GenerationRepository, KeyUsageRepository, LedgerRepository, Stores } from '../store/store-contract.ts';
import { compactHeap } from '../runtime/compact-heap.ts';
import { shrinkHeapWhenIdle } from '../runtime/idle-heap-shrink.ts';
import type { Backends } from '../shared/select-backends.ts';
import { engineParts, openStores, type EngineParts, type SqliteWriter, type SqliteWriterOptions } from './open-stores.ts';
import { SessionStore, isSessionToken } from './dashboard/session-store.ts';
import { CreditReservations } from '../billing/credit-reservations.ts';
import type { CreditHolds } from '../billing/credit-holds.ts';
import type { FleetServices } from './fleet-services.ts';
import { InProcessStickyRoutes } from '../routing/sticky/sticky-routes.ts';
import { maxEntriesPerAccount } from '../config/parse-sticky.ts';
import { StickyRouting } from '../routing/sticky/sticky-routing.ts';
import { InProcessResponseCacheStore } from '../pipeline/response-cache/response-cache-store.ts';
import { InProcessRateLimiter } from '../limits/in-process-rate-limiter.ts';
import { InProcessInFlightLimiter } from '../limits/in-flight-limiter.ts';
import type { TierLimits, TierTable } from '../config/tier-limits.ts';
import { logSafely, scrubInProcessLogs, type SecretScrubber } from '../providers/http/scrub-secrets.ts';
import { RecordsRetention } from './records-retention.ts';
import { GovernanceRetention } from './governance-retention.ts';
import { buildGeneration, restartOnlyChange, type ConfigGeneration, type SharedState } from './config-generation.ts';
import { McpClient } from '../mcp/mcp-client.ts';
import type { McpRegistry } from '../mcp/mcp-registry.ts';
import { accountMcpServerSpecs } from './mcp-endpoint/account-mcp-servers.ts';
import { InFlight } from './in-flight.ts';
import type { DestinationStream } from 'pino';
import { Telemetry } from '../observability/telemetry.ts';
import { GatewayMetrics } from '../observability/gateway-metrics.ts';
import { createRequestLogger, logLevelFromEnv, stdoutLogSink } from '../observability/request-log.ts';
import type { LogSink } from '../observability/log-sink.ts';
import { GatewayTracing, tracesEndpoint } from '../observability/gateway-tracing.ts';
import { cliCommand, cliInvocation } from '../runtime/cli-invocation.ts';
import { buildInfo } from '../config/build-info.ts';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.ts';
import { webhookSecretsFor } from './webhooks/webhook-secret-key.ts';
import type { WebhookSecrets } from './webhooks/webhook-secrets.ts';
import { MemberService } from '../billing/member-service.ts';
import { buildByok, masterKeyFromRef } from './build-byok.ts';
import type { ByokKeys } from '../auth/byok-keys.ts';

/**
 * The composition root: every long-lived service, built once at boot. The fields built
 * from the reloadable part of the config (`config`, `catalog`, `planner`, `pipeline`,
 * `scrubber`, `catalogWarnings`) read the generation in force (config-generation.ts):
 * read them once per request.
 */
export interface Services {
  readonly config: GatewayConfig;
  /** The durable records: SQLite, or Postgres in a fleet (store/store-contract.ts). */
  stores: Stores;
  /** Which stores: `sqlite` (one process), or `fleet` (Postgres and Redis). */
  backends: Backends;
  accounts: AccountRepository;
  ledger: LedgerRepository;
  generations: GenerationRepository;
  accountService: AccountService;
  /** The tiers in force: one map, updated in place by a reload. */
  tiers: TierTable;
  auth: Authenticator;
  readonly catalog: Catalog;
  readonly catalogWarnings: string[];
  /** Dashboard sessions (a management or admin key exchanged for a cookie). */
  sessions: SessionStore;
  adapters: ReadonlyMap<string, ProviderAdapter>;
  upstream: UpstreamClient;
  settlements: SettlementQueue;
  /** Credit holds: in this process (SQLite), or in Redis shared by a fleet. */
  reservations: CreditHolds;
  /** The Redis pieces of a fleet instance, or null for one process on SQLite. */
  fleet: FleetServices | null;
  /** What a key spent per UTC day (the usage a resetting key limit caps; billing/key-limit-remaining.ts). */
  keyPeriodUsage: KeyUsageRepository;
  /** The clock of requests and key limit periods (epoch ms). */
  now: () => number;
  /**
   * The writer thread that commits the settlements, checkpoints the WAL and renews the
   * serve lease on its own connection (store/sqlite/sqlite-writer/); null for an in-memory
   * database, whose settlements are written on `db`, and in a fleet (Postgres).
   */
  writer: SqliteWriter | null;
  /** Resolves once every settlement the queue holds is written (SQLite or Postgres): the queue's flush. */
  settled(): Promise<void>;
  /** Routing state: endpoint health figures and circuits, shared by planner and executor. */
  health: HealthStore;
  breakers: CircuitBreakers;
  readonly planner: AttemptPlanner;
  readonly pipeline: GenerationPipeline;
  /** The MCP servers whose tools requests may name (the operator's, of the config in force; mcp/mcp-registry.ts). */
  readonly mcp: McpRegistry;
  /** Scrubs upstream credentials from what goes to clients and logs. */
  readonly scrubber: SecretScrubber;
  /** The configuration generation in force. */
  readonly current: ConfigGeneration;
  /** The last reload attempt (null before any). */
  readonly lastReload: ReloadResult | null;
  /** Deletes generation records past their retention (records-retention.ts), every `records.prune_interval_minutes` and on demand. */
  retention: RecordsRetention;
  /** Deletes webhook deliveries, MCP tool calls and budget alerts past their retention (governance-retention.ts), every `retention.prune_interval_minutes`. */
  governanceRetention: GovernanceRetention;
  /** Accounts' members: add, change, remove, ensureMember (billing/member-service.ts). */
  members: MemberService;
  /** Accounts' webhooks: emit() queues an event, a loop off the request path delivers it (webhooks/webhook-dispatcher.ts). */
  webhooks: WebhookDispatcher;
  /** Seals and opens webhooks' signing secrets (webhooks/webhook-secrets.ts). */
  webhookSecrets: WebhookSecrets;
  /** Accounts' own provider keys (docs/byok.md): stored sealed, used for their requests. */
  byok: ByokKeys;
  /** Model calls running; draining once a graceful stop began. */
  inFlight: InFlight;
  /** False once the database's serve lease is lost (always true in a fleet: no lease, instances are many). */
  readonly leaseHeld: boolean;
  /** Why the database refused the last lease renewal (a write, every second), or null. */
  readonly databaseWriteError: string | null;
  /**
   * Loads the configuration again (`load` throws on a bad file) and swaps it in for new
   * requests; a config that cannot serve, or changes a restart-only field, is refused and
   * the one in force stays. The outcome is also written to the database (reload-status.ts).
   */
  reload(load: () => GatewayConfig): ReloadResult;
  /**
   * Reloads from where the configuration came from (ServiceOptions.loadConfigAgain, else its
   * file), as SIGHUP does; null when there is nothing to read again (a config built in memory).
   */
  reloadAgain(): ReloadResult | null;
  /** Metrics (GET /metrics), the request log (JSON lines on stdout) and traces (OTLP, when configured). */
  telemetry: Telemetry;
  /**
   * Once the gateway serves: one memory-reducing collection on the main thread and on the
   * SQLite writer thread, so that the garbage of the start-up is not kept as resident memory
   * (runtime/compact-heap.ts).
   */
  compactHeapAfterStart(): Promise<void>;
  /**
   * How the operator runs `switchyard` (runtime/cli-invocation.ts): `invocation` against this
   * database, for the operator's own output; `command` names no path, for answers to clients.
   */
  readonly cli: { invocation: string; command: string };
  close(): Promise<void>;
}

export type ReloadResult =
  | { ok: true; attempt: number; generation: number; at: string; models: number; warnings: string[] }
  | { ok: false; attempt: number; generation: number; at: string; error: string };

export interface ServiceOptions {
  env: Record<string, string | undefined>;
  log?: (message: string) => void;
  /** How often stale credit holds are swept (default: the hold grace period). */
  holdSweepMs?: number;
  /** The uniform source of routing's weighted draw (default Math.random); tests seed it. */
  random?: () => number;
  /** The serve lease of the database was lost (store/sqlite/serve-lock.ts): this process must stop serving. */
  onLeaseLost?: (reason: string) => void;
  /** Where the request log's JSON lines go (default stdout; tests capture them). */
  logDestination?: DestinationStream;
  /** Where `log` writes (serve: stderr), for its count of dropped lines in /metrics. */
  operatorLogSink?: LogSink;
  /** The clock of requests, credit holds and key limit periods (default Date.now); tests inject one to cross a period. */
  now?: () => number;
  /**
   * A fleet instance's Redis pieces (fleet-services.ts: holds, rate limits, invalidation),
   * built and connected by the caller; closed with the services. Absent: everything in process.
   */
  fleet?: FleetServices;
  /** The writer thread's timings (store/sqlite/sqlite-writer/sqlite-writer.ts). */
  writer?: Omit<SqliteWriterOptions, 'log'>;
  /** How the operator runs `switchyard` against this database (default: from `env` and the current folder; runtime/cli-invocation.ts). */
  cliInvocation?: string;
  /**
   * Reads the configuration again as the gateway was started (serve: the file and the
   * command line's --host/--port), for a reload asked over HTTP (POST /admin/config/reload).
   * Absent: the file the config came from, when it came from one.
   */
  loadConfigAgain?: () => GatewayConfig;
  /** Told the outcome of each reload asked over HTTP (serve logs it; a worker's accepted one makes the other workers reload too). */
  onHttpReload?: (result: ReloadResult) => void;
}

export async function createServices(config: GatewayConfig, opts: ServiceOptions): Promise<Services> {
  const adapters = builtinAdapters();
  // The catalog first: a config mistake stops the start before any file is created.
  const firstCatalog = buildCatalog(config, opts.env, adapters);
  // So is a master key that cannot be read (byok.master_key).
  const master = masterKeyFromRef(config.byok.masterKey, opts.env);
  const stores = await openStores(config, opts.env);
  // Log lines go through the scrubber of the generation in force (and the process's: scrub-secrets.ts).
  const log = (m: string): void => (opts.log === undefined ? logSafely(m) : opts.log(current.scrubber.text(m)));
  // A credit hold may outlive its request's deadline by a grace before it counts as stale.
  const holdMs = config.timeouts.requestMs + config.timeouts.holdGraceMs;
  let engine: EngineParts;
  try {
    engine = await engineParts(stores, config, opts, log, holdMs);
  } catch (err) {
    await stores.stores.close();
    throw err;
  }
  const { lock, writer, fleet } = engine;
  const settlements = new SettlementQueue(engine.settleOn, { log });
  const health = new InProcessHealthStore();
  const breakers = new CircuitBreakers();
  // Built once (it outlives reloads); it reads the catalog and scrubber of the generation in force.
  const telemetry = buildTelemetry(config, opts, () => current.catalog, () => current.scrubber, breakers, settlements);
  const upstream = new UpstreamClient({ observer: telemetry });
  const reservations: CreditHolds = fleet === null
    ? new CreditReservations(engine.holdStore!, settlements, {
      holdMs,
      ...(opts.now === undefined ? {} : { now: opts.now }),
    })
    : fleet.creditHolds(settlements, async (keyHash) => (await stores.accounts.getKey(keyHash))?.accountId,
      // On Postgres, hold rows too: the requests of an instance that died are recorded as interrupted.
      engine.releaseStaleRows === null ? undefined : { holdMs, write: (h) => settlements.pushHold(h), releaseStale: engine.releaseStaleRows });
  // Accounts' own keys: built once (the master key is read at start); `webhooks` exists by the first request.
  const byok = buildByok(master, () => current.config, stores.stores, {
    log,
    emit: (accountId, data) => void webhooks.emit(accountId, 'byok.key_failed', data).catch((err: unknown) => log(`webhook byok.key_failed not queued: ${(err as Error)?.message ?? 'unknown'}`)),
    ...(opts.now === undefined ? {} : { now: opts.now }),
  });
  const shared: SharedState = {
    byok,
    env: opts.env,
    adapters,
    upstream,
    health,
    breakers,
    limiter: fleet?.limiter ?? new InProcessRateLimiter(),
    inFlight: fleet?.inFlight ?? new InProcessInFlightLimiter(),
    settlements,
    reservations,
    telemetry,
    sticky: new StickyRouting(fleet?.sticky ?? new InProcessStickyRoutes({ maxEntries: config.sticky.maxEntries }), log, maxEntriesPerAccount(config.sticky)),
    responseCacheStore: fleet?.responseCache ?? new InProcessResponseCacheStore({ maxTotalBytes: config.cache.maxTotalBytes }),
    // Read at start: the SSRF setting and the bounds of every exchange with an MCP server.
    mcpClient: new McpClient({
      allowPrivateAddresses: config.mcp.allowPrivateAddresses,
      callTimeoutMs: config.mcp.callTimeoutMs,
      maxResultBytes: config.mcp.maxResultBytes,
      clientInfo: { name: 'switchyard', version: buildInfo().version },
    }),
    mcpAccountServers: accountMcpServerSpecs(stores.stores),
    ...(fleet === null ? {} : { credentialUse: fleet.credentialUse }),
    log,
    ...(opts.random === undefined ? {} : { random: opts.random }),
    ...(opts.now === undefined ? {} : { now: opts.now }),
  };
  let current: ConfigGeneration;
  try {
    current = buildGeneration(config, shared, 1, firstCatalog);
  } catch (err) {
    void writer?.close();
    lock.release();
    await stores.stores.close();
    throw err;
  }
  // Upstream credentials never reach a client or a log line (scrub-secrets.ts).
  scrubInProcessLogs(current.scrubber);
  if (fleet === null) {
    // The embedded database has one gateway process: whatever it holds at start-up was left by a dead one.
    const released = reservations.releaseStale(true) as number;
    if (released > 0) log(`released ${released} credit hold(s) left by requests interrupted at the last shutdown`);
  }
  let stopIdleShrink: (() => void) | null = null;
  // A fleet: every instance reconciles the holds of instances that died (each step atomic, so running twice is harmless).
  const sweep = setInterval(() => {
    // Holds of requests whose settlements wait in memory (writes refused) are not stale.
    if (!settlements.failing) void sweepStaleHolds(reservations, log);
  }, opts.holdSweepMs ?? config.timeouts.holdGraceMs);
  sweep.unref();
  const retention = new RecordsRetention({
    listAccounts: () => stores.accounts.listAccounts(), step: engine.pruneStep, config: () => current.config,
    now: () => (opts.now ?? Date.now)(), log,
  });
  retention.start(config.records.pruneIntervalMs);
  const governanceRetention = new GovernanceRetention({ stores: stores.stores, config: () => current.config.retention, now: () => (opts.now ?? Date.now)(), log });
  governanceRetention.start(config.retention.pruneIntervalMs);
  // Account and key changes drop the caches at once when made here, and within the
  // writer's change check (100 ms) when another process (the operator CLI) made them; in a
  // fleet, through the Redis invalidation bus.
  const sessions = new SessionStore(stores.stores.sessions);
  const auth = new Authenticator(stores.accounts, {
    sessions: { isSessionToken, keyHashOf: (t) => sessions.keyHashOf(t) },
    members: stores.stores.members,
    ...(opts.now === undefined ? {} : { secretClock: opts.now }),
  });
  const dropCaches = (): void => {
    reservations.forget();
    auth.invalidate();
  };
  if (fleet === null) stores.accountService.onChange(dropCaches);
  // A fleet: the change is published (after the shared credit snapshot is forgotten), and
  // every instance, this one included, drops its auth cache when the message arrives.
  else stores.accountService.onChange((change) => void reservations.forget(change.keyHash, change.accountId));
  writer?.onExternalChange(dropCaches);
  const unsubscribe = fleet?.bus.subscribe((m) => auth.invalidate(m.kind === 'key' ? m.keyHash : undefined));

  let attempts = 0;
  let lastReload: ReloadResult | null = null;
  // Best effort, not awaited: a refused write loses only this report.
  void stores.stores.reloadStatus.write({ pid: process.pid, attempt: 0, generation: 1, ok: true, error: null, at: current.loadedAt });
  const reload = (load: () => GatewayConfig): ReloadResult => {
    attempts += 1;
    const at = new Date().toISOString();
    let result: ReloadResult;
    try {
      const next = load();
      const refused = restartOnlyChange(current.config, next);
      if (refused !== null) throw new Error(refused);
      const built = buildGeneration(next, shared, current.generation + 1);
      // The swap: one synchronous step, so every new request sees the whole new config.
      current = built;
      // The one tier map (account service, key status, rate limits) is refilled in the same step.
      const tiers = stores.tiers as Map<string, TierLimits>;
      tiers.clear();
      for (const t of built.tierList) tiers.set(t.id, t);
      stores.accountService.bounds.maxKeys = next.accounts.maxKeys;
      scrubInProcessLogs(built.scrubber);
      result = { ok: true, attempt: attempts, generation: built.generation, at, models: built.catalog.models.length, warnings: built.catalogWarnings };
    } catch (err) {
      // A config error may quote the file: scrubbed with what is known of its secrets.
      result = { ok: false, attempt: attempts, generation: current.generation, at, error: current.scrubber.text((err as Error).message) };
    }
    lastReload = result;
    void stores.stores.reloadStatus.write({
      pid: process.pid,
      attempt: result.attempt,
      generation: result.generation,
      ok: result.ok,
      error: result.ok ? null : result.error,
      at,
    });
    return result;
  };

  const sourceFile = config.source?.file;
  const loadAgain = opts.loadConfigAgain ?? (sourceFile === undefined ? undefined : () => loadConfig({ path: sourceFile, env: opts.env }));
  const reloadAgain = (): ReloadResult | null => {
    if (loadAgain === undefined) return null;
    const result = reload(loadAgain);
    opts.onHttpReload?.(result);
    return result;
  };

  // Webhook secrets sealed at rest: those still in clear (before migration 24) are sealed before the first delivery.
  const webhookSecrets = webhookSecretsFor(master, stores.stores.engine === 'sqlite' ? config.database.path : null);
  const resealed = await webhookSecrets.sealAtRest(stores.stores);
  if (resealed > 0) log(`sealed ${resealed} webhook signing secret(s) at rest`);
  if (webhookSecrets.key === null && (await stores.stores.webhooks.all()).some((w) => w.secretKey === null)) {
    log('webhooks: signing secrets are in clear in the database and no key seals them: set byok.master_key (docs/security.md#webhook-secrets)');
  }
  const webhooks = new WebhookDispatcher({ stores: stores.stores, config: () => current.config.webhooks, now: opts.now ?? Date.now, log, secrets: webhookSecrets });
  webhooks.start();
  const members = new MemberService(stores.stores, {
    // At once here; on the other instances of a fleet when the bus's message arrives.
    changed: (accountId) => {
      auth.invalidate();
      stores.accountService.announce({ accountId });
    },
    keyChanged: (accountId, keyHash) => {
      auth.invalidate(keyHash);
      stores.accountService.announce({ accountId, keyHash });
    },
    emit: (accountId, type, data) => webhooks.emit(accountId, type, data),
  });
  return {
    get config() {
      return current.config;
    },
    ...stores,
    webhooks,
    webhookSecrets,
    members,
    byok,
    auth,
    get catalog() {
      return current.catalog;
    },
    get catalogWarnings() {
      return current.catalogWarnings;
    },
    sessions,
    adapters,
    upstream,
    settlements,
    retention,
    governanceRetention,
    writer,
    settled: () => settlements.flush(),
    reservations,
    keyPeriodUsage: stores.stores.keyUsage,
    now: opts.now ?? Date.now,
    fleet,
    health,
    breakers,
    get planner() {
      return current.planner;
    },
    get pipeline() {
      return current.pipeline;
    },
    get mcp() {
      return current.mcp;
    },
    get scrubber() {
      return current.scrubber;
    },
    get current() {
      return current;
    },
    get lastReload() {
      return lastReload;
    },
    inFlight: new InFlight(),
    get leaseHeld() {
      return lock.held;
    },
    get databaseWriteError() {
      return lock.lastWriteError;
    },
    reload,
    reloadAgain,
    telemetry,
    cli: {
      invocation: opts.cliInvocation ?? cliInvocation({ env: opts.env, cwd: process.cwd() }),
      command: cliCommand({ env: opts.env, cwd: process.cwd() }) ?? 'switchyard',
    },
    async compactHeapAfterStart() {
      const shrink = async (): Promise<void> => {
        compactHeap();
        // Best effort: a writer thread restarting just now starts with a small heap anyway.
        await writer?.compactHeap().catch(() => {});
      };
      await shrink();
      // And again whenever a busy spell is over (runtime/idle-heap-shrink.ts).
      stopIdleShrink ??= shrinkHeapWhenIdle(shrink);
    },
    async close() {
      clearInterval(sweep);
      stopIdleShrink?.();
      await retention.stop();
      await governanceRetention.stop();
      await webhooks.stop();
      // Flush, then end the writer thread, then release the lease (the next gateway may start).
      await settlements.close();
      await upstream.close();
      await shared.mcpClient.close();
      await telemetry.tracing?.shutdown();
      unsubscribe?.();
      await fleet?.close();
      await writer?.close();
      lock.release();
      await stores.stores.close();
    },
  };
}

/** Metrics (unless `metrics.enabled: false`), the request log at `LOG_LEVEL`, traces when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. */
function buildTelemetry(
  config: GatewayConfig,
  opts: ServiceOptions,
  catalog: () => Catalog,
  scrubber: () => SecretScrubber,
  breakers: CircuitBreakers,
  settlements: SettlementQueue,
): Telemetry {
  const level = logLevelFromEnv(opts.env);
  // The request log: a test's destination, else stdout through a sink that never blocks (null on a terminal).
  const logSink = opts.logDestination === undefined ? stdoutLogSink(level) : null;
  const destination = opts.logDestination ?? logSink ?? undefined;
  const metrics = config.metrics.enabled
    ? new GatewayMetrics({
      endpoints: () => catalog().models.flatMap((m) => m.endpoints.map((e) => e.id)),
      circuitState: (id) => breakers.state(id),
      settlementQueueDepth: () => settlements.queued,
      settlementFailing: () => settlements.failing,
      logLinesDropped: () => ({ stdout: logSink?.dropped ?? 0, stderr: opts.operatorLogSink?.dropped ?? 0 }),
    })
    : null;
  const url = tracesEndpoint(opts.env);
  const telemetry = new Telemetry({
    metrics,
    log: createRequestLogger({ level, ...(destination === undefined ? {} : { destination }) }),
    logSink,
    tracing: url === null ? null : new GatewayTracing(url, buildInfo().version, opts.env),
    scrubber,
    knownModel: (id) => catalog().get(id) !== undefined,
  });
  breakers.onOpen((id, failures) => telemetry.circuitOpened(id, failures));
  settlements.onDropped((record) => telemetry.settlementDropped(record));
  return telemetry;
}

/** The periodic sweep: holds of requests that outlived their deadline (a write failure must not crash the process). */
async function sweepStaleHolds(reservations: CreditHolds, log: (message: string) => void): Promise<void> {
  try {
    const released = await reservations.releaseStale(false);
    if (released > 0) log(`released ${released} stale credit hold(s)`);
  } catch (err) {
    log(`stale-hold sweep failed: ${(err as Error).message}`);
  }
}

export { openStores, type OpenedStores } from './open-stores.ts';
