// The gateway under test, in its own process: the real composition root (createServices,
// buildApp) with a temporary SQLite database (or, with DATABASE_URL and REDIS_URL set, as a fleet instance), the benchmark's config (bench/lib/switchyard-config.ts:
// two moderated OpenAI-format providers serving `acme/mock-1`), and one account with ample
// credits and a key. Auth, rate limiting, credit holds, moderation, routing and settlement
// before the last byte (ledger writes) all run as in production; only the tier's limits are
// raised out of the benchmark's reach.
//
// Usage: node bench/gateway-server.ts <upstream base url, ending in /v1>. Prints
// {"port": N, "key": "..."} on stdout once listening; exits when stdin closes (the
// parent died) or on SIGTERM, and removes its temporary directory. Run it under
// `node --cpu-prof` to profile: the profile is written at that clean exit.

import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { LogSink, REQUEST_LOG_BATCH } from '../src/observability/log-sink.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { buildApp } from '../src/server/build-app.ts';
import { createServices } from '../src/server/services.ts';
import { BENCH_TIER, switchyardConfig, UPSTREAM_KEY, UPSTREAM_KEY_ENV } from './lib/switchyard-config.ts';

const upstreamBaseUrl = process.argv[2];
if (upstreamBaseUrl === undefined) {
  process.stderr.write('usage: gateway-server.ts <upstream base url>\n');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
// Also on a crash at start-up ('exit' runs for uncaught errors and process.exit).
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const configPath = join(dir, 'switchyard.yaml');
// Telemetry as in production (metrics on, one request log line per request at info),
// the log written to /dev/null: its cost counts, its lines do not reach the benchmark's
// pipe. BENCH_TELEMETRY=off turns metrics and the request log off (bench/telemetry-overhead.ts).
// BENCH_TELEMETRY=metrics or =log keeps only that one (to tell their costs apart).
const telemetry = process.env.BENCH_TELEMETRY ?? 'on';
const metricsOn = telemetry === 'on' || telemetry === 'metrics';
const logOn = telemetry === 'on' || telemetry === 'log';
writeFileSync(configPath, switchyardConfig({ upstreamBaseUrl, metrics: metricsOn }));
// A fleet instance when DATABASE_URL and REDIS_URL are set (bench/profile-load.ts --fleet).
const fleetEnv = process.env.DATABASE_URL === undefined ? {} : { DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL };
const env = { SWITCHYARD_DATA_DIR: dir, [UPSTREAM_KEY_ENV]: UPSTREAM_KEY, LOG_LEVEL: logOn ? 'info' : 'silent', ...fleetEnv };
const config = loadConfig({ path: configPath, env });
config.server = { ...config.server, host: '127.0.0.1', port: 0 };

const services = await createServices(config, {
  env,
  log: (m) => process.stderr.write(`gateway: ${m}\n`),
  logDestination: new LogSink(createWriteStream('/dev/null'), REQUEST_LOG_BATCH), // as production writes stdout: queued, one write per batch
});
for (const w of services.inForce.catalogWarnings) process.stderr.write(`gateway: catalog: ${w}\n`);
const account = await services.accountService.createAccount({ name: 'bench', type: 'user', tier: BENCH_TIER, creditsUsd: '1000000' });
const { key } = await services.accountService.createKey({ accountId: account.id, name: 'bench key' });
// As `switchyard serve` does: the tokenizers load on first need (src/canonical/bpe-tokenizers.ts), so idle memory is production's.
const app = buildApp(services);
await app.listen({ host: '127.0.0.1', port: 0 });
await services.compactHeapAfterStart(); // as `switchyard serve` does once it serves

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

// The event loop's delay, sampled every 1 ms (bench/event-loop-stalls.ts): a line "loop"
// on stdin answers with one JSON line of its figures since the last one, then resets.
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
// Garbage collection pauses in the same window (--trace-gc would write to stdout, which is this protocol's).
const gc = { young: { n: 0, ms: 0, maxMs: 0 }, full: { n: 0, ms: 0, maxMs: 0 } };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR ? gc.full : gc.young;
    kind.n++;
    kind.ms += e.duration;
    if (e.duration > kind.maxMs) kind.maxMs = e.duration;
  }
}).observe({ entryTypes: ['gc'] });
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text: string) => {
  if (!text.includes('loop')) return;
  const ms = (ns: number): number => Math.round(ns / 1e4) / 100;
  const usage = process.resourceUsage();
  const round = (k: { n: number; ms: number; maxMs: number }) => ({ n: k.n, ms: Math.round(k.ms), maxMs: Math.round(k.maxMs * 100) / 100 });
  process.stdout.write(
    `${JSON.stringify({
      loopDelayMs: {
        p50: ms(loopDelay.percentile(50)),
        p99: ms(loopDelay.percentile(99)),
        p999: ms(loopDelay.percentile(99.9)),
        max: ms(loopDelay.max),
      },
      gc: { young: round(gc.young), full: round(gc.full) },
      rssMb: Math.round(process.memoryUsage.rss() / 1e6),
      cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000),
    })}\n`,
  );
  loopDelay.reset();
  for (const k of [gc.young, gc.full]) Object.assign(k, { n: 0, ms: 0, maxMs: 0 });
});

process.stdout.write(`${JSON.stringify({ port: (app.server.address() as AddressInfo).port, key })}\n`);
