import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GatewayConfig } from '../config/types.ts';
import { openStores } from '../server/services.ts';
import { loadCliConfig } from './load-cli-config.ts';
import type { CommonOptions } from './common-options.ts';
import { UsageError } from './output.ts';

export type CliStores = ReturnType<typeof openStores> & { config: GatewayConfig };

/**
 * The gateway's database for a command that reads or changes it. Never creates one: only
 * `serve` and `init` do, so a command run from the wrong folder says where it looked
 * instead of making an empty database there.
 */
export function openCliStores(opts: CommonOptions): CliStores {
  const config = loadCliConfig(opts);
  const path = config.database.path;
  if (path !== ':memory:' && !existsSync(path)) {
    throw new UsageError(
      `no switchyard database at ${resolve(path)} (${whereFrom(config, opts)}).\n` +
      'Point at the gateway\'s database with --config PATH (its database.path), SWITCHYARD_DATA_DIR=DIR or DATABASE_URL=sqlite:PATH,\n' +
      'or create a new one with `switchyard init`.',
    );
  }
  return { ...openStores(config), config };
}

/** Runs fn on the stores and closes them whatever happens. */
export function withStores<T>(opts: CommonOptions, fn: (stores: CliStores) => T): T {
  const stores = openCliStores(opts);
  try {
    return fn(stores);
  } finally {
    stores.db.close();
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
