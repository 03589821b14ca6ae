// switchyard started the way an operator starts it: the real CLI (`bin/switchyard.mjs`),
// `serve` (with `--workers N` when asked), then an account and a key made with
// `accounts create` / `keys create` beside it, on its own port, with the benchmark's config
// (switchyard-config.ts) and, for a fleet, DATABASE_URL and REDIS_URL. Used by the
// workers phase; the request log goes to /dev/null as in the in-process gateway.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../../test/support/free-port.ts';
import { BENCH_TIER, gatewayEnv, gatewayNodeFlags, switchyardConfig, UPSTREAM_KEY, UPSTREAM_KEY_ENV } from './switchyard-config.ts';
import { track } from './processes.ts';
import { GATEWAY_MODEL } from './scenarios.ts';
import type { Target } from './targets.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'bin', 'switchyard.mjs');
const run = promisify(execFile);
const START_TIMEOUT_MS = 60_000;

export interface CliGateway {
  target: Target;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Whether `switchyard serve` takes --workers on this checkout. */
export async function serveHasWorkers(): Promise<boolean> {
  const { stdout } = await run(process.execPath, [CLI, 'serve', '--help'], { cwd: ROOT });
  return stdout.includes('--workers');
}

/** Starts it; throws with the CLI's own message when it refuses (e.g. a store it does not support). */
export async function startCliGateway(
  name: string,
  upstreamBaseUrl: string,
  o: { workers: number | null; env?: Record<string, string> },
): Promise<CliGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-cli-'));
  const port = await freePort();
  const config = join(dir, 'switchyard.yaml');
  writeFileSync(config, switchyardConfig({ upstreamBaseUrl, port }));
  // npm start's environment too (its glibc malloc settings), as the in-process gateway gets (targets.ts).
  const env = { ...process.env, ...gatewayEnv(), SWITCHYARD_DATA_DIR: dir, [UPSTREAM_KEY_ENV]: UPSTREAM_KEY, LOG_LEVEL: 'info', ...o.env };
  const cli = async <T>(...args: string[]): Promise<T> => {
    try {
      const { stdout } = await run(process.execPath, [CLI, ...args, '--config', config, '--json'], { cwd: ROOT, env });
      return JSON.parse(stdout) as T;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(
        `switchyard ${args
          .filter((a) => !a.startsWith('-'))
          .slice(0, 2)
          .join(' ')}: ${(e.stderr ?? e.message).trim().split('\n')[0]}`,
        { cause: err },
      );
    }
  };
  let proc: ChildProcess | null = null;
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    // serve first: it creates (or migrates) whichever store it was given; the account and
    // the key are then made by the CLI beside the running gateway, as an operator would.
    const serveArgs = [
      ...gatewayNodeFlags(),
      CLI,
      'serve',
      '--config',
      config,
      ...(o.workers === null ? [] : ['--workers', String(o.workers)]),
    ];
    proc = spawn(process.execPath, serveArgs, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    track(proc);
    let stderr = '';
    proc.stderr!.setEncoding('utf8');
    proc.stderr!.on('data', (t: string) => (stderr = (stderr + t).slice(-4000)));
    const origin = `http://127.0.0.1:${port}`;
    await waitServing(origin, proc, () => stderr);
    const account = await cli<{ id: string }>('accounts', 'create', '--name', 'bench', '--credits', '1000000', '--tier', BENCH_TIER);
    const { key } = await cli<{ key: string }>('keys', 'create', '--account', account.id, '--name', 'bench');
    const child = proc;
    return {
      target: {
        name,
        origin,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        model: GATEWAY_MODEL,
        pid: child.pid!,
      },
      proc: child,
      async stop() {
        await stopProcess(child);
        cleanup();
      },
    };
  } catch (err) {
    if (proc !== null) await stopProcess(proc);
    cleanup();
    throw err;
  }
}

async function waitServing(origin: string, proc: ChildProcess, stderr: () => string): Promise<void> {
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code) => reject(new Error(`switchyard serve exited (${code}): ${lastLines(stderr())}`))),
  );
  exited.catch(() => {});
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const ok = await Promise.race([
      fetch(`${origin}/health`).then(
        (r) => r.ok,
        () => false,
      ),
      exited,
    ]);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`switchyard serve did not answer /health within ${START_TIMEOUT_MS / 1000} s: ${lastLines(stderr())}`);
}

/** The end of what serve printed, for a failure's reason (a first start's key is blanked: it is a secret). */
function lastLines(text: string): string {
  return text
    .trim()
    .split('\n')
    .slice(-3)
    .join(' / ')
    .replace(/sk-sy-\S+/g, 'sk-sy-…');
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await gone;
  clearTimeout(timer);
}
