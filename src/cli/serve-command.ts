import cluster from 'node:cluster';
import { setTimeout as delay } from 'node:timers/promises';
import { bootstrapOperator } from '../billing/bootstrap-operator.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/build-app.ts';
import { createServices, type ReloadResult, type ServiceOptions, type Services } from '../server/services.ts';
import { LEASE_TTL_MS, ServeLeaseHeld } from '../store/serve-lease.ts';
import { configuredBackends } from '../server/open-stores.ts';
import { deliverStarterKey, firstStartKeyFolder } from './first-start-key.ts';
import { loadCliConfig } from './load-cli-config.ts';
import { UsageError } from './output.ts';
import { RELOAD_OTHERS, runClusterPrimary } from './serve-cluster.ts';
import { workerCount } from './worker-count.ts';
import { fdStream, LogSink } from '../observability/log-sink.ts';
import { cliInvocation } from '../runtime/cli-invocation.ts';

/** In a worker of `serve --workers N`, its slot (1..N); null in a single process. */
const workerSlot = cluster.isWorker ? (process.env.SWITCHYARD_WORKER_SLOT ?? String(cluster.worker?.id ?? '?')) : null;

/**
 * Operator messages (the banner, warnings, the shutdown) on stderr, through a sink that never
 * blocks and never throws: a stderr whose reader is gone (EPIPE) drops them, counted, rather
 * than crash the gateway in the middle of its shutdown.
 */
let operatorLogSink: LogSink | null = null;
function operatorLog(): LogSink {
  return (operatorLogSink ??= new LogSink(fdStream(2), { coalesce: false }));
}

function log(message: string): void {
  operatorLog().write(workerSlot === null ? `${message}\n` : `worker ${workerSlot}: ${message}\n`);
}

/** At most how long the logs get, after the drain, to write what they hold (at least the minimum, else what is left of drain_ms). */
const LOG_FLUSH_MAX_MS = 2_000;
const LOG_FLUSH_MIN_MS = 100;

/**
 * The last step before exit: stdout's request log and stderr's messages get what is left of
 * `drainMs` (within the bounds above) to be written; what cannot be is dropped, and the count
 * is said on stderr when stderr still takes it. Never waits longer, whatever the readers do.
 */
async function flushLogs(services: Services | null, signalledAt: number, drainMs: number): Promise<void> {
  const budget = Math.min(LOG_FLUSH_MAX_MS, Math.max(LOG_FLUSH_MIN_MS, signalledAt + drainMs - Date.now()));
  const until = Date.now() + budget;
  const requestLog = services?.telemetry.logSink ?? null;
  if (requestLog !== null) {
    await requestLog.flush(budget);
    if (requestLog.dropped > 0) {
      log(
        `request log: ${requestLog.dropped} line(s) could not be written to stdout and were dropped${requestLog.brokenBy === null ? '' : ` (${requestLog.brokenBy})`}`,
      );
    }
  }
  await operatorLog().flush(Math.max(0, until - Date.now()));
}

type ServeValues = { config?: string; host?: string; port?: string; workers?: string };

/**
 * `switchyard serve`. Order matters: the database is checked and its serve lease taken,
 * the port is listened on, and only then is the operator account created on a fresh
 * database, so a start that cannot serve (port taken, database read-only, another
 * gateway) leaves no account whose key nobody saw.
 */
export async function runServe(values: ServeValues): Promise<number> {
  if (cluster.isPrimary) {
    const workers = workerCount(values.workers, process.env);
    if (workers > 1) return await runServePrimary(values, workers);
  }
  const config = loadCliConfig(values);
  // A worker may be signalled while it starts (forked as the primary stops or reloads): it
  // acts on the signal once it serves rather than dying half-started.
  const held = workerSlot === null ? null : holdSignalsWhileStarting();
  let stopping: ((reason: string, code: number) => Promise<void>) | null = null;
  let leaseLost: string | null = null;
  const services = await createServicesWhenFree(config, {
    env: process.env,
    log,
    operatorLogSink: operatorLog(),
    cliInvocation: cliInvocation({ env: process.env, cwd: process.cwd(), configPath: values.config }),
    loadConfigAgain: () => loadCliConfig(values),
    onHttpReload: (result) => {
      reportReload(result, ' (asked over HTTP)');
      // The primary has the other workers reload as SIGHUP would: every worker serves one config.
      if (result.ok && workerSlot !== null) process.send?.({ type: RELOAD_OTHERS });
    },
    onLeaseLost: (reason) => {
      leaseLost = `${reason}; stopping, so that two gateways never serve one database`;
      void stopping?.(leaseLost, 1);
    },
  });
  for (const w of services.inForce.catalogWarnings) log(`catalog: ${w}`);
  // A worker's GET /metrics answers for every worker (observability/cluster-metrics.ts).
  if (workerSlot !== null) services.telemetry.metrics?.aggregateAcrossWorkers();

  // The BPE tokenizers (~110 MB of RSS for both encodings) are not preloaded: most
  // requests are held on the byte bound and never need them; the first that does (a tight
  // hold, or usage the upstream did not report) loads them, once (~190 ms).
  const app = buildApp(services);
  let address: string;
  try {
    address = await app.listen({ host: config.server.host, port: config.server.port });
  } catch (err) {
    await app.close();
    await services.close();
    throw new Error(listenFailure(err, config), { cause: err });
  }

  let closing = false;
  stopping = async (reason: string, code: number): Promise<void> => {
    if (closing) return;
    closing = true;
    const signalledAt = Date.now();
    log(`${reason}: shutting down`);
    const drainMs = services.inForce.config.timeouts.drainMs;
    await drain(app, services, drainMs);
    await services.close();
    await flushLogs(services, signalledAt, drainMs);
    process.exit(code);
  };
  // Repeated signals are expected (Ctrl-C reaches npm and the gateway, and npm passes it
  // on too): the first one starts the shutdown, the others change nothing.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stopping?.(signal, 0));
  process.on('SIGHUP', () => {
    if (!closing) reloadConfig(services, values);
  });
  const signalled = held?.release();
  if (signalled?.stop != null) {
    await stopping(signalled.stop, 0);
    return 0;
  }
  if (signalled?.reload === true) reloadConfig(services, values);
  if (leaseLost !== null) {
    await stopping(leaseLost, 1);
    return 1;
  }

  let starter;
  try {
    // Exclusive: instances of a fleet starting at once on an empty database make one operator account.
    starter = await services.stores.exclusive('bootstrap-operator', (tx) =>
      bootstrapOperator(tx.accounts, services.accountService.within(tx), {
        creditsUsd: config.bootstrap.credits,
        defaultModel: services.inForce.catalog.models.find((m) => m.kind === 'chat')?.id ?? null,
      }),
    );
  } catch (err) {
    await stopping(`creating the operator account failed: ${(err as Error).message}`, 1);
    return 1;
  }
  printBanner(services, config, address, starter);
  await services.compactHeapAfterStart();
  return await new Promise<number>(() => {});
}

/**
 * Records SIGINT/SIGTERM/SIGHUP until `release()`, which stops recording and says what came
 * (the handlers of the serving gateway are in place by then).
 */
function holdSignalsWhileStarting(): { release(): { stop: NodeJS.Signals | null; reload: boolean } } {
  const seen = { stop: null as NodeJS.Signals | null, reload: false };
  const onStop = (signal: NodeJS.Signals): void => void (seen.stop ??= signal);
  const onReload = (): void => void (seen.reload = true);
  process.on('SIGINT', onStop);
  process.on('SIGTERM', onStop);
  process.on('SIGHUP', onReload);
  return {
    release() {
      process.off('SIGINT', onStop);
      process.off('SIGTERM', onStop);
      process.off('SIGHUP', onReload);
      return seen;
    },
  };
}

/**
 * `serve --workers N` (N > 1): this process is the primary and N workers serve. Each worker
 * holds its own credit holds, limits and caches, so they must share a store made for it:
 * with the embedded SQLite database the start is refused, saying how to scale.
 */
async function runServePrimary(values: ServeValues, workers: number): Promise<number> {
  // A config the workers would refuse stops the start here, once, rather than in each worker;
  // its database.url / redis.url count as the environment's DATABASE_URL / REDIS_URL do.
  const config = loadCliConfig(values);
  if (configuredBackends(config, process.env).kind === 'sqlite') {
    throw new UsageError(
      `${workers} workers need stores that several gateway processes share, and the embedded SQLite database serves one process. ` +
        'To use every core (or several machines), set DATABASE_URL=postgres://user:pass@host:5432/db and REDIS_URL=redis://host:6379 (see docs/deployment.md); ' +
        'or run one process: --workers 1.',
    );
  }
  const code = await runClusterPrimary({ workers, log });
  await flushLogs(null, Date.now(), config.timeouts.drainMs);
  process.exit(code);
}

/**
 * The graceful stop: new requests are refused (the listener closes, idle kept-alive connections
 * too; a request still arriving on an open one gets 503 with `Connection: close`, Fastify's
 * return503OnClosing), and `/ready` says draining. Requests and streams in flight run to their
 * end for up to `drainMs`, then what still runs is cancelled (and charged what it used) and
 * its connections closed. The caller then flushes the settlements and releases the lease.
 */
async function drain(app: FastifyInstance, services: Services, drainMs: number): Promise<void> {
  const inFlight = services.inFlight;
  inFlight.startDraining();
  const closed = app.close();
  if (inFlight.count > 0) log(`waiting up to ${drainMs} ms for ${inFlight.count} request(s) in flight`);
  if (!(await inFlight.idle(drainMs))) {
    log(`drain timeout (${drainMs} ms): cancelling ${inFlight.count} request(s) still in flight`);
    inFlight.cancelAll();
    // Cancelled calls settle what they used; the connections go.
    await inFlight.idle(CANCEL_SETTLE_MS);
    app.server.closeAllConnections();
  }
  // Fastify's close waits for the connections; keep-alive ones left idle are closed here.
  app.server.closeIdleConnections();
  await Promise.race([closed, delay(CANCEL_SETTLE_MS)]);
  app.server.closeAllConnections();
}

/** How long cancelled calls get to settle, and connections to close, after the drain timeout. */
const CANCEL_SETTLE_MS = 5_000;

/**
 * SIGHUP (`switchyard reload` sends it): the config file again, with the same flags and
 * environment. Accepted, it serves new requests at once; refused, the old one stays.
 */
function reloadConfig(services: Services, values: ServeValues): void {
  reportReload(
    services.inForce.reload(() => loadCliConfig(values)),
    '',
  );
}

function reportReload(result: ReloadResult, how: string): void {
  if (!result.ok) {
    log(`config reload${how} refused: ${result.error}; the previous config (generation ${result.generation}) stays in force`);
    return;
  }
  for (const w of result.warnings) log(`catalog: ${w}`);
  log(`config reloaded${how}: generation ${result.generation}, ${result.models} models`);
}

/**
 * Takes the database's serve lease. A lease held by another gateway is either renewed
 * (that gateway is alive: refused) or left to expire (it died, e.g. SIGKILL): wait once
 * until its expiry, at most one TTL, then try again, so a restart right after a crash
 * starts rather than fails.
 */
async function createServicesWhenFree(config: GatewayConfig, opts: ServiceOptions): Promise<Services> {
  try {
    return await createServices(config, opts);
  } catch (err) {
    if (!(err instanceof ServeLeaseHeld)) throw err;
    const waitMs = Math.min(Math.max(0, err.holder.expiresAt - Date.now()), LEASE_TTL_MS) + 50;
    log(`${err.message}; waiting ${(waitMs / 1000).toFixed(1)} s in case it has stopped`);
    await delay(waitMs);
    return createServices(config, opts);
  }
}

function listenFailure(err: unknown, config: GatewayConfig): string {
  const where = `${config.server.host}:${config.server.port}`;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return `cannot listen on ${where}: the address is already in use (EADDRINUSE); stop what holds it or set PORT (or --port)`;
  if (code === 'EACCES') return `cannot listen on ${where}: permission denied (EACCES); use a port above 1023 or set PORT (or --port)`;
  return `cannot listen on ${where}: ${(err as Error).message}`;
}

/**
 * One write, so that whoever reads the output gets the banner whole. A first start's key is
 * printed only to a terminal; otherwise it is written to a file only this user can read
 * (first-start-key.ts) and the banner names the file. Then the way into the dashboard: its
 * address and the command (as this operator types it: `npx switchyard ...` after `npm ci`)
 * that makes the management key it signs in with (the API key only calls models).
 */
function printBanner(services: Services, config: GatewayConfig, address: string, starter: { accountId: string; key: string } | null): void {
  const providers = [...new Set(services.inForce.catalog.models.flatMap((m) => m.endpoints.map((e) => e.provider.id)))];
  const base = `${address}${config.server.basePath ?? ''}`;
  const lines = [
    `switchyard listening on ${address}${workerSlot === null ? '' : ` (worker ${workerSlot} of ${process.env.SWITCHYARD_WORKER_COUNT ?? '?'}, pid ${process.pid})`}`,
    `database: ${services.backends.kind === 'fleet' ? 'Postgres (DATABASE_URL), with Redis' : config.database.path}`,
    `${services.inForce.catalog.models.length} models from providers: ${providers.join(', ') || 'none'}`,
    `dashboard: ${base}/dashboard/`,
  ];
  if (starter !== null) lines.push(...firstStartLines(services, config, base, starter));
  operatorLog().write(`${lines.join('\n')}\n`);
}

function firstStartLines(services: Services, config: GatewayConfig, base: string, starter: { accountId: string; key: string }): string[] {
  const cli = services.cli.invocation;
  const delivery = deliverStarterKey(starter.key, process.stderr.isTTY === true, firstStartKeyFolder(config, process.env));
  const model = services.inForce.catalog.models.find((m) => m.kind === 'chat')?.id ?? 'author/model';
  const lines = ['', `First start: created the operator account ${starter.accountId} with $${config.bootstrap.credits} of credits.`];
  if (delivery.kind === 'shown') {
    lines.push(
      'Its API key (for calling models) is shown this once; keep it:',
      '',
      `    ${starter.key}`,
      '',
      `Try: curl ${base}/v1/chat/completions -H "Authorization: Bearer ${starter.key}" \\`,
    );
  } else if (delivery.kind === 'file') {
    lines.push(
      'Its API key (for calling models) is not printed (this output is not a terminal, and logs travel): it is in a file only this user can read.',
      'Keep the key somewhere safe, then delete the file:',
      '',
      `    ${delivery.path}`,
      '',
      `Try: curl ${base}/v1/chat/completions -H "Authorization: Bearer $(cat '${delivery.path}')" \\`,
    );
  } else {
    lines.push(
      `Its API key could not be saved: ${delivery.reason}; it is not printed either (this output is not a terminal).`,
      `Make another: ${cli} keys create --account ${starter.accountId} --name starter`,
      `Try: curl ${base}/v1/chat/completions -H "Authorization: Bearer <that key>" \\`,
    );
  }
  lines.push(
    `       -d '{"model": "${model}", "messages": [{"role": "user", "content": "Hello"}]}'`,
    '',
    `The dashboard (${base}/dashboard/) signs in with a management key, not with the API key:`,
    'make one (it is printed once) and paste it into the sign-in page:',
    `    ${cli} keys create --account ${starter.accountId} --name dashboard --management`,
    "The operator's view (every account, the audit log) and the admin API (/api/v1/admin, docs/admin-api.md) take an admin key:",
    `    ${cli} keys create --account ${starter.accountId} --name ops --admin`,
    '',
  );
  return lines;
}
