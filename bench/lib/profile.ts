// Reads a V8 .cpuprofile (node --cpu-prof) and tells where the time went: self time per
// function, self time per file or package, and inclusive time of the project's own
// functions (src/), which is what a reader of the gateway's code can act on.

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileRow {
  name: string;
  where: string;
  ms: number;
  /** Share of the busy (non-idle) time. */
  pct: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  selfByFunction: ProfileRow[];
  selfByFile: ProfileRow[];
  inclusiveProject: ProfileRow[];
}

const IDLE = '(idle)';

function shortUrl(url: string, root: string): string {
  if (url === '') return '';
  let u = url.startsWith('file://') ? url.slice(7) : url;
  if (u.startsWith(root)) u = u.slice(root.length + 1);
  return u;
}

/** Buckets a file: a package under node_modules, a project folder, or node's internals. */
function fileBucket(where: string): string {
  const nm = where.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = where.slice(nm + 'node_modules/'.length).split('/');
    return `node_modules/${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (where.startsWith('node:')) return where;
  return where.replace(/:\d+$/, '');
}

export function summarizeProfile(path: string, root: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const c of node.children ?? []) parent.set(c, node.id);
  }
  const key = (n: ProfileNode): string =>
    `${n.callFrame.functionName || '(anonymous)'}\u0000${shortUrl(n.callFrame.url, root)}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const selfFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let idleUs = 0;
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (node === undefined) continue;
    if (node.callFrame.functionName === IDLE) {
      idleUs += dt;
      continue;
    }
    busyUs += dt;
    const k = key(node);
    self.set(k, (self.get(k) ?? 0) + dt);
    const fn = node.callFrame.functionName;
    // Frames without a file: V8's pseudo-frames ((garbage collector), (program)) or native code.
    const b = node.callFrame.url === '' ? (fn.startsWith('(') ? fn : '(native / V8)') : fileBucket(shortUrl(node.callFrame.url, root));
    selfFile.set(b, (selfFile.get(b) ?? 0) + dt);
    // Inclusive time: every distinct project frame on the stack gets the sample once.
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id)!;
      const where = shortUrl(n.callFrame.url, root);
      if (!where.startsWith('src/')) continue;
      const kk = key(n);
      if (seen.has(kk)) continue;
      seen.add(kk);
      inclusive.set(kk, (inclusive.get(kk) ?? 0) + dt);
    }
  }
  const rows = (m: Map<string, number>, split: boolean): ProfileRow[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => {
        const [name, where] = split ? k.split('\u0000') : [k, ''];
        return { name: name!, where: where ?? '', ms: us / 1000, pct: (100 * us) / Math.max(1, busyUs) };
      });
  return {
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    selfByFunction: rows(self, true),
    selfByFile: rows(selfFile, false),
    inclusiveProject: rows(inclusive, true),
  };
}

export function formatProfile(s: ProfileSummary): string {
  const lines: string[] = [];
  lines.push(`busy ${s.busyMs.toFixed(0)} ms, idle ${s.idleMs.toFixed(0)} ms (percentages are of busy time)`);
  const table = (title: string, rows: ProfileRow[]): void => {
    lines.push('', title);
    for (const r of rows)
      lines.push(`  ${r.pct.toFixed(1).padStart(5)} %  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}${r.where ? `  ${r.where}` : ''}`);
  };
  table('Self time by file or package:', s.selfByFile);
  table('Self time by function:', s.selfByFunction);
  table("Inclusive time of the project's functions (src/):", s.inclusiveProject);
  return lines.join('\n');
}
