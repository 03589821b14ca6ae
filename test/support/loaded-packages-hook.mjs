// Preloaded with `--import` (NODE_OPTIONS) into a gateway under test: records every npm
// package the process resolves a module of, and writes the list to stderr as it exits
// (`loaded packages: ["fastify", ...]`), so a test can tell what was loaded and what not.

import { registerHooks } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const seen = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url);
    if (m !== null) seen.add(m[1]);
    return resolved;
  },
});
// The gateway's own threads (the SQLite writer) are preloaded too: only the main thread reports.
if (isMainThread) {
  process.on('exit', () => {
    process.stderr.write(`loaded packages: ${JSON.stringify([...seen].sort())}\n`);
  });
}
