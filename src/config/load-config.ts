import { parseSmtp } from './parse-smtp.ts';
import { parseOidc } from './parse-oidc.ts';
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { ConfigError, explainConfigError, type ConfigSource } from './config-error.ts';
import { parseModels } from './parse-models.ts';
import { parseAlerts } from './parse-alerts.ts';
import { parseModeration } from './parse-moderation.ts';
import { parseTiers } from './parse-tiers.ts';
import { parseRecords } from './parse-records.ts';
import { parseRetention } from './parse-retention.ts';
import { parseProviders } from './parse-providers.ts';
import { parseResponseCache } from './parse-response-cache.ts';
import { parseSticky } from './parse-sticky.ts';
import { parseWebhooks } from './parse-webhooks.ts';
import { parseByok } from './parse-byok.ts';
import { parsePdf } from './parse-pdf.ts';
import { parseSearch } from './parse-search.ts';
import { parseMcp, parseMcpServers } from './parse-mcp.ts';
import { parseServer, SERVER_DEFAULTS, SERVER_KEYS } from './parse-server.ts';
import { at, checkKeys, optBoolean, optInt, optString, readBoolean, readInt, readMapping, readUsd, type Fields } from './read-fields.ts';
import { resolveDatabase } from './resolve-database-path.ts';
import { resolveEnvReferences } from './resolve-env-references.ts';
import { resolveSecretFields, SECRET_FIELDS } from './resolve-secret-references.ts';
import { withUrlPassword } from './url-password.ts';
import type { GatewayConfig, SimSetting } from './types.ts';

type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** From `--config`; else env `SWITCHYARD_CONFIG`; else no file (all defaults). */
  path?: string;
  env: Env;
  /** CLI flags, which win over env and file. */
  overrides?: { host?: string; port?: number };
  /**
   * `stores`: resolve only the database's and Redis's secret references (the CLI's commands
   * that only open the database: the operator's shell need not see the providers' secrets).
   * Default `all`.
   */
  secrets?: 'all' | 'stores';
}

export const CONFIG_DEFAULTS = {
  host: SERVER_DEFAULTS.host,
  port: SERVER_DEFAULTS.port,
  attemptMs: 60_000,
  requestMs: 300_000,
  disconnectGraceMs: 10_000,
  drainMs: 30_000,
  holdGraceMs: 60_000,
  /** How long a request's hold row may wait for a batch before it is written (docs/billing.md); 0: before the upstream call. */
  holdJournalMs: 100,
  credits: '10',
  sim: 'auto',
  /** Keys an account may hold (docs/configuration.md): past it, creating one is refused (403 key_limit_reached). */
  maxKeysPerAccount: 1000,
} as const;

const TOP_KEYS = [
  'server',
  'database',
  'redis',
  'timeouts',
  'bootstrap',
  'accounts',
  'sim',
  'providers',
  'models',
  'tiers',
  'moderation',
  'metrics',
  'cache',
  'sticky',
  'pdf',
  'records',
  'webhooks',
  'search',
  'mcp',
  'mcp_servers',
  'smtp',
  'oidc',
  'byok',
  'alerts',
  'retention',
] as const;

/** Reads, resolves and validates the configuration. Throws ConfigError naming the field at fault. */
export function loadConfig(opts: LoadConfigOptions): GatewayConfig {
  const env = opts.env;
  const file = opts.path ?? (env.SWITCHYARD_CONFIG === '' ? undefined : env.SWITCHYARD_CONFIG);
  const tree = file === undefined ? {} : readYamlFile(file);
  return parseConfig(tree, env, opts.overrides, file, opts.secrets === 'stores' ? STORE_SECRET_FIELDS : SECRET_FIELDS);
}

const STORE_SECRET_FIELDS = SECRET_FIELDS.filter((f) => f.startsWith('database.') || f.startsWith('redis.'));

/**
 * The same as loadConfig for a tree already parsed (tests, `config check` tooling).
 * Errors name `file` when given, and the unset variable a faulty field came from.
 */
export function parseConfig(
  tree: unknown,
  env: Env,
  overrides: LoadConfigOptions['overrides'] = {},
  file?: string,
  secretFields: readonly string[] = SECRET_FIELDS,
): GatewayConfig {
  const unsetReferences = new Map<string, string[]>();
  const source: ConfigSource = file === undefined ? { file, unsetReferences } : { file, unsetReferences, tree };
  try {
    // `${VAR}` first, so a reference may be built from variables (`file:${SECRETS_DIR}/openai`).
    const resolved = resolveSecretFields(resolveEnvReferences(tree ?? {}, env, '', unsetReferences), env, secretFields);
    const config = parseTree(resolved, env, overrides);
    // A sign-in link's origin must not come from a request's Host header (another host could get the token).
    if (config.smtp !== null && config.server.publicOrigin === undefined) {
      throw new Error('smtp: needs server.public_origin (https://gateway.example.com): the emailed sign-in links point there.');
    }
    // Nor the address the provider sends the browser back to.
    if (config.oidc !== null && config.oidc.redirectUri === null && config.server.publicOrigin === undefined) {
      throw new Error(
        'oidc: needs oidc.redirect_uri or server.public_origin (https://gateway.example.com): the provider sends the browser back there.',
      );
    }
    // Not enumerable: a record of where the config came from, not a setting (deep-equal comparisons ignore it).
    Object.defineProperty(config, 'source', { value: source, enumerable: false });
    return config;
  } catch (err) {
    throw explainConfigError(err, source);
  }
}

function parseTree(resolved: unknown, env: Env, overrides: NonNullable<LoadConfigOptions['overrides']>): GatewayConfig {
  const root = readMapping(resolved, '');
  checkKeys(root, TOP_KEYS, '');

  const server = section(root, 'server', [...SERVER_KEYS, 'public_models']);
  const database = section(root, 'database', ['path', 'url', 'password']);
  const redis = section(root, 'redis', ['url', 'password', 'command_timeout_ms', 'in_flight_lease_ms']);
  const timeouts = section(root, 'timeouts', [
    'attempt_ms',
    'request_ms',
    'disconnect_grace_ms',
    'drain_ms',
    'hold_grace_ms',
    'hold_journal_ms',
  ]);
  const bootstrap = section(root, 'bootstrap', ['credits']);
  const accounts = section(root, 'accounts', ['max_keys']);
  const metrics = section(root, 'metrics', ['enabled', 'token', 'overhead_header']);

  const envHost = env.HOST === '' ? undefined : env.HOST;
  const envPort = env.PORT === undefined || env.PORT === '' ? undefined : readInt(env.PORT, 'env PORT', 0, 65535);

  return {
    server: { ...parseServer(server, { host: overrides.host ?? envHost, port: overrides.port ?? envPort }), ...publicModels(server) },
    database: databaseWithPassword(
      resolveDatabase(env, optString(database, 'path', 'database'), optString(database, 'url', 'database')),
      optString(database, 'password', 'database'),
    ),
    redis: {
      ...redisUrl(env, optString(redis, 'url', 'redis'), optString(redis, 'password', 'redis')),
      ...optional('commandTimeoutMs', optInt(redis, 'command_timeout_ms', 'redis', 10, 60_000)),
      ...optional('inFlightLeaseMs', optInt(redis, 'in_flight_lease_ms', 'redis', 1000, 600_000)),
    },
    timeouts: {
      attemptMs: optInt(timeouts, 'attempt_ms', 'timeouts', 1) ?? CONFIG_DEFAULTS.attemptMs,
      requestMs: optInt(timeouts, 'request_ms', 'timeouts', 1) ?? CONFIG_DEFAULTS.requestMs,
      disconnectGraceMs: optInt(timeouts, 'disconnect_grace_ms', 'timeouts', 0) ?? CONFIG_DEFAULTS.disconnectGraceMs,
      drainMs: optInt(timeouts, 'drain_ms', 'timeouts', 0) ?? CONFIG_DEFAULTS.drainMs,
      holdGraceMs: optInt(timeouts, 'hold_grace_ms', 'timeouts', 1) ?? CONFIG_DEFAULTS.holdGraceMs,
      holdJournalMs: optInt(timeouts, 'hold_journal_ms', 'timeouts', 0, 10_000) ?? CONFIG_DEFAULTS.holdJournalMs,
    },
    bootstrap: {
      credits:
        bootstrap.credits === undefined || bootstrap.credits === null
          ? CONFIG_DEFAULTS.credits
          : readUsd(bootstrap.credits, 'bootstrap.credits'),
    },
    accounts: { maxKeys: optInt(accounts, 'max_keys', 'accounts', 1, 1_000_000) ?? CONFIG_DEFAULTS.maxKeysPerAccount },
    sim: readSim(root.sim),
    providers: parseProviders(root.providers, 'providers'),
    models: parseModels(root.models, 'models'),
    tiers: parseTiers(root.tiers, 'tiers'),
    moderation: parseModeration(root.moderation, 'moderation'),
    metrics: parseMetrics(metrics),
    cache: parseResponseCache(root.cache, 'cache'),
    sticky: parseSticky(root.sticky, 'sticky'),
    webhooks: parseWebhooks(root.webhooks, 'webhooks'),
    smtp: parseSmtp(root.smtp, 'smtp'),
    oidc: parseOidc(root.oidc, 'oidc'),
    byok: parseByok(root.byok, 'byok'),
    alerts: parseAlerts(root.alerts, 'alerts'),
    pdf: parsePdf(root.pdf, 'pdf'),
    records: parseRecords(root.records, 'records'),
    retention: parseRetention(root.retention, 'retention'),
    search: parseSearch(root.search, 'search'),
    mcp: parseMcp(root.mcp, 'mcp'),
    mcpServers: parseMcpServers(root.mcp_servers, 'mcp_servers'),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** `redis.url`, or REDIS_URL (which wins); shared/select-backends.ts checks it goes with Postgres. `redis.password` goes into it. */
function redisUrl(env: Env, fileUrl: string | undefined, password: string | undefined): GatewayConfig['redis'] {
  const url = env.REDIS_URL !== undefined && env.REDIS_URL !== '' ? env.REDIS_URL : fileUrl;
  if (url === undefined || url === '') {
    if (password !== undefined) throw new ConfigError('redis.password', 'needs a Redis URL (redis.url or REDIS_URL) to go with');
    return {};
  }
  return { url: password === undefined ? url : withUrlPassword(url, password, 'redis.password') };
}

/** `database.password` goes into the Postgres URL (DATABASE_URL or database.url). */
function databaseWithPassword(database: GatewayConfig['database'], password: string | undefined): GatewayConfig['database'] {
  if (password === undefined) return database;
  if (database.url === undefined)
    throw new ConfigError('database.password', 'needs a Postgres URL (database.url or DATABASE_URL) to go with; SQLite has no password');
  return { ...database, url: withUrlPassword(database.url, password, 'database.password') };
}

/** `metrics:` — an empty token (an unset `${VAR}`) is no token; `overhead_header` only when the file says. */
function parseMetrics(fields: Fields): GatewayConfig['metrics'] {
  const token = optString(fields, 'token', 'metrics');
  const overheadHeader = optBoolean(fields, 'overhead_header', 'metrics');
  return {
    enabled: optBoolean(fields, 'enabled', 'metrics') ?? true,
    ...(token === undefined || token === '' ? {} : { token }),
    ...(overheadHeader === undefined ? {} : { overheadHeader }),
  };
}

/** Only when the file says: absent means public (the default). */
function publicModels(server: Fields): { publicModels?: boolean } {
  const value = optBoolean(server, 'public_models', 'server');
  return value === undefined ? {} : { publicModels: value };
}

function section(root: Fields, key: string, allowed: readonly string[]): Fields {
  const value = root[key];
  if (value === undefined || value === null) return {};
  const fields = readMapping(value, key);
  checkKeys(fields, allowed, key);
  return fields;
}

function readSim(value: unknown): SimSetting {
  if (value === undefined || value === null || value === '') return CONFIG_DEFAULTS.sim;
  if (value === 'auto') return 'auto';
  if (value === true || value === false || value === 'true' || value === 'false') return readBoolean(value, 'sim');
  throw new ConfigError(at('', 'sim'), 'expected true, false or auto');
}

function readYamlFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file (check the --config path or SWITCHYARD_CONFIG)' : (code ?? (err as Error).message);
    throw new ConfigError('', `cannot read ${file}: ${why}`);
  }
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const first = doc.errors[0];
  // First line only: the rest quotes the source, which may hold a secret.
  if (first !== undefined) throw new ConfigError('', `${file} is not valid YAML: ${first.message.split('\n')[0]}`);
  return doc.toJS() ?? {};
}
