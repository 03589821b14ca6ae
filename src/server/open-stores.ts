import { AccountService } from '../billing/account-service.ts';
import type { SettlementQueue } from '../billing/settlement-queue.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { TierTable } from '../config/tier-limits.ts';
import { selectBackends } from '../shared/select-backends.ts';
import { ExternalChangeWatcher } from '../store/external-change-watcher.ts';
import { startWalCheckpoints } from '../store/open-database.ts';
import { openPostgresStores } from '../store/postgres/postgres-stores.ts';
import { ReservationStore } from '../store/reservation-store.ts';
import { ServeLock } from '../store/serve-lock.ts';
import { openSqliteStores } from '../store/sqlite-stores.ts';
import type { Stores } from '../store/store-contract.ts';
import { AuthFedSpendStates, PendingSettlementsLedger } from './fleet-interim-adapters.ts';
import type { ServiceOptions, Services } from './services.ts';

// The stores a gateway or a CLI command runs on, and what differs between one process on
// SQLite and a fleet on Postgres (the composition root, services.ts, uses both).

export type OpenedStores = Pick<Services, 'stores' | 'backends' | 'accounts' | 'ledger' | 'generations' | 'accountService' | 'tiers'>;

/**
 * Opens the database the config and env select (selectBackends: SQLite, or Postgres with
 * its migrations run under the advisory lock) and builds the stores only (what the CLI's
 * account commands need). Close with `stores.close()`.
 */
export async function openStores(config: GatewayConfig, env: Record<string, string | undefined> = process.env): Promise<OpenedStores> {
  const backends = selectBackends(env, { ...(config.database.url === undefined ? {} : { databaseUrl: config.database.url }), ...(config.redis.url === undefined ? {} : { redisUrl: config.redis.url }) });
  const stores: Stores = backends.kind === 'sqlite' ? openSqliteStores(config) : await openPostgresStores(backends.databaseUrl);
  const tiers: TierTable = new Map(config.tiers.map((t) => [t.id, t]));
  return {
    stores, backends, accounts: stores.accounts, ledger: stores.ledger, generations: stores.generations,
    accountService: new AccountService(stores, tiers), tiers,
  };
}

/** What differs between one process on SQLite and a fleet on Postgres: the lease, the ledger of the queue, the holds' source. */
export interface EngineParts {
  lock: { readonly held: boolean; readonly lastWriteError: string | null; release(): void };
  settlementLedger: ConstructorParameters<typeof SettlementQueue>[0];
  holdStore: ReservationStore;
  watcher: ExternalChangeWatcher | null;
  spendStates: AuthFedSpendStates | null;
  pending: PendingSettlementsLedger | null;
  stopCheckpoints: () => void;
}

export function engineParts(opened: OpenedStores, config: GatewayConfig, opts: ServiceOptions, log: (m: string) => void): EngineParts {
  const stores = opened.stores;
  if (stores.engine === 'sqlite') {
    const { db, sync } = stores as ReturnType<typeof openSqliteStores>;
    const lock = ServeLock.acquire(db, config.database.path, { onLost: opts.onLeaseLost ?? ((reason) => log(reason)) });
    return {
      lock, settlementLedger: sync.ledger, holdStore: new ReservationStore(db), watcher: new ExternalChangeWatcher(db),
      spendStates: null, pending: null, stopCheckpoints: startWalCheckpoints(db),
    };
  }
  const pg = stores as Awaited<ReturnType<typeof openPostgresStores>>;
  // TODO(settlement), TODO(holds): interim adapters, see fleet-interim-adapters.ts.
  const pending = new PendingSettlementsLedger((holds, batch) => pg.settlements.settle(holds, batch), log);
  const spendStates = new AuthFedSpendStates();
  return {
    lock: { held: true, lastWriteError: null, release() {} },
    settlementLedger: pending,
    holdStore: spendStates as unknown as ReservationStore,
    watcher: null,
    spendStates,
    pending,
    stopCheckpoints: () => {},
  };
}

