// Lists the largest allocators of a sampling heap profile (bench/allocation-sampler.ts):
// node bench/alloc-summary.ts <file.heapprofile> <requests> [top]
// Bytes per request by function, self (what the function's own code allocated) and
// inclusive (with everything it called), the function named by its file and line.

import { readFileSync } from 'node:fs';

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}

const [file, requestsArg, topArg] = process.argv.slice(2);
if (file === undefined || requestsArg === undefined) {
  process.stderr.write('usage: node bench/alloc-summary.ts <file.heapprofile> <requests> [top]\n');
  process.exit(2);
}
const requests = Number(requestsArg);
const top = Number(topArg ?? 30);
const head = (JSON.parse(readFileSync(file, 'utf8')) as { head: Node }).head;

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;

function name(n: Node): string {
  const url = n.callFrame.url.replace(/^.*\/(src|bench|node_modules)\//, '$1/');
  return `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
}

/** Returns the node's inclusive size; counts a function's inclusive size once per stack (no double counting of recursion). */
function walk(n: Node, onStack: Set<string>): number {
  const k = name(n);
  self.set(k, (self.get(k) ?? 0) + n.selfSize);
  total += n.selfSize;
  const fresh = !onStack.has(k);
  if (fresh) onStack.add(k);
  let sum = n.selfSize;
  for (const c of n.children) sum += walk(c, onStack);
  if (fresh) {
    onStack.delete(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + sum);
  }
  return sum;
}
walk(head, new Set());

const kb = (b: number): string => (b / requests / 1024).toFixed(2).padStart(7);
const list = (m: Map<string, number>): string =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => `${kb(v)} KB  ${k}`)
    .join('\n');
process.stdout.write(`total ${kb(total)} KB a request (sampled)\n\nself:\n${list(self)}\n\ninclusive:\n${list(inclusive)}\n`);
