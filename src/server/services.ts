import type { Authenticator } from '../auth/authenticate.ts';
import type { ByokKeys } from '../auth/byok-keys.ts';
import type { CreditHolds } from '../billing/credit-holds.ts';
import type { MemberService } from '../billing/member-service.ts';
import type { SettlementQueue } from '../billing/settlement-queue.ts';
import { buildCatalog } from '../catalog/build-catalog.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { Telemetry } from '../observability/telemetry.ts';
import { logSafely } from '../providers/http/scrub-secrets.ts';
import type { UpstreamClient } from '../providers/http/upstream-client.ts';
import { builtinAdapters } from '../providers/registry.ts';
import type { ProviderAdapter } from '../providers/types.ts';
import { CircuitBreakers } from '../routing/circuit-breaker.ts';
import type { HealthStore } from '../routing/health/health-store.ts';
import { cliCommand, cliInvocation } from '../runtime/cli-invocation.ts';
import { buildByok, masterKeyFromRef } from './build-byok.ts';
import type { SharedState } from './config-generation.ts';
import type { SessionStore } from './dashboard/session-store.ts';
import type { FleetServices } from './fleet-services.ts';
import { InFlight } from './in-flight.ts';
import { engineParts, openStores, type EngineParts, type OpenedStores, type SqliteWriter } from './open-stores.ts';
import type { RecordsRetention } from './records-retention.ts';
import type { GovernanceRetention } from './governance-retention.ts';
import type { WebhookSecrets } from './webhooks/webhook-secrets.ts';
import type { WebhookDispatcher } from './webhooks/webhook-dispatcher.ts';
import { dropCachesOnChange, wireAccess } from './wiring/access-wiring.ts';
import { startHoldSweep, wireCreditHolds, wireSettlements } from './wiring/billing-wiring.ts';
import { startGovernanceRetention, startRetention, wireMembers, wireWebhooks, wireWebhookSecrets } from './wiring/governance-wiring.ts';
import { wireInForce, type InForce } from './wiring/in-force.ts';
import { closeInOrder, heapCompaction } from './wiring/lifecycle-wiring.ts';
import { wireMcp } from './wiring/mcp-wiring.ts';
import { wireRouting } from './wiring/routing-wiring.ts';
import type { ServiceOptions } from './wiring/service-options.ts';
import { wireTelemetry } from './wiring/telemetry-wiring.ts';

/**
 * The composition root: every long-lived service, built once at boot from the groups of
 * wiring/ (docs/architecture.md, "The composition root"). Routes and components take the
 * few members they use, not this object (build-app.ts hands them out).
 */
export interface Services extends OpenedStores {
  /** The configuration in force (config, catalog, pipeline, …) and its reloads: read a field once per request. */
  inForce: InForce;
  // Billing (wiring/billing-wiring.ts).
  settlements: SettlementQueue;
  /** Credit holds: in this process (SQLite), or in Redis shared by a fleet. */
  reservations: CreditHolds;
  /** Resolves once every settlement the queue holds is written (SQLite or Postgres): the queue's flush. */
  settled(): Promise<void>;
  /** The clock of requests and key limit periods (epoch ms). */
  now: () => number;
  // Access (wiring/access-wiring.ts).
  auth: Authenticator;
  /** Dashboard sessions (a management or admin key exchanged for a cookie). */
  sessions: SessionStore;
  // Routing (wiring/routing-wiring.ts): shared by planner and executor, kept across reloads.
  adapters: ReadonlyMap<string, ProviderAdapter>;
  upstream: UpstreamClient;
  health: HealthStore;
  breakers: CircuitBreakers;
  /** Metrics (GET /metrics), the request log (JSON lines on stdout) and traces (OTLP, when configured). */
  telemetry: Telemetry;
  // The engine (open-stores.ts).
  /** The Redis pieces of a fleet instance, or null for one process on SQLite. */
  fleet: FleetServices | null;
  /**
   * The writer thread that commits the settlements, checkpoints the WAL and renews the
   * serve lease on its own connection (store/sqlite-writer/); null for an in-memory
   * database, whose settlements are written on `db`, and in a fleet (Postgres).
   */
  writer: SqliteWriter | null;
  /**
   * The database's serve lease: `held` is false once lost (always true in a fleet: no lease,
   * instances are many); `lastWriteError` is why the database refused the last renewal, or null.
   */
  lease: { readonly held: boolean; readonly lastWriteError: string | null };
  // Governance (wiring/governance-wiring.ts).
  /** Deletes generation records past their retention (records-retention.ts), every `records.prune_interval_minutes` and on demand. */
  retention: RecordsRetention;
  /** Deletes webhook deliveries, MCP tool calls and budget alerts past their retention (governance-retention.ts), every `retention.prune_interval_minutes`. */
  governanceRetention: GovernanceRetention;
  /** Seals and opens webhooks' signing secrets (webhooks/webhook-secrets.ts). */
  webhookSecrets: WebhookSecrets;
  /** Accounts' members: add, change, remove, ensureMember (billing/member-service.ts). */
  members: MemberService;
  /** Accounts' webhooks: emit() queues an event, a loop off the request path delivers it (webhooks/webhook-dispatcher.ts). */
  webhooks: WebhookDispatcher;
  /** Accounts' own provider keys (docs/byok.md): stored sealed, used for their requests. */
  byok: ByokKeys;
  /** Model calls running; draining once a graceful stop began. */
  inFlight: InFlight;
  /**
   * How the operator runs `switchyard` (runtime/cli-invocation.ts): `invocation` against this
   * database, for the operator's own output; `command` names no path, for answers to clients.
   */
  readonly cli: { invocation: string; command: string };
  /**
   * Once the gateway serves: one memory-reducing collection on the main thread and on the
   * SQLite writer thread, so that the garbage of the start-up is not kept as resident memory
   * (runtime/compact-heap.ts).
   */
  compactHeapAfterStart(): Promise<void>;
  close(): Promise<void>;
}

export async function createServices(config: GatewayConfig, opts: ServiceOptions): Promise<Services> {
  const adapters = builtinAdapters();
  // The catalog first: a config mistake stops the start before any file is created.
  const firstCatalog = buildCatalog(config, opts.env, adapters);
  // So is a master key that cannot be read (byok.master_key).
  const master = masterKeyFromRef(config.byok.masterKey, opts.env);
  const opened = await openStores(config, opts.env);
  const { stores } = opened;
  // Log lines go through the scrubber of the generation in force (and the process's: scrub-secrets.ts).
  // Built below, once the stores, holds and webhooks it needs exist; a line logged before
  // then (webhook secrets sealed at start) goes out with the process's own scrubbing.
  let inForce: InForce;
  const log = (m: string): void => {
    const built = inForce as InForce | undefined;
    if (opts.log === undefined) logSafely(m);
    else opts.log(built === undefined ? m : built.scrubber.text(m));
  };
  const now = opts.now ?? Date.now;
  const configInForce = (): GatewayConfig => inForce.config;
  // A credit hold may outlive its request's deadline by a grace before it counts as stale.
  const holdMs = config.timeouts.requestMs + config.timeouts.holdGraceMs;
  let engine: EngineParts;
  try {
    engine = await engineParts(opened, config, opts, log, holdMs);
  } catch (err) {
    await stores.close();
    throw err;
  }
  const { lock, writer, fleet } = engine;
  const settlements = wireSettlements(engine, log, config.timeouts.holdJournalMs);
  const breakers = new CircuitBreakers();
  const telemetry = wireTelemetry(
    config,
    opts,
    () => inForce.catalog,
    () => inForce.scrubber,
    breakers,
    settlements,
  );
  const routing = wireRouting(config, fleet, telemetry, log);
  const reservations = wireCreditHolds(engine, settlements, stores.accounts, holdMs, opts.now);
  // Built now, started below: byok emits its events through it.
  // Webhook secrets sealed at rest: those still in clear (before migration 24) are sealed before the first delivery.
  const webhookSecrets = await wireWebhookSecrets(master, config, stores, log);
  const webhooks = wireWebhooks(stores, configInForce, now, log, webhookSecrets);
  // Accounts' own keys: built once (the master key is read at start).
  const byok = buildByok(master, configInForce, stores, {
    log,
    emit: (accountId, data) =>
      void webhooks
        .emit(accountId, 'byok.key_failed', data)
        .catch((err: unknown) => log(`webhook byok.key_failed not queued: ${(err as Error)?.message ?? 'unknown'}`)),
    ...(opts.now === undefined ? {} : { now: opts.now }),
  });
  const mcp = wireMcp(config, stores);
  const shared: SharedState = {
    ...routing,
    ...mcp,
    byok,
    env: opts.env,
    adapters,
    breakers,
    settlements,
    reservations,
    telemetry,
    log,
    ...(opts.random === undefined ? {} : { random: opts.random }),
    ...(opts.now === undefined ? {} : { now: opts.now }),
  };
  try {
    inForce = wireInForce(config, shared, firstCatalog, opened, opts);
  } catch (err) {
    void writer?.close();
    lock.release();
    await stores.close();
    throw err;
  }
  const stopSweep = startHoldSweep(reservations, settlements, fleet === null, opts.holdSweepMs ?? config.timeouts.holdGraceMs, log);
  const retention = startRetention(stores, engine, configInForce, () => now(), log);
  const governanceRetention = startGovernanceRetention(stores, configInForce, () => now(), log);
  const { auth, sessions } = wireAccess(stores.accounts, stores, opts.now);
  const unsubscribe = dropCachesOnChange(auth, reservations, opened.accountService, writer, fleet);
  webhooks.start();
  const members = wireMembers(stores, auth, opened.accountService, webhooks);
  const heap = heapCompaction(writer);
  return {
    ...opened,
    inForce,
    settlements,
    reservations,
    settled: () => settlements.flush(),
    now,
    auth,
    sessions,
    adapters,
    upstream: routing.upstream,
    health: routing.health,
    breakers,
    telemetry,
    fleet,
    writer,
    lease: lock,
    retention,
    governanceRetention,
    webhookSecrets,
    members,
    webhooks,
    byok,
    inFlight: new InFlight(),
    cli: {
      invocation: opts.cliInvocation ?? cliInvocation({ env: opts.env, cwd: process.cwd() }),
      command: cliCommand({ env: opts.env, cwd: process.cwd() }) ?? 'switchyard',
    },
    compactHeapAfterStart: () => heap.afterStart(),
    close: () =>
      closeInOrder({
        stopTimers: () => {
          stopSweep();
          heap.stop();
        },
        retention,
        governanceRetention,
        webhooks,
        settlements,
        upstream: routing.upstream,
        mcpClient: mcp.mcpClient,
        telemetry,
        unsubscribe,
        fleet,
        writer,
        lock,
        stores,
      }),
  };
}

export type { ServiceOptions } from './wiring/service-options.ts';
export type { InForce, ReloadResult } from './wiring/in-force.ts';
