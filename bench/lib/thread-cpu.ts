// CPU per thread of a process, from /proc/<pid>/task/*/stat (Linux), grouped by what the
// thread does: the event loop (the process's main thread), Node's worker threads (in
// switchyard: the SQLite writer, and the tokenizer once loaded), V8's platform threads
// (concurrent marking and parallel scavenges of the garbage collector, background
// compilation) and the rest (libuv's pool, the inspector, signal handling).

import { readdirSync, readFileSync } from 'node:fs';

export type ThreadKind = 'event loop' | 'worker threads' | 'V8 (GC, compiler)' | 'other';

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on

function kindOf(comm: string, main: boolean): ThreadKind {
  if (main) return 'event loop';
  if (comm === 'WorkerThread') return 'worker threads';
  if (comm.startsWith('V8Worker') || comm.startsWith('V8 ')) return 'V8 (GC, compiler)';
  return 'other';
}

/** CPU seconds per kind of thread of `pid` so far (threads that ended are not counted: take both readings while the process runs). */
export function threadCpuSeconds(pid: number): Map<ThreadKind, number> {
  const out = new Map<ThreadKind, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime + stime
    const kind = kindOf(comm, tid === String(pid));
    out.set(kind, (out.get(kind) ?? 0) + seconds);
  }
  return out;
}

export const THREAD_KINDS: readonly ThreadKind[] = ['event loop', 'worker threads', 'V8 (GC, compiler)', 'other'];

/** What each kind of thread spent between two readings, in µs per response. */
export function perResponseUs(
  before: Map<ThreadKind, number>,
  after: Map<ThreadKind, number>,
  responses: number,
): Array<[ThreadKind, number]> {
  return THREAD_KINDS.map((k) => [k, responses === 0 ? 0 : (((after.get(k) ?? 0) - (before.get(k) ?? 0)) * 1e6) / responses]);
}
