import { closestMatch } from '../config/did-you-mean.ts';
import type { Catalog } from './catalog.ts';

// A model name an operator or an account stores (an account's default model): checked
// against the catalog when it is set, so a default no model serves is refused then rather
// than failing every request that relies on it.

/** The catalog id the name resolves to (with its `:variant`), or undefined when it names no model. */
export function catalogModelId(catalog: Catalog, name: string): string | undefined {
  const hit = catalog.resolve(name);
  if (hit === undefined) return undefined;
  return hit.variant === undefined ? hit.model.id : `${hit.model.id}:${hit.variant}`;
}

/** The catalog id nearest to a name that resolves to none (compared with ids and bare names, so `sim-fas` finds `switchyard/sim-fast`). */
export function nearestModelId(catalog: Catalog, name: string): string | undefined {
  const names = new Map<string, string>();
  for (const m of catalog.models) {
    names.set(m.id, m.id);
    names.set(m.id.slice(m.id.indexOf('/') + 1), m.id);
  }
  const near = closestMatch(name, names.keys());
  return near === undefined ? undefined : names.get(near);
}
