import type { Endpoint, PlannedAttempt, ProviderConfig } from '../catalog/types.ts';
import { scalePricing } from '../money/scale-pricing.ts';
import type { AccountByok, AccountByokKey } from '../providers/byok-credential.ts';

export type { AccountByok, AccountByokKey } from '../providers/byok-credential.ts';

// An account's own provider keys (docs/byok.md) in a plan: each attempt at a provider the
// account has a key for is carried by a copy of its endpoint whose provider holds that key
// (the adapters write it, Bedrock signs with it, Vertex mints its token with it) and whose
// prices are the BYOK fee's share of the model's, so that holds, limits of money and the
// charge all use the fee. Mode `prefer`: the operator's endpoint follows as the fallback;
// `only`: it is dropped, and the plan goes on to other providers.

export interface ByokPlan {
  plan: PlannedAttempt[];
  /** The operator's attempts kept as `prefer` fallbacks (dropped when the account cannot pay their price). */
  fallbacks: ReadonlySet<PlannedAttempt>;
}

/** The BYOK copies, kept per key object (a key read again is a new object): adapters cache by endpoint and provider. */
const copies = new WeakMap<
  AccountByokKey,
  { fee: number; providers: Map<ProviderConfig, ProviderConfig>; endpoints: Map<Endpoint, Endpoint> }
>();

export function byokPlan(plan: readonly PlannedAttempt[], byok: AccountByok): ByokPlan {
  const out: PlannedAttempt[] = [];
  const fallbacks = new Set<PlannedAttempt>();
  for (const attempt of plan) {
    // Mode `only` with a key that cannot be opened: neither its key nor the operator's.
    if (byok.unusable.has(attempt.endpoint.provider.id)) continue;
    const key = byok.keys.get(attempt.endpoint.provider.id);
    if (key === undefined) {
      out.push(attempt);
      continue;
    }
    out.push({ model: attempt.model, endpoint: byokEndpoint(attempt.endpoint, key, byok) });
    if (key.mode === 'prefer') {
      out.push(attempt);
      fallbacks.add(attempt);
    }
  }
  return { plan: out, fallbacks };
}

/** True when the endpoint carries an account's own key. */
export function isByok(endpoint: Endpoint): boolean {
  return endpoint.provider.byok !== undefined;
}

function byokEndpoint(endpoint: Endpoint, key: AccountByokKey, byok: AccountByok): Endpoint {
  let cache = copies.get(key);
  if (cache === undefined || cache.fee !== byok.feeBasisPoints) {
    cache = { fee: byok.feeBasisPoints, providers: new Map(), endpoints: new Map() };
    copies.set(key, cache);
  }
  let copy = cache.endpoints.get(endpoint);
  if (copy !== undefined) return copy;
  let provider = cache.providers.get(endpoint.provider);
  if (provider === undefined) {
    provider = byokProvider(endpoint.provider, key, byok.accountId);
    cache.providers.set(endpoint.provider, provider);
  }
  copy = { ...endpoint, provider, compiledPricing: scalePricing(endpoint.compiledPricing, byok.feeBasisPoints) };
  cache.endpoints.set(endpoint, copy);
  return copy;
}

function byokProvider(p: ProviderConfig, key: AccountByokKey, accountId: string): ProviderConfig {
  const { credentials: _pool, apiKey: _key, awsProfile: _profile, credentialsFile: _file, ...rest } = p;
  const copy: ProviderConfig = { ...rest, byok: { accountId, mode: key.mode } };
  const c = key.credential;
  if (c.apiKey !== undefined) copy.apiKey = c.apiKey;
  if (c.awsKeyPair !== undefined) copy.awsKeyPair = c.awsKeyPair;
  if (c.serviceAccount !== undefined) {
    copy.serviceAccount = c.serviceAccount;
    // The account's own project bills its Vertex calls.
    if (typeof c.serviceAccount.project_id === 'string') copy.project = c.serviceAccount.project_id;
  }
  return copy;
}
