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
import { AccountStore } from '../store/account-store.ts';
import { GenerationStore } from '../store/generation-store.ts';
import { LedgerStore } from '../store/ledger-store.ts';
import { openDatabase } from '../store/open-database.ts';

/** The composition root: every long-lived service, built once at boot. */
export interface Services {
  config: GatewayConfig;
  db: DatabaseSync;
  accounts: AccountStore;
  ledger: LedgerStore;
  generations: GenerationStore;
  accountService: AccountService;
  auth: Authenticator;
  catalog: Catalog;
  catalogWarnings: string[];
  adapters: ReadonlyMap<string, ProviderAdapter>;
  upstream: UpstreamClient;
  settlements: SettlementQueue;
  pipeline: GenerationPipeline;
  close(): Promise<void>;
}

export interface ServiceOptions {
  env: Record<string, string | undefined>;
  log?: (message: string) => void;
}

/** Opens the database and builds the stores only (what the CLI's account commands need). */
export function openStores(config: GatewayConfig): Pick<Services, 'db' | 'accounts' | 'ledger' | 'generations' | 'accountService'> {
  const db = openDatabase(config.database.path);
  const accounts = new AccountStore(db);
  const ledger = new LedgerStore(db);
  return { db, accounts, ledger, generations: new GenerationStore(db), accountService: new AccountService(accounts, ledger) };
}

export function createServices(config: GatewayConfig, opts: ServiceOptions): Services {
  const log = opts.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const stores = openStores(config);
  const adapters = builtinAdapters();
  const { catalog, warnings } = buildCatalog(config, opts.env, adapters);
  const upstream = new UpstreamClient();
  const settlements = new SettlementQueue(stores.ledger, (err) => log(`settlement failed: ${(err as Error).message}`));
  const executor = new AttemptExecutor({ adapters, client: upstream });
  const pipeline = new GenerationPipeline({
    catalog,
    accounts: stores.accounts,
    executor,
    settlements,
    timeouts: config.timeouts,
  });
  return {
    config,
    ...stores,
    auth: new Authenticator(stores.accounts),
    catalog,
    catalogWarnings: warnings,
    adapters,
    upstream,
    settlements,
    pipeline,
    async close() {
      settlements.flush();
      await upstream.close();
      stores.db.close();
    },
  };
}
