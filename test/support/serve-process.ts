import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

// `switchyard serve` as an operator starts it: a separate process, watched through its
// output and its exit.

export const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;
export const REPO = new URL('../../', import.meta.url).pathname;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServeRun {
  child: ChildProcess;
  /** Everything written to stderr so far. */
  readonly stderr: string;
  exited: Promise<Exit>;
  /** Resolves once its output streams closed too: `stderr` is then complete. */
  closed: Promise<void>;
  /** Resolves with the first match of `pattern` in stderr; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

/** The environment of a gateway that must not see this machine's provider keys or config. */
export function serveEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SWITCHYARD_CONFIG: '',
    DATABASE_URL: '',
    OPENAI_API_KEY: '',
    ANTHROPIC_API_KEY: '',
    PORT: '',
    HOST: '',
    ...extra,
  };
}

export function run(command: string, args: string[], opts: SpawnOptions): ServeRun {
  const child = spawn(command, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of [...waiters]) w();
  });
  child.stdout.resume();
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    child,
    closed,
    get stderr() {
      return stderr;
    },
    exited,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const m = pattern.exec(stderr);
          if (m === null) return false;
          waiters.splice(waiters.indexOf(onData), 1);
          resolve(m);
          return true;
        };
        const onData = (): void => void check();
        if (check()) return;
        waiters.push(onData);
        void exited.then((e) => {
          if (!check()) reject(new Error(`exited (${e.code ?? e.signal}) before printing ${pattern}:\n${stderr}`));
        });
      });
    },
  };
}

/** `switchyard serve` under this Node (no launcher hop). */
export function serve(env: NodeJS.ProcessEnv, args: string[] = [], extra: SpawnOptions = {}): ServeRun {
  return run(process.execPath, [BIN, 'serve', ...args], { ...extra, env });
}

/** The banner's address, once the gateway listens and has printed what it serves. */
export async function listening(s: ServeRun): Promise<string> {
  const origin = (await s.waitFor(/listening on (http:\/\/[\d.]+:\d+)/))[1]!;
  await s.waitFor(/models from providers: .*\n/);
  return origin;
}

/**
 * The starter key of a first start, once the whole first-start block is printed: read from
 * the file the banner names (stderr is a pipe here, so the key itself is never printed).
 */
export async function starterKey(s: ServeRun): Promise<string> {
  const path = await starterKeyFile(s);
  return readFileSync(path, 'utf8').trim();
}

/** The path of the first start's key file, as the banner names it. */
export async function starterKeyFile(s: ServeRun): Promise<string> {
  const path = (await s.waitFor(/^ {4}(\/.*first-start-key\.txt)$/m))[1]!;
  await s.waitFor(/^Try: .*\n.*\n/m);
  return path;
}

export async function stop(s: ServeRun, signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
  s.child.kill(signal);
  const exit = await s.exited;
  await s.closed;
  return exit;
}

/** Pids of every descendant of `pid` (Linux /proc). */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    let children: string;
    try {
      children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const c of children
      .split(' ')
      .filter((x) => x !== '')
      .map(Number))
      out.push(c, ...descendants(c));
  }
  return out;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by its parent) is gone for our purposes.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Processes that are not our children give no exit event: look again, a bounded number
 * of times, until every pid is gone and the port refuses connections. Resolves with
 * whatever is still there at the end (empty when all is gone).
 */
export async function untilGone(pids: number[], port: number, tries = 100, everyMs = 100): Promise<string[]> {
  let left: string[] = [];
  for (let i = 0; i < tries; i++) {
    left = pids.filter(isAlive).map((p) => `pid ${p}`);
    if (await portAccepts(port)) left.push(`port ${port}`);
    if (left.length === 0) return left;
    await delay(everyMs);
  }
  return left;
}

/** After a failed check: SIGKILL whatever of `pids` is left, so no test leaves an orphan behind. */
export function killLeft(pids: number[]): void {
  for (const pid of pids.filter(isAlive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary folder, removed when the test process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  made.push(dir);
  return dir;
}
