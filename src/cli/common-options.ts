import type { Command } from 'commander';

/** What every command takes. */
export interface CommonOptions {
  config?: string;
  json?: boolean;
}

/** Adds --config and --json to a command (every command has both). */
export function withCommonOptions(cmd: Command): Command {
  return cmd
    .option(
      '--config <path>',
      "the gateway's config file (default: env SWITCHYARD_CONFIG; the database follows its database.path, SWITCHYARD_DATA_DIR or DATABASE_URL)",
    )
    .option('--json', 'print one JSON document, for scripts');
}

/** Help text: examples under a command's options. */
export function examples(cmd: Command, lines: readonly string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`);
}
