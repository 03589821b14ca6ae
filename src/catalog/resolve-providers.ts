import type { RequestParameter } from '../canonical/request.ts';
import { assertNever } from '../canonical/assert-never.ts';
import { ConfigError } from '../config/config-error.ts';
import type { ProviderKind } from '../config/provider-kinds.ts';
import { closestMatch } from '../config/did-you-mean.ts';
import type { GatewayConfig, ProviderInput } from '../config/types.ts';
import { BUILTIN_PROVIDERS, SIM_PROVIDER_ID } from './builtin-catalog.ts';
import type { BuiltinProvider } from './builtin/builtin-types.ts';
import type { CacheFamily, ProviderConfig } from './types.ts';
import { CredentialPool } from './credential-pool.ts';

type Env = Record<string, string | undefined>;

/** What the catalog needs to know of an adapter. */
export interface AdapterInfo {
  readonly supportedParameters: ReadonlySet<RequestParameter>;
  supportedParametersFor?(provider: ProviderConfig): ReadonlySet<RequestParameter>;
}

export interface ResolvedProvider {
  readonly config: ProviderConfig;
  readonly adapter: AdapterInfo;
  /** Parameters the adapter carries but this vendor does not honour (built-ins only). */
  readonly excludeParameters: readonly RequestParameter[];
}

interface Candidate {
  config: ProviderConfig;
  excludeParameters: readonly RequestParameter[];
  enabled: boolean;
  /** Said when the provider stays off though the config mentions it: silence would confuse. */
  offNote?: string;
}

/**
 * The providers that will serve: built-ins (enabled by their credential, overridable field
 * by field) and the config's own, each kept only when enabled and its kind has an adapter.
 * The sim provider follows `config.sim`; `auto` means on when no other provider serves.
 */
export function resolveProviders(
  config: GatewayConfig,
  env: Env,
  adapters: ReadonlyMap<string, AdapterInfo>,
  warnings: string[],
): Map<string, ResolvedProvider> {
  const overrides = new Map(config.providers.map((p) => [p.id, p]));
  const candidates: Candidate[] = [];
  for (const builtin of BUILTIN_PROVIDERS) candidates.push(fromBuiltin(builtin, overrides.get(builtin.id), config, env));
  const builtinIds = new Set(BUILTIN_PROVIDERS.map((b) => b.id));
  config.providers.forEach((input, i) => {
    if (!builtinIds.has(input.id)) candidates.push(fromConfig(input, `providers[${i}]`, config));
  });

  const serving = new Map<string, ResolvedProvider>();
  let sim: Candidate | undefined;
  for (const c of candidates) {
    if (c.config.id === SIM_PROVIDER_ID) {
      sim = c;
      continue;
    }
    admit(c, adapters, serving, warnings);
  }
  if (sim !== undefined) {
    const hasRealProvider = [...serving.values()].some((p) => p.config.kind !== 'sim');
    const override = overrides.get(SIM_PROVIDER_ID)?.enabled;
    sim.enabled = override ?? (config.sim === 'auto' ? !hasRealProvider : config.sim);
    admit(sim, adapters, serving, warnings);
  }
  return serving;
}

function admit(c: Candidate, adapters: ReadonlyMap<string, AdapterInfo>, serving: Map<string, ResolvedProvider>, warnings: string[]): void {
  const { id, kind } = c.config;
  if (!c.enabled) {
    if (c.offNote !== undefined) warnings.push(c.offNote);
    return;
  }
  const adapter = adapters.get(kind);
  if (adapter === undefined) {
    warnings.push(`provider "${id}" is disabled: no adapter for kind "${kind}" yet; its endpoints are dropped`);
    return;
  }
  serving.set(id, { config: c.config, adapter, excludeParameters: c.excludeParameters });
}

function fromBuiltin(b: BuiltinProvider, over: ProviderInput | undefined, config: GatewayConfig, env: Env): Candidate {
  const apiKey = over?.apiKey ?? over?.apiKeys?.[0]?.key ?? firstSet(env, b.credentialEnv);
  // With a pool, only the file's own api_key joins it (not the built-in's environment variable).
  const provider: ProviderConfig = {
    id: b.id,
    kind: over?.kind ?? b.kind,
    name: over?.name ?? b.name,
    baseUrl: over?.baseUrl ?? b.baseUrl,
    timeoutMs: over?.timeoutMs ?? config.timeouts.attemptMs,
    cacheFamily: over?.cacheFamily ?? b.cacheFamily,
  };
  if (apiKey !== undefined) provider.apiKey = apiKey;
  if (over?.apiKeys !== undefined) provider.credentials = poolFor(over, provider.kind, `providers[${over.id}]`);
  const headers = merged(b.headers, over?.headers);
  if (headers !== undefined) provider.headers = headers;
  const profile = over?.profile ?? b.profile;
  if (profile !== undefined) provider.profile = profile;
  const options = merged(b.options, over?.options);
  if (options !== undefined) provider.options = options;
  if (over?.moderated !== undefined) provider.moderated = over.moderated;
  if (over?.unpricedOptions !== undefined) provider.unpricedOptions = new Set(over.unpricedOptions);
  const needsKey = b.credentialEnv.length > 0;
  const candidate: Candidate = {
    config: provider,
    // A changed kind means another adapter whose parameters the built-in list does not describe.
    excludeParameters: provider.kind === b.kind ? (b.excludeParameters ?? []) : [],
    enabled: over?.enabled ?? (!needsKey || apiKey !== undefined),
  };
  if (over !== undefined && over.enabled === undefined && needsKey) {
    candidate.offNote = `provider "${b.id}" is configured but disabled: no credential (set ${b.credentialEnv.join(' or ')}, give api_key, or set enabled: true)`;
  }
  return candidate;
}

function fromConfig(input: ProviderInput, path: string, config: GatewayConfig): Candidate {
  const builtinIds = BUILTIN_PROVIDERS.map((b) => b.id);
  const near = closestMatch(input.id, builtinIds);
  if (input.kind === undefined && near !== undefined) {
    throw new ConfigError(
      `${path}.id`,
      `unknown provider "${input.id}". Did you mean "${near}"? (a provider that is not built in needs kind and base_url; built-in ids: ${builtinIds.join(', ')})`,
    );
  }
  if (input.kind === undefined) {
    throw new ConfigError(
      `${path}.kind`,
      `required for a provider that is not built in (built-in ids: ${BUILTIN_PROVIDERS.map((b) => b.id).join(', ')})`,
    );
  }
  const baseUrl = input.baseUrl ?? defaultBaseUrl(input);
  if (baseUrl === undefined) throw new ConfigError(`${path}.base_url`, 'required for a provider that is not built in');
  const provider: ProviderConfig = {
    id: input.id,
    kind: input.kind,
    name: input.name ?? input.id,
    baseUrl,
    timeoutMs: input.timeoutMs ?? config.timeouts.attemptMs,
    cacheFamily: input.cacheFamily ?? defaultCacheFamily(input.kind, input.profile),
  };
  const apiKey = input.apiKey ?? input.apiKeys?.[0]?.key;
  if (apiKey !== undefined) provider.apiKey = apiKey;
  if (input.apiKeys !== undefined) provider.credentials = poolFor(input, input.kind, path);
  if (input.headers !== undefined) provider.headers = input.headers;
  if (input.profile !== undefined) provider.profile = input.profile;
  if (input.options !== undefined) provider.options = input.options;
  if (input.moderated !== undefined) provider.moderated = input.moderated;
  if (input.unpricedOptions !== undefined) provider.unpricedOptions = new Set(input.unpricedOptions);
  if (input.region !== undefined) provider.region = input.region;
  if (input.awsProfile !== undefined) provider.awsProfile = input.awsProfile;
  if (input.project !== undefined) provider.project = input.project;
  if (input.credentialsFile !== undefined) provider.credentialsFile = input.credentialsFile;
  return { config: provider, excludeParameters: [], enabled: input.enabled ?? true };
}

/** The clouds' endpoints follow from the region; other kinds need `base_url`. */
function defaultBaseUrl(input: ProviderInput): string | undefined {
  switch (input.kind) {
    case 'sim':
      return 'sim://local';
    case 'bedrock':
      return input.region === undefined ? undefined : `https://bedrock-runtime.${input.region}.amazonaws.com`;
    case 'vertex':
      if (input.region === undefined) return undefined;
      return input.region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${input.region}-aiplatform.googleapis.com`;
    default:
      return undefined;
  }
}

/** Unknown servers get `none` (cache reads at the full prompt price), which never undercharges. */
function defaultCacheFamily(kind: ProviderKind, profile?: string): CacheFamily {
  switch (kind) {
    // Bedrock's cache points and Vertex's Claude are priced as Anthropic's breakpoints are.
    case 'anthropic':
    case 'bedrock':
      return 'cache_control';
    case 'vertex':
      return profile === 'anthropic' ? 'cache_control' : 'none';
    case 'openai':
    case 'google':
    case 'sim':
      return 'none';
    default:
      return assertNever(kind);
  }
}

function firstSet(env: Env, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

function merged<T>(base: Record<string, T> | undefined, over: Record<string, T> | undefined): Record<string, T> | undefined {
  if (base === undefined && over === undefined) return undefined;
  return { ...base, ...over };
}

/** Kinds whose adapters carry the key in a header the transport can swap per attempt (call-upstream.ts). */
const POOLED_KINDS: ReadonlySet<ProviderKind> = new Set<ProviderKind>(['openai', 'anthropic', 'google']);

function poolFor(input: ProviderInput, kind: ProviderKind, path: string): CredentialPool {
  if (!POOLED_KINDS.has(kind)) {
    throw new ConfigError(
      `${path}.api_keys`,
      `credential pools are not supported for kind "${kind}" yet (supported: ${[...POOLED_KINDS].join(', ')}); use api_key`,
    );
  }
  // `api_key` beside `api_keys` is one more credential of the pool, labelled `default`.
  const list = input.apiKeys!;
  if (input.apiKey === undefined) return new CredentialPool(list);
  if (list.some((c) => c.label === 'default')) {
    throw new ConfigError(
      `${path}.api_keys`,
      'the label "default" names the provider\'s api_key when both api_key and api_keys are given; choose another label',
    );
  }
  return new CredentialPool([{ key: input.apiKey, label: 'default', weight: 1 }, ...list]);
}
