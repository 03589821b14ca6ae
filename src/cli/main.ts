import { parseArgs } from 'node:util';
import { ConfigError } from '../config/config-error.ts';
import { runAccountCommand } from './account-commands.ts';
import { UsageError } from './output.ts';
import { runServe } from './serve-command.ts';
import { runReload } from './reload-command.ts';
import { versionLine } from '../server/build-info.ts';

const HELP = `switchyard: a self-hosted model gateway

Usage:
  switchyard serve [--config PATH] [--host H] [--port P]
  switchyard reload [--config PATH]    (the serving gateway loads its config file again; says if it was accepted)
  switchyard --version
  switchyard accounts create --name N [--org] [--credits USD] [--tier T] [--default-model M]
  switchyard accounts update --account ID [--tier T] [--default-model M] [--active true|false]
                              [--rpm N] [--rpd N|none] (per-account rate-limit overrides; --clear-limits drops them)
  switchyard accounts list
  switchyard keys create --account ID [--name N] [--limit USD] [--expires ISO-DATE] [--management]
  switchyard keys list [--account ID]
  switchyard keys revoke HASH|LABEL    (final for the account: its management key cannot enable it again)
  switchyard keys enable HASH|LABEL    (lifts a revocation)
  switchyard credits add --account ID --amount USD      (a positive amount)
  switchyard credits adjust --account ID --amount=USD --reason TEXT
                              (an operator correction either way, e.g. --amount=-5 --reason "refund reversal")

Every command takes --config PATH (or SWITCHYARD_CONFIG) to find the database,
and --json for output that scripts can read.`;

const OPTIONS = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  json: { type: 'boolean', default: false },
  name: { type: 'string' },
  org: { type: 'boolean', default: false },
  credits: { type: 'string' },
  tier: { type: 'string' },
  'default-model': { type: 'string' },
  account: { type: 'string' },
  limit: { type: 'string' },
  expires: { type: 'string' },
  amount: { type: 'string' },
  reason: { type: 'string' },
  management: { type: 'boolean', default: false },
  active: { type: 'string' },
  rpm: { type: 'string' },
  rpd: { type: 'string' },
  'clear-limits': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const;

export type CliValues = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.version) {
    process.stdout.write(`${versionLine()}\n`);
    return 0;
  }
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  try {
    if (command === 'serve') return await runServe(values);
    if (command === 'reload') return await runReload(values);
    return runAccountCommand(command, rest, values);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    process.stderr.write(`error: ${(err as Error).message}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
