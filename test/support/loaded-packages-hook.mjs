// Preloaded with `--import` (NODE_OPTIONS) into a gateway under test: records every npm
// package the process resolves a module of, and writes the list to stderr as it exits
// (`loaded packages: ["fastify", ...]`), so a test can tell what was loaded and what not.

import { writeSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { isMainThread, threadId } from 'node:worker_threads';

const seen = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url);
    if (m !== null) seen.add(m[1]);
    return resolved;
  },
});
// Every thread (the gateway's own threads, e.g. the SQLite writer, are preloaded too) says
// at its exit whether it loaded Node's type stripper (`type stripper in thread N: true`);
// written straight to fd 2, as a thread's own stderr stream may not flush as it ends.
process.on('exit', () => {
  const stripper = process.moduleLoadList.some((m) => m.includes('amaro'));
  writeSync(2, `type stripper in thread ${threadId}: ${stripper}\n`);
});
// Only the main thread reports the packages (the threads' are a subset of its).
if (isMainThread) {
  process.on('exit', () => {
    process.stderr.write(`loaded packages: ${JSON.stringify([...seen].sort())}\n`);
  });
}
