import { BUILTIN_PROVIDERS, SIM_PROVIDER_ID } from '../catalog/builtin-catalog.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { GatewayConfig } from '../config/types.ts';
import { builtinAdapters } from '../providers/registry.ts';

export interface ProviderStatus {
  id: string;
  kind: string;
  enabled: boolean;
  /** Why it serves or why not; names variables, never their values. */
  why: string;
}

/** Every provider the gateway knows of (built-in and configured), whether it serves, and why. */
export function describeProviders(config: GatewayConfig, catalog: Catalog, env: Record<string, string | undefined>): ProviderStatus[] {
  const adapters = builtinAdapters();
  const overrides = new Map(config.providers.map((p) => [p.id, p]));
  const out: ProviderStatus[] = [];
  const set = (name: string): boolean => env[name] !== undefined && env[name] !== '';
  for (const b of BUILTIN_PROVIDERS) {
    const over = overrides.get(b.id);
    const kind = over?.kind ?? b.kind;
    const enabled = catalog.providers.has(b.id);
    let why: string;
    if (b.id === SIM_PROVIDER_ID) {
      why =
        over?.enabled !== undefined
          ? `enabled: ${over.enabled} in the config`
          : config.sim === 'auto'
            ? enabled
              ? 'sim: auto, and no other provider serves'
              : 'sim: auto, and another provider serves'
            : `sim: ${config.sim}`;
    } else if (over?.enabled === false) why = 'enabled: false in the config';
    else if (!adapters.has(kind)) why = `no adapter for kind "${kind}" yet`;
    else if (b.credentialEnv.length === 0) why = 'needs no credential';
    else if (over?.apiKey !== undefined) why = 'api_key in the config';
    else {
      const from = b.credentialEnv.find(set);
      why =
        from !== undefined
          ? `credential from ${from}`
          : over?.enabled === true
            ? 'enabled: true in the config'
            : `no credential: set ${b.credentialEnv.join(' or ')}`;
    }
    out.push({ id: b.id, kind, enabled, why });
  }
  const builtinIds = new Set(BUILTIN_PROVIDERS.map((b) => b.id));
  for (const p of config.providers) {
    if (builtinIds.has(p.id)) continue;
    const enabled = catalog.providers.has(p.id);
    const kind = p.kind ?? '?';
    const why = enabled
      ? 'defined in the config'
      : p.enabled === false
        ? 'enabled: false in the config'
        : `no adapter for kind "${kind}" yet`;
    out.push({ id: p.id, kind, enabled, why });
  }
  return out;
}
