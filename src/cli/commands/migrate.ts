import type { Command } from 'commander';
import { examples } from '../common-options.ts';
import type { MigrateValues } from '../migrate-command.ts';
import { ReportedFailure } from '../output.ts';

export function migrateCommand(program: Command): void {
  examples(
    program
      .command('migrate')
      .description(
        'copy the SQLite database into Postgres (accounts, keys, ledger, generations, rollups, audit log, sessions) and verify every balance matches; stop the gateway first',
      )
      .requiredOption('--from <sqlite:path>', 'the SQLite database (sqlite:PATH), opened read-only')
      .requiredOption(
        '--to <postgres-url>',
        'the Postgres database (postgres://user:pass@host:port/db); its schema is created or brought up to date',
      )
      .option(
        '--force',
        'replace what the target holds (its rows are deleted, in the same transaction as the copy); without it a non-empty target is refused',
      )
      .option('--verify-only', "copy nothing: only compare the two databases' row counts, balances and key usage")
      .option('--json', 'the summary as JSON'),
    [
      'switchyard migrate --from sqlite:./data/switchyard.db --to postgres://switchyard:pw@db:5432/switchyard',
      'switchyard migrate --from sqlite:./data/switchyard.db --to "$DATABASE_URL" --verify-only',
    ],
  ).action(async (o: MigrateValues) => {
    // The summary is printed; a difference found by the verification is a failure (exit 1).
    // Loaded when run: a gateway that never migrates loads no Postgres client.
    const { runMigrate } = await import('../migrate-command.ts');
    if ((await runMigrate(o)) !== 0) throw new ReportedFailure();
  });
}
