import cluster from 'node:cluster';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.ts';
import { accountsCommand } from './commands/accounts.ts';
import { configCommand } from './commands/config.ts';
import { creditsCommand } from './commands/credits.ts';
import { generationsCommand } from './commands/generations.ts';
import { initCommand } from './commands/init.ts';
import { keysCommand } from './commands/keys.ts';
import { membersCommand } from './commands/members.ts';
import { byokCommand } from './commands/byok.ts';
import { serveCommand } from './commands/serve.ts';
import { usageCommand } from './commands/usage.ts';
import { reloadCommand } from './commands/reload.ts';
import { migrateCommand } from './commands/migrate.ts';
import { auditCommand } from './commands/audit.ts';
import { ReportedFailure } from './output.ts';
import { versionLine } from '../config/build-info.ts';

/** The `switchyard` command: one module per command group under ./commands. */
export function buildProgram(): Command {
  const program = new Command('switchyard')
    .description('switchyard: a self-hosted model gateway, and the commands that operate it')
    .version(versionLine(), '-V, --version', 'print the version, the build and the Node version')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command]', 'show help for a command')
    .option('--config <path>', 'the config file, for any command (also accepted after the command)')
    // Settings below are inherited by every command added after them.
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  $ switchyard serve
  $ switchyard accounts create --name "Acme" --credits 50
  $ switchyard keys create --account acct_123 --name ci
  $ switchyard usage --account acct_123 --by model
  $ switchyard keys create --help

Every command takes --help, and --config PATH to pick the configuration (and with it the
database); commands that print take --json for scripts.
Exit codes: 0 success; 1 wrong input (unknown command, option or id, bad value) or failure.`,
    );
  // `switchyard --config X keys list` and `switchyard keys list --config X` alike: the top
  // level takes --config wherever it stands and hands it to the command that runs.
  program.hook('preAction', (_top, action) => {
    const config = program.getOptionValue('config') as string | undefined;
    if (config !== undefined && action.getOptionValue('config') === undefined) action.setOptionValue('config', config);
  });
  serveCommand(program);
  initCommand(program);
  configCommand(program);
  accountsCommand(program);
  keysCommand(program);
  membersCommand(program);
  creditsCommand(program);
  usageCommand(program);
  generationsCommand(program);
  reloadCommand(program);
  migrateCommand(program);
  auditCommand(program);
  byokCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    // The parser's own errors were printed already; help and --version end here too, with 0.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    if (err instanceof ReportedFailure) return 1;
    // ConfigError and UsageError messages say what to fix; anything else is a failure. Never a stack trace.
    const message = (err as Error).message ?? String(err);
    process.stderr.write(err instanceof ConfigError ? `${message}\n` : `error: ${message}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
// A worker of `serve --workers N` that could not start: its IPC channel to the primary
// would keep it alive (serve-cluster.ts).
if (code !== 0 && cluster.isWorker) process.exit(code);
