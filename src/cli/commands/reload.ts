import type { Command } from 'commander';
import { examples } from '../common-options.ts';
import { runReload } from '../reload-command.ts';
import { ReportedFailure } from '../output.ts';

export function reloadCommand(program: Command): void {
  examples(
    program
      .command('reload')
      .description('ask the running gateway (on this host) to load its config file again; says whether it was accepted')
      .option('--config <path>', 'the config file, which also names the database the gateway serves')
      .option('--json', 'the outcome as JSON'),
    ['switchyard reload', 'switchyard reload --config switchyard.yaml --json'],
  ).action(async (o: { config?: string; json?: boolean }) => {
    // runReload has printed the gateway's answer; a refusal or no answer is a failure (exit 1).
    if ((await runReload(o)) !== 0) throw new ReportedFailure();
  });
}
