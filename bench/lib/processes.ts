// Child processes of a benchmark run: start one, pin it to CPUs (taskset) when asked,
// read the JSON line it prints once listening, read its memory and CPU time from /proc,
// and make sure none outlives the run (normal end, error, Ctrl-C). The children also exit
// by themselves when their stdin closes, which covers a parent killed with SIGKILL.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Child<Info> {
  name: string;
  pid: number;
  info: Info;
  proc: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
}

const live = new Set<ChildProcess>();
let handlersInstalled = false;
let stopping = false;

/** True once a signal asked the run to stop (errors after that are expected). */
export function isStopping(): boolean {
  return stopping;
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killAll);
  const onSignal = (signal: NodeJS.Signals, code: number) => () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${signal}: stopping the benchmark's processes\n`);
    // SIGTERM first, so the gateway removes its temporary database; SIGKILL after 3 s.
    const procs = [...live];
    for (const proc of procs) proc.kill('SIGTERM');
    const gone = procs.map(
      (proc) => new Promise((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve(null) : proc.once('exit', resolve))),
    );
    void Promise.race([Promise.all(gone), new Promise((resolve) => setTimeout(resolve, 3000))]).then(() => process.exit(code));
  };
  process.on('SIGINT', onSignal('SIGINT', 130));
  process.on('SIGTERM', onSignal('SIGTERM', 143));
  process.on('SIGHUP', onSignal('SIGHUP', 129));
}

/** A process this run started some other way: stopped with the others on a signal or at exit. */
export function track(proc: ChildProcess): void {
  installHandlers();
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
}

/** SIGKILLs every child still running; synchronous, so it works in an exit handler. */
export function killAll(): void {
  for (const proc of live) {
    if (proc.exitCode === null && proc.signalCode === null) {
      try {
        proc.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  live.clear();
}

export interface StartOptions {
  /** Node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  timeoutMs?: number;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** An IPC channel to the child (the event-loop probe of bench/loop-delay-preload.ts answers on it). */
  ipc?: boolean;
}

/** Starts `node script ...args` and waits for the first line it prints on stdout (JSON). */
export function startChild<Info>(name: string, script: string, args: string[], opts: StartOptions = {}): Promise<Child<Info>> {
  installHandlers();
  const nodeArgv = [...(opts.nodeArgs ?? []), script, ...args];
  const stdio = opts.ipc === true ? (['pipe', 'pipe', 'inherit', 'ipc'] as const) : (['pipe', 'pipe', 'inherit'] as const);
  const proc = spawn(process.execPath, nodeArgv, {
    stdio: [...stdio],
    ...(opts.env === undefined ? {} : { env: { ...process.env, ...opts.env } }),
  });
  live.add(proc);
  const exited = new Promise<number | string>((resolve) => {
    proc.once('exit', (code, signal) => {
      live.delete(proc);
      resolve(code ?? signal ?? -1);
    });
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => fail(new Error(`${name} did not start within ${opts.timeoutMs ?? 20_000} ms`)),
      opts.timeoutMs ?? 20_000,
    );
    const fail = (err: Error): void => {
      clearTimeout(timer);
      proc.kill('SIGKILL');
      reject(err);
    };
    proc.once('error', fail);
    void exited.then((code) => fail(new Error(`${name} exited (${code}) before it was ready`)));
    proc.stdout!.setEncoding('utf8');
    proc.stdout!.on('data', function onData(text: string) {
      buffered += text;
      const nl = buffered.indexOf('\n');
      if (nl < 0) return;
      proc.stdout!.off('data', onData);
      proc.stdout!.resume();
      clearTimeout(timer);
      try {
        resolve({ name, pid: proc.pid!, info: JSON.parse(buffered.slice(0, nl)) as Info, proc, exited });
      } catch (err) {
        fail(new Error(`${name} printed something that is not JSON: ${buffered.slice(0, nl)}`));
      }
    });
  });
}

/** SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stopChild(child: Child<unknown>, graceMs = 5000): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** Resident set size in MB (VmRSS of /proc/<pid>/status). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (m === null) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time of a process (all its threads) in seconds, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** A process and all its descendants (from the parent pid in every /proc/<pid>/stat). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** CPU seconds of several processes together; one that is gone counts 0. */
export function cpuSecondsOf(pids: readonly number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      sum += cpuSeconds(pid);
    } catch {
      // gone
    }
  }
  return sum;
}

/**
 * Sets the CPUs a running process (every thread of it) may use, e.g. "1" or "0-1";
 * false when that is not possible.
 */
export function setAffinity(pid: number, cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
