// The gateway under test, in its own process: the real composition root (createServices,
// buildApp) with a temporary SQLite database, the config of the tests whose only provider
// is an OpenAI-format upstream serving `acme/mock-1`, and one account with ample credits
// and a key. Auth, rate limiting, admission and settlement (ledger writes) all run as in
// production; only the tier's limits are raised out of the benchmark's reach.
//
// Usage: node bench/gateway-server.ts <upstream base url, ending in /v1>. Prints
// {"port": N, "key": "..."} on stdout once listening; exits when stdin closes (the
// parent died) or on SIGTERM, and removes its temporary directory. Run it under
// `node --cpu-prof` to profile: the profile is written at that clean exit.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config/load-config.ts';
import { buildApp } from '../src/server/build-app.ts';
import { createServices } from '../src/server/services.ts';
import { emulatorConfig } from '../test/support/test-gateway.ts';

const upstreamBaseUrl = process.argv[2];
if (upstreamBaseUrl === undefined) {
  process.stderr.write('usage: gateway-server.ts <upstream base url>\n');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
// Also on a crash at start-up ('exit' runs for uncaught errors and process.exit).
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const configPath = join(dir, 'switchyard.yaml');
// Rate limiting stays on (every request is counted), with a tier whose limits the
// benchmark cannot reach: the enterprise tier, raised.
const BENCH_TIER = `tiers:
  enterprise:
    requests_per_minute: 1000000000
    requests_per_day: null
    account_requests_per_minute: null
`;
// Telemetry as in production (metrics on, one request log line per request at info),
// the log written to /dev/null: its cost counts, its lines do not reach the benchmark's
// pipe. BENCH_TELEMETRY=off turns metrics and the request log off (bench/telemetry-overhead.ts).
// BENCH_TELEMETRY=metrics or =log keeps only that one (to tell their costs apart).
const telemetry = process.env.BENCH_TELEMETRY ?? 'on';
const metricsOn = telemetry === 'on' || telemetry === 'metrics';
const logOn = telemetry === 'on' || telemetry === 'log';
writeFileSync(configPath, emulatorConfig(upstreamBaseUrl, BENCH_TIER + (metricsOn ? '' : 'metrics:\n  enabled: false\n')));
const env = { SWITCHYARD_DATA_DIR: dir, LOCAL_KEY: 'upstream-secret', LOG_LEVEL: logOn ? 'info' : 'silent' };
const config = loadConfig({ path: configPath, env });
config.server = { ...config.server, host: '127.0.0.1', port: 0 };

const services = await createServices(config, {
  env,
  log: (m) => process.stderr.write(`gateway: ${m}\n`),
  logDestination: pino.destination({ dest: '/dev/null', sync: true }),
});
for (const w of services.catalogWarnings) process.stderr.write(`gateway: catalog: ${w}\n`);
const account = await services.accountService.createAccount({ name: 'bench', type: 'user', tier: 'enterprise', creditsUsd: '1000000' });
const { key } = await services.accountService.createKey({ accountId: account.id, name: 'bench key' });
const app = buildApp(services);
await app.listen({ host: '127.0.0.1', port: 0 });

let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  // Held streams would keep close() waiting; the benchmark is over anyway.
  app.server.closeAllConnections();
  try {
    await Promise.race([
      (async () => {
        await app.close();
        await services.close();
      })(),
      new Promise((resolve) => setTimeout(resolve, 3000).unref()),
    ]);
  } finally {
    process.exit(0);
  }
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
process.stdin.on('close', () => void shutdown());
process.stdin.resume();

process.stdout.write(`${JSON.stringify({ port: (app.server.address() as AddressInfo).port, key })}\n`);
