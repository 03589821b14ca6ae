import type { ProviderKind } from './provider-kinds.ts';
import type { SmtpConfig } from './parse-smtp.ts';
import type { OidcConfig } from './parse-oidc.ts';
import type { ResponseCacheConfig } from './parse-response-cache.ts';
import type { StickyConfig } from './parse-sticky.ts';
import type { WebhooksConfig } from './parse-webhooks.ts';
import type { AlertsConfig } from './parse-alerts.ts';
import type { SearchConfig } from './parse-search.ts';
import type { ByokConfig } from './parse-byok.ts';
import type { ModelKind } from '../canonical/task.ts';
import type { RequestParameter } from '../canonical/request.ts';
import type { PdfConfig } from './parse-pdf.ts';
import type { RecordsConfig } from './parse-records.ts';
import type { RetentionConfig } from './parse-retention.ts';
import type { McpConfig, McpServerConfig } from './parse-mcp.ts';
// The gateway's configuration after loading: the YAML file, `${ENV}` references, env
// overrides and defaults folded together. Provider and model entries stay as the operator
// wrote them (validated, camelCase); the catalog merges them with the built-ins.

import type { Capability } from '../canonical/capabilities.ts';
import type { CacheFamily, PricingSpec } from '../money/pricing.ts';
import type { TierLimits } from './tier-limits.ts';
import type { ModerationPattern } from './moderation-pattern.ts';
import type { ConfigSource } from './config-error.ts';

/** `auto`: the simulated provider is on only when no real provider is usable. */
export type SimSetting = boolean | 'auto';

export interface GatewayConfig {
  server: ServerConfig;
  /**
   * The SQLite file (`path`), or, with `url` (a postgres:// URL from DATABASE_URL or
   * `database.url`), Postgres: a fleet of gateways, with Redis (`redis.url`).
   */
  database: { path: string; url?: string };
  /** Redis (REDIS_URL or `redis.url`): credit holds, rate limits and invalidation shared by a fleet. */
  /** `commandTimeoutMs`: a Redis command without a reply within it fails closed (503); default 1000. */
  /** `inFlightLeaseMs`: a key's `max_in_flight` lease lives this long without renewal (default 30000). */
  redis: { url?: string; commandTimeoutMs?: number; inFlightLeaseMs?: number };
  /** `attemptMs`: first byte of each upstream attempt; `requestMs`: the whole request. */
  /** disconnectGraceMs: how long a stream whose client left is still read for its usage (0: cancelled at once). */
  /** drainMs: on SIGTERM/SIGINT, how long in-flight requests and streams may run on before they are cut. */
  /** holdGraceMs: how long a credit hold may outlive its request's deadline before it counts as abandoned (its process died) and is released. */
  /** holdJournalMs: how long a request's hold row may wait to ride with a settlement batch (0: written before the upstream call). */
  timeouts: {
    attemptMs: number;
    requestMs: number;
    disconnectGraceMs: number;
    drainMs: number;
    holdGraceMs: number;
    holdJournalMs: number;
  };
  /** USD credited to the operator account created on first start, as decimal text. */
  bootstrap: { credits: string };
  /** `accounts:` — bounds per account: `maxKeys`, the keys an account may hold (any kind, disabled ones included). */
  accounts: { maxKeys: number };
  sim: SimSetting;
  providers: ProviderInput[];
  models: ModelInput[];
  /** Rate-limit tiers: the defaults merged with the file's `tiers:`. */
  tiers: TierLimits[];
  moderation: ModerationConfig;
  /** `GET /metrics` (Prometheus): on by default, unauthenticated unless `token` is set (then `Authorization: Bearer <token>`). */
  metrics: MetricsConfig;
  /** `cache:` — opt-in response caching (parse-response-cache.ts). */
  cache: ResponseCacheConfig;
  /** `sticky:` — the bounds of sticky routing's memory, per account and in all (parse-sticky.ts). */
  sticky: StickyConfig;
  /** `webhooks:` — delivery of accounts' webhooks: SSRF, timeouts, retries, balance.low (parse-webhooks.ts). */
  webhooks: WebhooksConfig;
  /** Members' emailed sign-in links; null: not configured. */
  smtp: SmtpConfig | null;
  /** Single sign-on to the dashboard (docs/governance.md); null: none. */
  oidc: OidcConfig | null;
  /** `byok:` — accounts' own provider keys: the master key's reference and the fee (parse-byok.ts). */
  byok: ByokConfig;
  alerts: AlertsConfig;
  /** `pdf:` — the bounds of PDF text extraction (parse-pdf.ts, docs/pdf.md). */
  pdf: PdfConfig;
  /** `records:` — how long generation records are kept (parse-records.ts). */
  records: RecordsConfig;
  /** `retention:` — how long webhook deliveries, MCP tool calls and budget alerts are kept (parse-retention.ts). */
  retention: RetentionConfig;
  /** `search:` — the web search backend the gateway runs for models that cannot search (parse-search.ts, docs/tools.md); null: none. */
  search: SearchConfig | null;
  /** `mcp:` — the bounds of the MCP tools the gateway runs: SSRF, timeouts, sizes, turns (parse-mcp.ts, docs/tools.md). */
  mcp: McpConfig;
  /** `mcp_servers:` — the operator's MCP servers, whose tools requests may name (docs/tools.md). */
  mcpServers: McpServerConfig[];
  /** Where it came from (set by loadConfig/parseConfig): lets later errors, e.g. the catalog's, name the file and unset variables. */
  source?: ConfigSource;
}

/** Where to listen, and the limits and timeouts of the HTTP server (docs/security.md). */
export interface ServerConfig {
  host: string;
  port: number;
  /** Every route under this path ('' or e.g. '/gw'), for a reverse proxy that forwards a sub-path unchanged. */
  basePath?: string;
  /** Addresses of reverse proxies whose X-Forwarded-For/-Proto are believed (comma-separated IPs or CIDRs); absent: none. */
  trustProxy?: string;
  /**
   * The origin browsers reach the dashboard at (`https://gw.example.com`): a state-changing
   * dashboard request must name it as its Origin. Absent: the request's own Host.
   */
  publicOrigin?: string;
  /** GET /v1/models needs no key (absent: true; `false` asks for a valid key). */
  publicModels?: boolean;
  /** Larger request bodies are refused with 413 `request_too_large`. */
  bodyLimitBytes: number;
  /** A request (headers and body) must arrive whole within this. */
  requestTimeoutMs: number;
  /** The request headers must arrive within this; at most `requestTimeoutMs`. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A connection that sends nothing for this long while its request is received is closed. */
  idleTimeoutMs: number;
  /** How long an image answered as a URL is served (`GET /v1/images/files/<id>`). */
  imageUrlTtlSeconds: number;
  /** The most bytes of such images one process keeps; past it the oldest are dropped. */
  imageUrlMaxBytes: number;
}

export interface MetricsConfig {
  enabled: boolean;
  token?: string;
  /** `overhead_header: true`: non-streamed answers carry `X-Switchyard-Overhead-Ms`, the gateway's own time (absent: off). */
  overheadHeader?: boolean;
}

export interface ModerationConfig {
  /** Patterns compiled (RE2) when the config is loaded. */
  rules: Array<{ name: string; patterns: ModerationPattern[] }>;
  upstream: { baseUrl: string; apiKey?: string; model?: string; timeoutMs: number } | null;
  /** The most input characters moderation reads; longer input is not sent to moderated endpoints. */
  maxInputChars: number;
}

/**
 * A provider as written in the config. With the id of a built-in provider it overrides
 * that provider field by field; otherwise it defines a new one (then `kind` and `baseUrl`
 * are required, which the catalog checks).
 */
/** One credential of a provider's pool (`api_keys:` item). */
export interface CredentialInput {
  /** The secret (an env reference allowed, as for `api_key`). */
  key: string;
  /** Names the credential in records, logs, metrics and the admin API; never the secret. */
  label: string;
  /** Relative share of requests (default 1). */
  weight: number;
  /** Requests per minute this credential may carry (counted in process). */
  rpm?: number;
  /** Tokens per minute this credential may carry (counted in process). */
  tpm?: number;
  /** Upstream model globs (`gpt-4o*`) this credential may serve; absent: all. */
  models?: string[];
}

export interface ProviderInput {
  id: string;
  kind?: ProviderKind;
  name?: string;
  baseUrl?: string;
  /** Absent when the file gave none or an empty string (an unset `${VAR}`). */
  apiKey?: string;
  /** `api_keys:` — a pool of credentials (docs/configuration.md, "Credential pools"). */
  apiKeys?: CredentialInput[];
  headers?: Record<string, string>;
  timeoutMs?: number;
  cacheFamily?: CacheFamily;
  profile?: string;
  options?: Record<string, unknown>;
  enabled?: boolean;
  /** Requests to this provider's endpoints pass moderation first. */
  moderated?: boolean;
  /** Options that cost extra upstream, forwarded unpriced (`service_tier`, `web_search_options`, `plugins`). */
  unpricedOptions?: string[];
  /** Cloud region (kinds `bedrock` and `vertex`): `us-east-1`, `europe-west4`, `global`. */
  region?: string;
  /** The named profile of the AWS shared config and credentials files (kind `bedrock`). */
  awsProfile?: string;
  /** The Google Cloud project (kind `vertex`). */
  project?: string;
  /** A service-account JSON key file (kind `vertex`); absent: Application Default Credentials. */
  credentialsFile?: string;
}

/**
 * A model as written in the config. With the id of a built-in model it overrides the
 * fields given (`endpoints`, when given, replace the built-in ones).
 */
export interface ModelInput {
  id: string;
  /** What the model produces (default `chat`). */
  kind?: ModelKind;
  name?: string;
  description?: string;
  contextLength?: number;
  capabilities?: Capability[];
  aliases?: string[];
  /** Unix seconds. */
  created?: number;
  endpoints?: EndpointInput[];
  enabled?: boolean;
}

export interface EndpointInput {
  provider: string;
  /** Upstream model id; defaults to the name part of the model id. */
  model?: string;
  /** Decimal strings (YAML numbers are converted exactly at load). */
  pricing: PricingSpec;
  contextLength?: number;
  maxOutputTokens?: number;
  quantization?: string;
  dataCollection?: 'allow' | 'deny';
  zdr?: boolean;
  supportedParameters?: RequestParameter[];
  moderated?: boolean;
}
