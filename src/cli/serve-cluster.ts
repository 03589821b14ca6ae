import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { serveClusterMetrics } from '../observability/cluster-metrics.ts';

/** Restart delays of a worker that died: the first, doubling per crash in a row up to the last. */
/** The message a worker sends its primary after a reload asked over HTTP. */
export const RELOAD_OTHERS = 'switchyard:reload-others';

export interface RestartBackoff {
  firstMs: number;
  maxMs: number;
  /** A worker that ran this long before dying starts its slot's backoff afresh. */
  stableMs: number;
}

export interface ClusterOptions {
  /** How many gateway processes (workers) to run. */
  workers: number;
  log: (message: string) => void;
  /** The script each worker runs and its arguments (default: this process's own). */
  exec?: string;
  args?: string[];
  backoff?: RestartBackoff;
}

const DEFAULT_BACKOFF: RestartBackoff = { firstMs: 100, maxMs: 10_000, stableMs: 30_000 };

interface Slot {
  /** 1..N: stays with the slot across restarts (env SWITCHYARD_WORKER_SLOT of its worker). */
  n: number;
  worker: Worker | null;
  startedAt: number;
  /** Crashes in a row (reset once a worker ran `stableMs`). */
  crashes: number;
  restart: NodeJS.Timeout | null;
  listenedOnce: boolean;
  /** Its current worker listens (it is asked for its metrics). */
  listening: boolean;
}

/**
 * The primary of `switchyard serve --workers N` (node:cluster): forks N workers that each
 * run the gateway (`switchyard serve` as one process) and share its port, the primary
 * accepting connections and handing them round-robin to the workers.
 *
 * - SIGTERM/SIGINT: passed to every worker, which drains (serve-command.ts); resolves with 0
 *   once all have exited 0 (1 otherwise). No worker is restarted during the stop.
 * - SIGHUP: passed to every worker, each of which reloads its config.
 * - A worker that dies is logged and restarted after a backoff (100 ms doubling to 10 s).
 * - A worker that dies before it ever listened means the gateway cannot start (the port is
 *   taken, the config or the database is refused): every worker is stopped, and 1.
 * - GET /metrics in any worker answers for all of them (observability/cluster-metrics.ts).
 */
export function runClusterPrimary(opts: ClusterOptions): Promise<number> {
  const log = opts.log;
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  cluster.setupPrimary({ exec: opts.exec ?? process.argv[1]!, args: opts.args ?? process.argv.slice(2) });
  const slots: Slot[] = Array.from({ length: opts.workers }, (_, i) => ({
    n: i + 1,
    worker: null,
    startedAt: 0,
    crashes: 0,
    restart: null,
    listenedOnce: false,
    listening: false,
  }));
  const bySlot = new Map<Worker, Slot>();
  let stopping = false;
  let failed = false;
  let announced = false;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => (finish = resolve));

  const fork = (slot: Slot): void => {
    slot.restart = null;
    slot.startedAt = Date.now();
    // SWITCHYARD_LAUNCHED: the launcher's channel is the primary's; a worker's IPC channel is the cluster's (bin/switchyard.mjs).
    const worker = cluster.fork({
      SWITCHYARD_WORKER_SLOT: String(slot.n),
      SWITCHYARD_WORKER_COUNT: String(opts.workers),
      SWITCHYARD_LAUNCHED: '',
    });
    slot.worker = worker;
    bySlot.set(worker, slot);
    log(`worker ${slot.n} starting (pid ${worker.process.pid})`);
  };
  const running = (): Worker[] => slots.flatMap((s) => (s.worker === null ? [] : [s.worker]));
  serveClusterMetrics(() => slots.flatMap((s) => (s.worker !== null && s.listening ? [s.worker] : [])));
  const stop = (why: string, signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(`${why}: stopping ${running().length} worker(s); each finishes its requests in flight`);
    for (const slot of slots) {
      if (slot.restart !== null) clearTimeout(slot.restart);
      slot.restart = null;
    }
    for (const w of running()) w.process.kill(signal);
    if (running().length === 0) finish(failed ? 1 : 0);
  };

  cluster.on('listening', (worker, address: AddressInfo | { address: string; port: number }) => {
    const slot = bySlot.get(worker);
    if (slot === undefined) return;
    slot.listenedOnce = true;
    slot.listening = true;
    log(`worker ${slot.n} (pid ${worker.process.pid}) listening on ${address.address}:${address.port}`);
    if (!announced && slots.every((s) => s.listenedOnce)) {
      announced = true;
      log(`${opts.workers} workers serving on ${address.address}:${address.port} (primary pid ${process.pid})`);
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    const slot = bySlot.get(worker);
    if (slot === undefined) return;
    bySlot.delete(worker);
    slot.worker = null;
    slot.listening = false;
    const how = signal === null ? `code ${code}` : `signal ${signal}`;
    log(`worker ${slot.n} (pid ${worker.process.pid}) exited (${how})`);
    if (stopping && (code !== 0 || signal !== null)) failed = true;
    if (stopping) {
      if (running().length === 0) finish(failed ? 1 : 0);
      return;
    }
    if (!slot.listenedOnce) {
      failed = true;
      stop(`worker ${slot.n} exited before it could serve`, 'SIGTERM');
      return;
    }
    slot.crashes = Date.now() - slot.startedAt >= backoff.stableMs ? 1 : slot.crashes + 1;
    const wait = Math.min(backoff.maxMs, backoff.firstMs * 2 ** (slot.crashes - 1));
    log(`restarting worker ${slot.n} in ${wait} ms`);
    slot.restart = setTimeout(() => fork(slot), wait);
  });

  // Repeated signals (Ctrl-C reaches the whole process group) change nothing once stopping.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal, signal));
  process.on('SIGHUP', () => {
    if (stopping) return;
    log(`SIGHUP: every worker reloads its config`);
    for (const w of running()) w.process.kill('SIGHUP');
  });
  // A reload asked over HTTP (POST /admin/config/reload) lands on one worker, which reloaded
  // itself and answered: the others are told as SIGHUP would tell them.
  cluster.on('message', (from: Worker, message: unknown) => {
    if (stopping || (message as { type?: unknown } | null)?.type !== RELOAD_OTHERS) return;
    log(`worker ${bySlot.get(from)?.n ?? '?'} reloaded its config over HTTP: the other workers reload too`);
    for (const w of running()) if (w !== from) w.process.kill('SIGHUP');
  });
  for (const slot of slots) fork(slot);
  return done;
}
