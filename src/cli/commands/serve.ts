import type { Command } from 'commander';
import { examples } from '../common-options.ts';
import { runServe } from '../serve-command.ts';

export function serveCommand(program: Command): void {
  examples(
    program
      .command('serve')
      .description('run the gateway (creates the database and the operator account on the first start)')
      .option('--config <path>', 'the config file (default: env SWITCHYARD_CONFIG)')
      .option('--host <host>', 'listen address (default: env HOST, server.host, 127.0.0.1)')
      .option('--port <port>', 'listen port (default: env PORT, server.port, 8080; 0 picks a free one)')
      .option(
        '--workers <n>',
        'gateway processes sharing the port, or auto (one per core); more than 1 needs DATABASE_URL=postgres://… and REDIS_URL (default: env SWITCHYARD_WORKERS, 1)',
      ),
    [
      'switchyard serve',
      'switchyard serve --config switchyard.yaml --port 9000',
      'DATABASE_URL=postgres://sy:pw@db/sy REDIS_URL=redis://cache:6379 switchyard serve --workers auto',
    ],
  ).action(async (o: { config?: string; host?: string; port?: string; workers?: string }) => {
    await runServe(o);
  });
}
