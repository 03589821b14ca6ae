import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { openStores } from '../../server/open-stores.ts';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { loadCliConfig } from '../load-cli-config.ts';
import { emit } from '../output.ts';

export function initCommand(program: Command): void {
  examples(
    withCommonOptions(
      program.command('init').description('create the database where the config points (serve also creates it on its first start)'),
    ),
    ['switchyard init', 'SWITCHYARD_DATA_DIR=/var/lib/switchyard switchyard init'],
  ).action(async (o: CommonOptions) => {
    const config = loadCliConfig(o, 'stores');
    if (config.database.url !== undefined) {
      // Postgres: opening runs the migrations (under the advisory lock).
      await (await openStores(config)).stores.close();
      emit(o.json, { database: 'postgres', created: false }, () => 'Postgres schema up to date');
      return;
    }
    const path = resolve(config.database.path);
    const existed = existsSync(config.database.path);
    // Opening creates the file and brings its schema up to date.
    await (await openStores(config)).stores.close();
    emit(o.json, { database: path, created: !existed }, () =>
      existed ? `database already at ${path}; schema up to date` : `created database at ${path}`,
    );
  });
}
