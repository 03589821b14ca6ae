import { loadConfig } from '../config/load-config.ts';
import type { GatewayConfig } from '../config/types.ts';
import { UsageError } from './output.ts';

/** The config as the CLI sees it: flags over environment over file over defaults. */
export function loadCliConfig(values: { config?: string; host?: string; port?: string }): GatewayConfig {
  const opts: { path?: string; env: Record<string, string | undefined> } = { env: process.env };
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
