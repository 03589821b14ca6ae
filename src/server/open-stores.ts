import { AccountService } from '../billing/account-service.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { TierTable } from '../config/tier-limits.ts';
import { selectBackends, type Backends } from '../shared/select-backends.ts';
import type { SettlementWriter } from '../store/ledger-records.ts';
import type { PostgresStores } from '../store/postgres/postgres-stores.ts';
import { pruneStep } from '../store/sqlite/record-pruner.ts';
import type { PruneCutoff, PruneStep } from '../store/record-pruning.ts';
import { ServeLock } from '../store/sqlite/serve-lock.ts';
import { SqliteWriter } from '../store/sqlite/sqlite-writer/sqlite-writer.ts';
import { openSqliteStores, type SqliteStores } from '../store/sqlite/sqlite-stores.ts';
import type { Stores } from '../store/store-contract.ts';
import type { InProcessHoldData } from '../store/spend-state.ts';
import type { FleetServices } from './fleet-services.ts';
import type { ServiceOptions } from './wiring/service-options.ts';

// The stores a gateway or a CLI command runs on, and what differs between one process on
// SQLite and a fleet on Postgres and Redis (the composition root, services.ts, uses both).
// The one file above store/ that names an engine: it opens the store the configuration
// selects (store/sqlite/ or store/postgres/); everything else takes the contract
// (store/store-contract.ts). test/docs/layers.test.ts holds every other file to that.

/** The SQLite writer thread, as the composition root hands it out (null in a fleet). */
export type { SqliteWriter, SqliteWriterOptions } from '../store/sqlite/sqlite-writer/sqlite-writer.ts';

/** The stores group: the durable records and the account operations over them. */
export interface OpenedStores {
  /** The durable records: SQLite, or Postgres in a fleet (store/store-contract.ts). */
  stores: Stores;
  /** Which stores: `sqlite` (one process), or `fleet` (Postgres and Redis). */
  backends: Backends;
  /** Accounts and keys: create, credit, change (billing/account-service.ts); announces each change. */
  accountService: AccountService;
  /** The tiers in force: one map, updated in place by a reload. */
  tiers: TierTable;
}

/** The backends the config and env select (env first; `database.url` / `redis.url` of the file otherwise). */
export function configuredBackends(
  config: Pick<GatewayConfig, 'database' | 'redis'>,
  env: Record<string, string | undefined> = process.env,
): Backends {
  return selectBackends(env, {
    ...(config.database.url === undefined ? {} : { databaseUrl: config.database.url }),
    ...(config.redis.url === undefined ? {} : { redisUrl: config.redis.url }),
  });
}

/**
 * Opens the database the config and env select (SQLite, or Postgres with its migrations run
 * under the advisory lock) and builds the stores only (what the CLI's account commands
 * need). Close with `stores.close()`.
 */
export async function openStores(config: GatewayConfig, env: Record<string, string | undefined> = process.env): Promise<OpenedStores> {
  const backends = configuredBackends(config, env);
  const stores: Stores =
    backends.kind === 'sqlite'
      ? openSqliteStores(config)
      : await (await import('../store/postgres/postgres-stores.ts')).openPostgresStores(backends.databaseUrl);
  const tiers: TierTable = new Map(config.tiers.map((t) => [t.id, t]));
  return {
    stores,
    backends,
    accountService: new AccountService(stores, tiers, undefined, undefined, { maxKeys: config.accounts.maxKeys }),
    tiers,
  };
}

/** What differs between one process on SQLite and a fleet on Postgres: the lease, where settlements are written, the holds' source, Redis. */
export interface EngineParts {
  lock: { readonly held: boolean; readonly lastWriteError: string | null; release(): void };
  /** Where the settlement queue writes its batches (settle resolves after COMMIT). */
  settleOn: SettlementWriter;
  /** SQLite: the writer thread (null for an in-memory database). */
  writer: SqliteWriter | null;
  /** SQLite: the spend states of the in-process holds; null when the holds are in Redis. */
  holdStore: InProcessHoldData | null;
  /** The Redis pieces: built here in a fleet, or given (tests: SQLite with Redis holds). */
  fleet: FleetServices | null;
  /** Postgres: the sweep of hold rows left by instances that died (store/postgres/postgres-stale-holds.ts); null otherwise. */
  releaseStaleRows: ((beforeIso: string, nowIso: string) => Promise<number>) | null;
  /** One step of the records' pruning (store/sqlite/record-pruner.ts): on the SQLite writer thread, or on Postgres. */
  pruneStep: (cutoffs: readonly PruneCutoff[], start: number, limit: number) => Promise<PruneStep>;
}

export async function engineParts(
  opened: OpenedStores,
  config: GatewayConfig,
  opts: Pick<ServiceOptions, 'onLeaseLost' | 'writer' | 'fleet' | 'now'>,
  log: (m: string) => void,
  holdMs: number,
): Promise<EngineParts> {
  const stores = opened.stores;
  if (stores.engine === 'sqlite') {
    const { db, sync } = stores as SqliteStores;
    const lock = ServeLock.acquire(db, config.database.path, { onLost: opts.onLeaseLost ?? ((reason) => log(reason)) });
    // Settlements are committed and the lease renewed in the writer thread, the WAL
    // checkpointed in a thread of its own, so that no COMMIT, checkpoint or busy wait blocks
    // the event loop, and no checkpoint holds the writer.
    const writer = config.database.path === ':memory:' ? null : new SqliteWriter(config.database.path, { log, ...opts.writer });
    // This connection's own writes (the admin API's) do not checkpoint inside their COMMIT either.
    if (writer !== null) db.exec('PRAGMA wal_autocheckpoint = 0');
    const lease = lock.handOver();
    if (writer !== null && lease !== null) writer.renewLease(lease, (renewal) => lock.renewed(renewal));
    const settleOn: SettlementWriter = writer ?? { settle: async (holds, batch, refusals) => sync.ledger.settle(holds, batch, refusals) };
    const fleet = opts.fleet ?? null;
    const prune: EngineParts['pruneStep'] =
      writer !== null
        ? (cutoffs, start, limit) => writer.prune(cutoffs, start, limit)
        : async (cutoffs, start, limit) => pruneStep(db, cutoffs, start, limit);
    return {
      lock,
      settleOn,
      writer,
      holdStore: fleet === null ? stores.inProcessHolds : null,
      fleet,
      releaseStaleRows: null,
      pruneStep: prune,
    };
  }
  // A fleet: no lease (instances are many); every batch is written to Postgres by the queue
  // itself (the answer's last byte waits for the COMMIT); holds, limits and invalidation in Redis.
  const pg = stores as PostgresStores;
  const backends = opened.backends as Extract<Backends, { kind: 'fleet' }>;
  const fleet =
    opts.fleet ??
    (await (
      await import('./fleet-services.ts')
    ).createFleetServices(backends, {
      loader: (_account, keyHash, ids, days) => stores.holds.loadSpendState(keyHash, ids, days),
      holdMs,
      log,
      ...(config.redis.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: config.redis.commandTimeoutMs }),
      ...(config.redis.inFlightLeaseMs === undefined ? {} : { inFlightLeaseMs: config.redis.inFlightLeaseMs }),
      // An injected clock (tests) decides the holds' periods too: one clock for requests, holds and the key APIs.
      ...(opts.now === undefined ? {} : { now: opts.now }),
    }));
  const { pruneStepPostgres } = await import('../store/postgres/postgres-record-pruner.ts');
  return {
    lock: { held: true, lastWriteError: null, release() {} },
    settleOn: pg.settlements,
    writer: null,
    holdStore: null,
    fleet,
    releaseStaleRows: (beforeIso, nowIso) => stores.holds.releaseStale(beforeIso, nowIso),
    pruneStep: (cutoffs, start, limit) => pruneStepPostgres(pg.pool, cutoffs, start, limit),
  };
}
