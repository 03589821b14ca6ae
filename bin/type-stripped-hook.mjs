// Preloaded with `--import` by `npm start` and the image (and so into every thread the
// gateway starts: Node passes its flags on to worker threads). Serves the gateway's own .ts
// modules from the cache bin/type-stripped-sources.mjs writes, so Node's type stripper is
// never loaded; a module not in the cache (edited since) goes to Node's loader as usual.
// Module URLs are unchanged: stack traces and import.meta.url name the .ts files.

import * as nodeModule from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cacheDir, entryName, sourceDirs } from './type-stripped-sources.mjs';

const prefixes = sourceDirs.map((dir) => pathToFileURL(dir).href + '/');

if (typeof nodeModule.registerHooks === 'function') {
  nodeModule.registerHooks({
    load(url, context, nextLoad) {
      if (!url.endsWith('.ts') || !prefixes.some((p) => url.startsWith(p))) return nextLoad(url, context);
      try {
        const source = readFileSync(new URL(url), 'utf8');
        return { format: 'module', source: readFileSync(join(cacheDir, entryName(source)), 'utf8'), shortCircuit: true };
      } catch {
        return nextLoad(url, context);
      }
    },
  });
}
