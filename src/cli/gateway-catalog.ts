import { buildCatalog } from '../catalog/build-catalog.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { closestMatch } from '../config/did-you-mean.ts';
import type { GatewayConfig } from '../config/types.ts';
import { builtinAdapters } from '../providers/registry.ts';
import { UsageError } from './output.ts';

/** The catalog the gateway would build from the same config and environment. */
export function gatewayCatalog(config: GatewayConfig): { catalog: Catalog; warnings: string[] } {
  return buildCatalog(config, process.env, builtinAdapters());
}

/**
 * A model name an account may default to, checked against that catalog: returns its
 * catalog id (with its `:variant`), so the stored default is what the gateway serves.
 */
export function checkModelName(config: GatewayConfig, name: string): string {
  const { catalog } = gatewayCatalog(config);
  const hit = catalog.resolve(name);
  if (hit === undefined) {
    const ids = catalog.models.map((m) => m.id);
    // Compared with ids and with bare names, so `sim-fas` suggests `switchyard/sim-fast`.
    const names = new Map<string, string>();
    for (const id of ids) {
      names.set(id, id);
      names.set(id.slice(id.indexOf('/') + 1), id);
    }
    const near = closestMatch(name, names.keys());
    const hint = near === undefined ? '' : ` Did you mean "${names.get(near)}"?`;
    throw new UsageError(`--default-model: "${name}" is not a model this gateway serves.${hint} ` +
      `(${ids.length} models with this config and environment; \`switchyard config check\` lists them)`);
  }
  return hit.variant === undefined ? hit.model.id : `${hit.model.id}:${hit.variant}`;
}
