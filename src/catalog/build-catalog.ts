import type { RequestParameter } from '../canonical/request.ts';
import { compilePricing, type CompiledPricing } from '../money/pricing.ts';
import { ConfigError, explainConfigError } from '../config/config-error.ts';
import { didYouMean } from '../config/did-you-mean.ts';
import type { GatewayConfig } from '../config/types.ts';
import { BUILTIN_MODELS, BUILTIN_PROVIDERS } from './builtin-catalog.ts';
import { Catalog } from './catalog.ts';
import { mergeModels, type EndpointDraft, type ModelDraft } from './merge-models.ts';
import { resolveProviders, type AdapterInfo, type ResolvedProvider } from './resolve-providers.ts';
import type { Endpoint, ModelInfo, ProviderConfig } from './types.ts';

export type { AdapterInfo } from './resolve-providers.ts';

type Env = Record<string, string | undefined>;

export interface BuiltCatalog {
  catalog: Catalog;
  /** Notes for the startup log (the same as `catalog.warnings`). Never secrets. */
  warnings: string[];
}

/**
 * Builds the catalog once at boot: built-in providers enabled by the credentials in `env`,
 * merged with the config; endpoints compiled (prices, parameters, limits). Endpoints whose
 * provider does not serve are dropped, and so are models left without one; what the
 * operator wrote and lost is reported in `warnings`. Throws ConfigError for config
 * it cannot make sense of.
 */
export function buildCatalog(config: GatewayConfig, env: Env, adapters: ReadonlyMap<string, AdapterInfo>): BuiltCatalog {
  try {
    return build(config, env, adapters);
  } catch (err) {
    // Names the config file, and the unset variable a faulty field came from.
    throw explainConfigError(err, config.source);
  }
}

function build(config: GatewayConfig, env: Env, adapters: ReadonlyMap<string, AdapterInfo>): BuiltCatalog {
  const warnings: string[] = [];
  const serving = resolveProviders(config, env, adapters, warnings);
  // Tells a disabled provider from a typo in the warnings.
  const knownIds = new Set<string>([...BUILTIN_PROVIDERS.map((p) => p.id), ...config.providers.map((p) => p.id)]);
  const parameterSets = new Map<string, ReadonlySet<RequestParameter>>();
  const models: ModelInfo[] = [];

  for (const draft of mergeModels(BUILTIN_MODELS, config.models)) {
    if (!draft.enabled) continue;
    const contextLength = modelContextLength(draft);
    const endpoints: Endpoint[] = [];
    // Several models may share one upstream model (aliases re-priced by the operator): each
    // has its own endpoint with its own price, under the same id, so health and circuit
    // (keyed by the id) are shared. Within a model, an endpoint listed twice is one too many.
    const endpointIds = new Set<string>();
    for (const ep of draft.endpoints) {
      const provider = serving.get(ep.provider);
      if (provider === undefined) {
        if (ep.path === undefined) continue;
        // A typo is an error; a known provider that is off (no credential) only drops the endpoint.
        if (!knownIds.has(ep.provider)) {
          throw new ConfigError(
            `${ep.path}.provider`,
            `unknown provider "${ep.provider}".${didYouMean(ep.provider, knownIds)} Use a built-in provider id or one defined under providers: (known: ${[...knownIds].join(', ')})`,
          );
        }
        warnings.push(`${ep.path} (${draft.id}): provider "${ep.provider}" is not enabled; endpoint dropped`);
        continue;
      }
      const id = `${provider.config.id}/${ep.model}`;
      if (endpointIds.has(id)) {
        warnings.push(`${ep.path ?? draft.id}: endpoint ${id} is listed twice for ${draft.id}; dropped`);
        continue;
      }
      endpointIds.add(id);
      endpoints.push(compileEndpoint(draft, ep, provider, id, contextLength, parameterSets));
    }
    if (endpoints.length === 0) {
      if (draft.path !== undefined) warnings.push(`${draft.path} (${draft.id}): no usable endpoint; model dropped`);
      continue;
    }
    models.push({
      id: draft.id,
      kind: draft.kind,
      name: draft.name,
      author: draft.id.slice(0, draft.id.indexOf('/')),
      description: draft.description,
      contextLength,
      capabilities: draft.capabilities,
      aliases: draft.aliases,
      created: draft.created,
      endpoints,
    });
  }

  const providers = new Map<string, ProviderConfig>();
  for (const [id, p] of serving) providers.set(id, p.config);
  const catalog = new Catalog(models, providers, warnings);
  return { catalog, warnings: [...catalog.warnings] };
}

/** The prompt bound of image, speech and transcription models that state no context length. */
const TASK_PROMPT_TOKENS = 32_000;

function modelContextLength(draft: ModelDraft): number {
  if (draft.contextLength !== undefined) return draft.contextLength;
  let max = 0;
  for (const ep of draft.endpoints) if (ep.contextLength !== undefined && ep.contextLength > max) max = ep.contextLength;
  if (max > 0) return max;
  // Image, speech and transcription models take a prompt, not a context: it only bounds the prompt's hold.
  if (draft.kind === 'image' || draft.kind === 'speech' || draft.kind === 'transcription') return TASK_PROMPT_TOKENS;
  throw new ConfigError(
    `${draft.path ?? draft.id}.context_length`,
    'required for a model that is not built in (or give each endpoint a context_length)',
  );
}

function compileEndpoint(
  draft: ModelDraft,
  ep: EndpointDraft,
  provider: ResolvedProvider,
  id: string,
  contextLength: number,
  parameterSets: Map<string, ReadonlySet<RequestParameter>>,
): Endpoint {
  let compiledPricing: CompiledPricing;
  try {
    compiledPricing = compilePricing(ep.pricing, provider.config.cacheFamily);
  } catch (err) {
    throw new ConfigError(`${ep.path ?? draft.id}.pricing`, (err as Error).message);
  }
  const endpoint: Endpoint = {
    id,
    modelId: draft.id,
    provider: provider.config,
    upstreamModel: ep.model,
    pricing: ep.pricing,
    compiledPricing,
    contextLength: ep.contextLength ?? contextLength,
    dataCollection: ep.dataCollection,
    zdr: ep.zdr,
    supportedParameters: supportedParameters(ep, provider, parameterSets),
    moderated: ep.moderated ?? provider.config.moderated ?? false,
  };
  const maxOutputTokens = ep.maxOutputTokens ?? draft.maxOutputTokens;
  if (maxOutputTokens !== undefined) endpoint.maxOutputTokens = maxOutputTokens;
  if (ep.quantization !== undefined) endpoint.quantization = ep.quantization;
  return endpoint;
}

/** Endpoints with the same exclusions share one set: dozens of endpoints, a handful of sets. */
function supportedParameters(
  ep: EndpointDraft,
  provider: ResolvedProvider,
  cache: Map<string, ReadonlySet<RequestParameter>>,
): ReadonlySet<RequestParameter> {
  if (ep.supportedParameters !== undefined) return new Set(ep.supportedParameters);
  const base = provider.adapter.supportedParametersFor?.(provider.config) ?? provider.adapter.supportedParameters;
  const excluded = [...provider.excludeParameters, ...(ep.excludeParameters ?? [])];
  if (excluded.length === 0) return base;
  const key = `${provider.config.id}\0${[...new Set(excluded)].sort().join(',')}`;
  let set = cache.get(key);
  if (set === undefined) {
    const drop = new Set(excluded);
    set = new Set([...base].filter((p) => !drop.has(p)));
    cache.set(key, set);
  }
  return set;
}
