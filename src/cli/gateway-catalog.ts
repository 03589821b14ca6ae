import { buildCatalog } from '../catalog/build-catalog.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { catalogModelId, nearestModelId } from '../catalog/model-name.ts';
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
  const id = catalogModelId(catalog, name);
  if (id === undefined) {
    const near = nearestModelId(catalog, name);
    const hint = near === undefined ? '' : ` Did you mean "${near}"?`;
    throw new UsageError(
      `--default-model: "${name}" is not a model this gateway serves.${hint} ` +
        `(${catalog.models.length} models with this config and environment; \`switchyard config check\` lists them)`,
    );
  }
  return id;
}
