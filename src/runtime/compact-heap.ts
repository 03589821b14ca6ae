import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'major'; flavor: 'last-resort' }) => void;
let collect: Collect | null = null;

/**
 * One memory-reducing garbage collection of the calling thread's heap (V8's "last resort"
 * collection: every unreachable object freed, the young generation shrunk and the freed
 * pages handed back to the OS). Called once when the gateway is up: loading the modules,
 * the catalog and the schemas leaves ~30 MB of garbage and a grown young generation that
 * V8's own memory reducer does not give back on an idle process (docs/operations.md,
 * "Memory and GC"). A pause of a few tens of milliseconds, once.
 *
 * Without starting Node with --expose-gc, V8's collector is reached through the `gc`
 * function of a context made while that flag is set (v8.setFlagsFromString); the flag is
 * unset at once, so no other code, in this context or a later one, sees a `gc` function.
 */
export function compactHeap(): void {
  if (collect === null) {
    setFlagsFromString('--expose-gc');
    try {
      collect = runInNewContext('gc') as Collect;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  collect({ type: 'major', flavor: 'last-resort' });
}
