import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GatewayConfig } from '../config/types.ts';
import type { AccountChange } from '../billing/account-service.ts';
import { openStores, type OpenedStores } from '../server/open-stores.ts';
import { loadCliConfig } from './load-cli-config.ts';
import type { CommonOptions } from './common-options.ts';
import { UsageError } from './output.ts';

export type CliStores = OpenedStores & { config: GatewayConfig };

/**
 * The gateway's database for a command that reads or changes it: SQLite, or Postgres when
 * DATABASE_URL (or `database.url`) names one (with REDIS_URL, as the gateway). Never creates
 * a SQLite file: only `serve` and `init` do, so a command run from the wrong folder says
 * where it looked instead of making an empty database there.
 */
export async function openCliStores(opts: CommonOptions): Promise<CliStores> {
  const config = loadCliConfig(opts, 'stores');
  const path = config.database.path;
  if (config.database.url === undefined && path !== ':memory:' && !existsSync(path)) {
    throw new UsageError(
      `no switchyard database at ${resolve(path)} (${whereFrom(config, opts)}).\n` +
        "Point at the gateway's database with --config PATH (its database.path), SWITCHYARD_DATA_DIR=DIR or DATABASE_URL=sqlite:PATH,\n" +
        'or create a new one with `switchyard init`.',
    );
  }
  return { ...(await openStores(config)), config };
}

/**
 * Runs fn on the stores and closes them whatever happens. In a fleet, the accounts and keys
 * fn changed are then announced through Redis (fleet-services.ts announceChanges), so every
 * instance drops them from its caches at once rather than within the snapshot's age.
 */
export async function withStores<T>(opts: CommonOptions, fn: (stores: CliStores) => T | Promise<T>): Promise<T> {
  const stores = await openCliStores(opts);
  const changes: AccountChange[] = [];
  stores.accountService.onChange((c) => changes.push(c));
  try {
    return await fn(stores);
  } finally {
    await stores.stores.close();
    if (stores.backends.kind === 'fleet' && changes.length > 0) {
      try {
        await (await import('../server/fleet-services.ts')).announceChanges(stores.backends.redisUrl, changes);
      } catch (err) {
        process.stderr.write(
          `switchyard: the change is saved, but Redis could not be told (${(err as Error).message}); ` +
            'gateways see it within 60 s (their credit snapshots) and 2 s (their key caches)\n',
        );
      }
    }
  }
}

function whereFrom(config: GatewayConfig, opts: CommonOptions): string {
  const env = process.env;
  if (env.DATABASE_URL !== undefined && env.DATABASE_URL !== '') return 'from DATABASE_URL';
  if (env.SWITCHYARD_DATA_DIR !== undefined && env.SWITCHYARD_DATA_DIR !== '') return `from SWITCHYARD_DATA_DIR=${env.SWITCHYARD_DATA_DIR}`;
  const file = config.source?.file ?? opts.config;
  if (file !== undefined && config.database.path !== './data/switchyard.db') return `from database.path in ${file}`;
  return `the default ./data/switchyard.db, relative to the current folder ${process.cwd()}`;
}
