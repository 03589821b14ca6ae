import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { scrape, sumOf } from '../support/prometheus-text.ts';
import { BIN, listening, run, serveEnv, starterKey, tempDir, type Exit, type ServeRun } from '../support/serve-process.ts';

// Issue 23 §6: whatever becomes of the log's reader, SIGTERM stops the gateway within
// `timeouts.drain_ms`. The gateway runs as `npm start` runs it (`node bin/switchyard.mjs
// serve`), its stdout and stderr pipes to this process; 64 connections load it while
// nobody reads stdout, so its request log holds more than the pipe takes. Before, pino's
// destination retried the blocked `write(1)` every 100 ms at exit, forever (EPIPE when the
// reader was gone, EAGAIN while it did not read), and an EPIPE on stderr crashed the
// shutdown half-way.

const DRAIN_MS = 3_000;
/** What the stop may take beyond drain_ms: the process's own exit on a loaded machine. */
const MARGIN_MS = 4_000;
/** Requests of the load: ~600 bytes of log each, well past what a pipe (and its reader) holds. */
const LOAD_REQUESTS = 2_000;
const CONNECTIONS = 64;

function start(): ServeRun {
  const dir = tempDir('switchyard-log-gone');
  const config = join(dir, 'switchyard.yaml');
  writeFileSync(config, `sim: true\ntimeouts: { drain_ms: ${DRAIN_MS} }\n`);
  const s = run(process.execPath, [BIN, 'serve'], { env: serveEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: config, PORT: '0' }) });
  // Nobody reads stdout from here on (the helper resumed it).
  s.child.stdout!.pause();
  s.child.stdout!.removeAllListeners('data');
  return s;
}

/**
 * 64 connections send model calls until `total` have been answered; the load goes on until
 * `stop()` (calls refused or cut once the gateway stops are expected then).
 */
function load(origin: string, key: string, total: number): { reached: Promise<void>; stop: () => Promise<void> } {
  const agent = new Agent({ connections: CONNECTIONS });
  const body = JSON.stringify({
    model: 'switchyard/sim-fast',
    messages: [{ role: 'user', content: 'one line of log, please' }],
    max_tokens: 8,
  });
  let answered = 0;
  let stopping = false;
  let onReached!: () => void;
  let onFailed!: (err: Error) => void;
  const reached = new Promise<void>((resolve, reject) => {
    onReached = resolve;
    onFailed = reject;
  });
  const worker = async (): Promise<void> => {
    while (!stopping) {
      try {
        const res = await request(`${origin}/v1/chat/completions`, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200 && !stopping) throw new Error(`${res.statusCode} ${text}`);
      } catch (err) {
        if (stopping) return;
        onFailed(err as Error);
        return;
      }
      if (++answered === total) onReached();
    }
  };
  const workers = Array.from({ length: CONNECTIONS }, worker);
  return {
    reached,
    async stop() {
      stopping = true;
      await agent.destroy();
      await Promise.allSettled(workers);
    },
  };
}

/** The exit, or null when the gateway still runs `ms` after the signal (then it is killed). */
async function exitWithin(s: ServeRun, ms: number): Promise<Exit | null> {
  const bound = new AbortController();
  const outcome = await Promise.race([s.exited, delay(ms, null, { signal: bound.signal }).catch(() => null)]);
  bound.abort();
  if (outcome === null) s.child.kill('SIGKILL');
  return outcome;
}

/** Runs `body` with a gateway that is killed afterwards if the test left it running. */
async function withGateway(body: (s: ServeRun) => Promise<void>): Promise<void> {
  const s = start();
  try {
    await body(s);
  } finally {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  }
}

test('SIGTERM stops a loaded gateway whose stdout and stderr readers are gone, within drain_ms', () =>
  withGateway(async (s) => {
    const origin = await listening(s);
    const key = await starterKey(s);
    const traffic = load(origin, key, LOAD_REQUESTS);
    await traffic.reached;
    // The reader goes, as a parent that exits at once after signalling would.
    s.child.kill('SIGTERM');
    s.child.stdout!.destroy();
    s.child.stderr!.destroy();
    const exit = await exitWithin(s, DRAIN_MS + MARGIN_MS);
    await traffic.stop();
    assert.deepEqual(
      exit,
      { code: 0, signal: null },
      `still running ${DRAIN_MS + MARGIN_MS} ms after SIGTERM (null), or crashed:\n${s.stderr.slice(-2000)}`,
    );
  }));

test('SIGTERM stops a loaded gateway whose stdout reader never reads, and says how many lines it dropped', () =>
  withGateway(async (s) => {
    const origin = await listening(s);
    const key = await starterKey(s);
    const traffic = load(origin, key, LOAD_REQUESTS);
    await traffic.reached;
    s.child.kill('SIGTERM');
    const exit = await exitWithin(s, DRAIN_MS + MARGIN_MS);
    await traffic.stop();
    assert.deepEqual(
      exit,
      { code: 0, signal: null },
      `still running ${DRAIN_MS + MARGIN_MS} ms after SIGTERM (null), or crashed:\n${s.stderr.slice(-2000)}`,
    );
    s.child.stdout!.destroy();
    await s.closed;
    // The lines the pipe could not take were dropped at the exit, and counted.
    const dropped = /request log: (\d+) line\(s\) could not be written to stdout and were dropped\n/.exec(s.stderr);
    assert.ok(dropped !== null && Number(dropped[1]) > 0, s.stderr.slice(-2000));
  }));

test('a gateway whose stdout reader is gone keeps serving, counts the lines it drops, and stops cleanly', () =>
  withGateway(async (s) => {
    const origin = await listening(s);
    const key = await starterKey(s);
    s.child.stdout!.destroy();
    // Enough lines that the first write after the reader went fails (EPIPE) and later ones are dropped.
    const traffic = load(origin, key, 200);
    await traffic.reached;
    await traffic.stop();
    const samples = await scrape(origin, { authorization: `Bearer ${key}` });
    assert.ok(sumOf(samples, 'switchyard_log_lines_dropped_total', { stream: 'stdout' }) > 0, 'the dropped lines are counted');
    assert.equal(sumOf(samples, 'switchyard_log_lines_dropped_total', { stream: 'stderr' }), 0);
    s.child.kill('SIGTERM');
    const exit = await exitWithin(s, DRAIN_MS + MARGIN_MS);
    assert.deepEqual(exit, { code: 0, signal: null }, s.stderr.slice(-2000));
    await s.closed;
    assert.match(s.stderr, /request log: \d+ line\(s\) could not be written to stdout and were dropped \(EPIPE\)/);
  }));
