import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/load-config.ts';
import type { GatewayConfig } from '../../src/config/types.ts';
import { buildApp } from '../../src/server/build-app.ts';
import { seededRandom } from '../../src/canonical/seeded-random.test-util.ts';
import { createServices, type ServiceOptions, type Services } from '../../src/server/services.ts';
import { createFleetServices } from '../../src/server/fleet-services.ts';
import type { DatabaseSync } from 'node:sqlite';
import type { Stores } from '../../src/store/store-contract.ts';
import { sqliteDatabaseOf } from './sqlite-database.ts';
import type { SpendStateLoader } from '../../src/billing/redis-credit-holds.ts';

/** The simulated provider alone, at full speed. */
export const SIM_ONLY = `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
`;

/** The sim with one more model of known per-token prices, `acme/paid-sim` (1 and 2 micro-dollars a token). */
export const PRICED_SIM = `${SIM_ONLY}models:
  - id: acme/paid-sim
    context_length: 32000
    endpoints:
      - provider: sim
        model: sim-fast
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

/** Gateways of this test file on a Redis: each keeps its own keys unless told to share. */
let redisGateways = 0;

export interface TestGateway {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** origin + /v1: what an OpenAI client takes as baseURL. */
  baseUrl: string;
  key: string;
  keyHash: string;
  accountId: string;
  services: Services;
  /** The SQLite database under the stores (throws on Postgres): what a test reads or breaks directly. */
  readonly db: DatabaseSync;
  app: FastifyInstance;
  dir: string;
  /** Writes pending settlements (in the writer thread) so the ledger can be read. */
  flush(): Promise<void>;
  /**
   * Has the gateway look for other processes' writes now (it does every 100 ms): a change
   * made with the CLI counts from the next request after this.
   */
  seeCliChanges(): Promise<void>;
  close(): Promise<void>;
}

/** The master key a test fleet (Postgres) gets when its config names none: 32 bytes, fixed. */
const FLEET_MASTER_KEY_VAR = 'SWITCHYARD_TEST_FLEET_MASTER_KEY';
const FLEET_MASTER_KEY = Buffer.alloc(32, 7).toString('base64');

export interface TestGatewayOptions {
  /** The YAML config file's text. */
  yaml?: string;
  /** Account credits in USD (decimal text). */
  credits?: string;
  env?: Record<string, string | undefined>;
  tweak?: (config: GatewayConfig) => void;
  /** The gateway's operator log (default: dropped). */
  log?: (message: string) => void;
  /** How often stale credit holds are swept. */
  holdSweepMs?: number;
  /** Where the request log's JSON lines go (default: dropped). */
  logDestination?: { write(line: string): void };
  /** The writer thread's timings (e.g. its restart delay after a crash). */
  writer?: ServiceOptions['writer'];
  /** Routing's weighted draw; default seeded (src/canonical/seeded-random.test-util.ts), so every run routes alike. */
  random?: () => number;
  /** The gateway's clock of requests and key limit periods (default Date.now). */
  now?: () => number;
  /**
   * Holds, rate limits and invalidation in this Redis (fleet-services.ts), the ledger still
   * in the gateway's SQLite file: a fleet instance's Redis side, testable before the
   * Postgres stores. `redisPrefix` keeps gateways of one Redis apart (default: one per gateway).
   */
  redis?: { url: string; prefix?: string; instanceId?: string; loader?: SpendStateLoader };
  /** The data directory (default: a new temporary one, removed at close); given, it is kept: a gateway started again on it finds its database. */
  dir?: string;
}

/**
 * A real gateway on a loopback port with its own temporary SQLite database and one
 * account with a key: what every end-to-end and contract test talks to.
 */
export async function startTestGateway(opts: TestGatewayOptions = {}): Promise<TestGateway> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'switchyard-test-'));
  const configPath = join(dir, 'switchyard.yaml');
  writeFileSync(configPath, opts.yaml ?? SIM_ONLY);
  const env: Record<string, string | undefined> = { SWITCHYARD_DATA_DIR: dir, [FLEET_MASTER_KEY_VAR]: FLEET_MASTER_KEY, ...opts.env };
  // As serve does with --host/--port: the file read again (a reload) gets the same address and tweaks.
  const readConfig = (): GatewayConfig => {
    const c = loadConfig({ path: configPath, env });
    c.server = { ...c.server, host: '127.0.0.1', port: 0 };
    // A fleet seals webhooks' signing secrets with byok.master_key (it has no data directory
    // of its own for a local key; docs/security.md#webhook-secrets): a test fleet gets one
    // unless its config names its own.
    if (c.byok.masterKey === null && (env.DATABASE_URL !== undefined || c.database.url !== undefined))
      c.byok = { ...c.byok, masterKey: `env:${FLEET_MASTER_KEY_VAR}` };
    opts.tweak?.(c);
    return c;
  };
  const config = readConfig();
  let spend: Stores['holds'] | undefined;
  const fleet =
    opts.redis === undefined
      ? undefined
      : await createFleetServices(
          { redisUrl: opts.redis.url },
          {
            loader: opts.redis.loader ?? (async (_account, keyHash, ids, days) => spend!.loadSpendState(keyHash, ids, days)),
            holdMs: config.timeouts.requestMs + config.timeouts.holdGraceMs,
            ...(opts.now === undefined ? {} : { now: opts.now }),
            log: opts.log ?? (() => {}),
            prefix: opts.redis.prefix ?? `sy-${process.pid}-${++redisGateways}`,
            ...(opts.redis.instanceId === undefined ? {} : { instanceId: opts.redis.instanceId }),
          },
        );
  const services = await createServices(config, {
    env,
    log: opts.log ?? (() => {}),
    random: opts.random ?? seededRandom(1),
    loadConfigAgain: readConfig,
    logDestination: opts.logDestination ?? { write: () => {} },
    ...(opts.holdSweepMs === undefined ? {} : { holdSweepMs: opts.holdSweepMs }),
    ...(opts.now === undefined ? {} : { now: opts.now }),
    ...(fleet === undefined ? {} : { fleet }),
    ...(opts.writer === undefined ? {} : { writer: opts.writer }),
  });
  spend = services.stores.holds;
  const account = await services.accountService.createAccount({
    name: 'test account',
    type: 'user',
    tier: 'tier2',
    creditsUsd: opts.credits ?? '100',
  });
  const { key, record } = await services.accountService.createKey({ accountId: account.id, name: 'test key' });
  const app = buildApp(services);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    key,
    keyHash: record.hash,
    accountId: account.id,
    services,
    get db() {
      return sqliteDatabaseOf(services);
    },
    app,
    dir,
    flush: () => services.settlements.flush(),
    seeCliChanges: async () => {
      await services.writer?.checkExternalChanges();
    },
    async close() {
      await app.close();
      await services.close();
      if (opts.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A config whose only provider is an OpenAI-format emulator, serving `acme/mock-1` (the example shape). */
export function emulatorConfig(baseUrl: string, extra = ''): string {
  return `sim: false
providers:
  - id: local
    kind: openai
    base_url: ${baseUrl}
    api_key: \${LOCAL_KEY}
models:
  - id: acme/mock-1
    name: Mock One
    context_length: 32000
    capabilities: [text, tool_calling, json_mode, streaming]
    endpoints:
      - provider: local
        model: mock-model
        pricing: { prompt: "0.000001", completion: "0.000002" }
${extra}`;
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // left undefined: SSE or not JSON
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Parses an SSE body into its data payloads (JSON-parsed, except [DONE]). */
export function sseData(text: string): unknown[] {
  const out: unknown[] = [];
  for (const block of text.split('\n\n')) {
    const data = block
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .join('\n');
    if (data.length === 0) continue;
    out.push(data === '[DONE]' ? '[DONE]' : JSON.parse(data));
  }
  return out;
}
