import { loadConfig, type LoadConfigOptions } from '../config/load-config.ts';
import type { GatewayConfig } from '../config/types.ts';
import { UsageError } from './output.ts';

/**
 * The config as the CLI sees it: flags over environment over file over defaults.
 * `secrets: 'stores'` for a command that only opens the database: the providers' secret
 * references (env:, file:) are then not resolved, so it runs from a shell without them.
 */
export function loadCliConfig(values: { config?: string; host?: string; port?: string }, secrets: 'all' | 'stores' = 'all'): GatewayConfig {
  const opts: LoadConfigOptions = { env: process.env, secrets };
  if (values.config !== undefined) opts.path = values.config;
  const config = loadConfig(opts);
  if (values.host !== undefined) config.server.host = values.host;
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: "${values.port}" is not a port number`);
    config.server.port = port;
  }
  return config;
}
