// The catalog: models (`<author>/<name>`) and the provider endpoints that serve them.
// Built once at boot from the built-in catalog, the credentials present and the config.

import type { RequestParameter } from '../canonical/request.ts';
import type { Capability } from '../canonical/capabilities.ts';
import type { CredentialPool } from './credential-pool.ts';
import type { CacheFamily, CompiledPricing, PricingSpec } from '../money/pricing.ts';

export type { Capability } from '../canonical/capabilities.ts';
export type { ModelKind } from '../canonical/task.ts';
import type { ModelKind } from '../canonical/task.ts';
import type { ProviderKind } from '../config/provider-kinds.ts';
export type { CacheFamily, PricingSpec } from '../money/pricing.ts';

export interface ProviderConfig {
  /** Slug used in routing (`openai`, `anthropic`, `local`, ...). */
  id: string;
  /** Adapter kind: `openai`, `anthropic`, `google`, `bedrock`, `vertex`, `sim`. */
  kind: ProviderKind;
  name: string;
  baseUrl: string;
  apiKey?: string;
  /**
   * `api_keys:` — several credentials, one picked per attempt (credential-pool.ts). `apiKey`
   * is then the first's key: the adapters write it, and the transport swaps in the pick.
   */
  credentials?: CredentialPool;
  /** Extra headers sent upstream with every request. */
  headers?: Record<string, string>;
  /** Per-attempt timeout in ms. */
  timeoutMs: number;
  cacheFamily: CacheFamily;
  /** Vendor profile of the adapter (for `openai`: `openai`, `generic`, ...): quirks and accepted params. */
  profile?: string;
  /** Adapter-specific settings (e.g. the `sim` provider's pace). */
  options?: Record<string, unknown>;
  /** Every endpoint of this provider is moderated. */
  moderated?: boolean;
  /** Options that cost extra upstream which the operator lets through unpriced (config/unpriced-options.ts). */
  unpricedOptions?: ReadonlySet<string>;
  /** Cloud region (kinds `bedrock`, `vertex`): part of the URL, and of a SigV4 signature. */
  region?: string;
  /** AWS shared-config profile for the credential chain (kind `bedrock`). */
  awsProfile?: string;
  /** Google Cloud project (kind `vertex`). */
  project?: string;
  /** Service-account key file (kind `vertex`); absent: Application Default Credentials. */
  credentialsFile?: string;
  /** An account's own AWS key pair (a BYOK copy of a `bedrock` provider): SigV4 signs with it, not the AWS chain. */
  awsKeyPair?: AwsKeyPair;
  /** An account's own service account (a BYOK copy of a `vertex` provider): its token, not the operator's credentials. */
  serviceAccount?: ServiceAccountKey;
  /** Set on the copy of a provider that carries an account's own key (routing/byok-plan.ts). */
  byok?: { readonly accountId: string; readonly mode: ByokMode };
}

/** How an account uses its own key for a provider (docs/byok.md): before the operator's, or instead of it. */
export type ByokMode = 'prefer' | 'only';

/** An AWS access key pair (an account's own Bedrock credentials, docs/byok.md). */
export interface AwsKeyPair {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** A Google service account's JSON key (an account's own Vertex credentials, docs/byok.md). */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  project_id?: string;
  type: 'service_account';
  [field: string]: unknown;
}

export interface Endpoint {
  /**
   * `<provider id>/<upstream model>`: unique within a model. Models that share an upstream
   * model have endpoints with the same id, and so one health record and one circuit.
   */
  id: string;
  modelId: string;
  provider: ProviderConfig;
  upstreamModel: string;
  pricing: PricingSpec;
  compiledPricing: CompiledPricing;
  contextLength: number;
  maxOutputTokens?: number;
  quantization?: string;
  dataCollection: 'allow' | 'deny';
  zdr: boolean;
  /** Request parameters this endpoint honours (chat-table names: `temperature`, `tools`, ...). */
  supportedParameters: ReadonlySet<RequestParameter>;
  /** Requests bound here pass moderation first (config: provider or endpoint `moderated: true`). */
  moderated?: boolean;
}

export interface ModelInfo {
  id: string; // author/name
  /** What the model produces: a request goes only to a model of its kind. */
  kind: ModelKind;
  name: string;
  author: string;
  description: string;
  contextLength: number;
  capabilities: Capability[];
  /** Other names that resolve to this model (dated vendor names, bare names). */
  aliases: string[];
  /** Unix seconds. */
  created: number;
  endpoints: Endpoint[];
}

/** One (model, endpoint) pair of a plan: what the executor may try, in plan order, and what limits and holds are counted against. */
export interface PlannedAttempt {
  model: ModelInfo;
  endpoint: Endpoint;
}
