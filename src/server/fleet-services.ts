import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { FleetCreditHolds, type DurableHoldRows, type SettlementEvents } from '../billing/fleet-credit-holds.ts';
import { RedisCreditHolds, type SpendStateLoader } from '../billing/redis-credit-holds.ts';
import { RedisRateLimiter } from '../limits/redis-rate-limiter.ts';
import { RedisInFlightLimiter } from '../limits/redis-in-flight-limiter.ts';
import { RedisStickyRoutes } from '../routing/sticky/redis-sticky-routes.ts';
import { RedisResponseCacheStore } from '../pipeline/response-cache/redis-response-cache-store.ts';
import type { Invalidation } from '../shared/invalidation-bus.ts';
import { RedisConnection } from '../shared/redis/redis-connection.ts';
import { RedisInvalidationBus } from '../shared/redis/redis-invalidation-bus.ts';
import { RedisCredentialUse } from '../shared/redis/redis-credential-use.ts';
import type { Backends } from '../shared/select-backends.ts';
import { SharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import { transportReason } from '../providers/http/upstream-error.ts';

export interface FleetServiceOptions {
  /** The balance, key usage and flags behind the shared credit snapshot: e.g. `(_, hash, ids, days) => postgresLedger.spendState(hash, ids, days)`. */
  loader: SpendStateLoader;
  /** A hold not finished within this long is abandoned (its instance died): the request deadline plus a grace. */
  holdMs: number;
  /** A finished charge not committed within this long is dropped from Redis and the balance re-read. Default `holdMs`. */
  settleMs?: number;
  /** Operator log (connection errors while Redis is down: once per outage). Never gets the URL. */
  log: (message: string) => void;
  /** Default `<hostname>-<pid>-<random>`. */
  instanceId?: string;
  /** Redis connect and command timeouts (default 1000 ms each): how long a request waits before failing closed. */
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
  /** Key prefix of everything this gateway keeps in Redis (default 'sy'). */
  prefix?: string;
  /** A `max_in_flight` lease's life without renewal (default 30 s): what a dead instance's leases outlive it by. */
  inFlightLeaseMs?: number;
  /**
   * The clock of the credit holds: hold expiry and which reset period a key's limit is in
   * (default Redis's TIME, one clock for the fleet). The gateway passes its injected clock
   * (`ServiceOptions.now`, tests), so one clock decides the period everywhere.
   */
  now?: () => number;
}

/**
 * What a fleet instance shares through Redis: one connection (node-redis pipelines every
 * caller's commands over it) for the credit holds and the rate limiter, a second one that
 * listens for invalidations. Built before createServices (it connects), handed to it as
 * `ServiceOptions.fleet`; createServices closes it on shutdown.
 */
export interface FleetServices {
  readonly instanceId: string;
  readonly connection: RedisConnection;
  readonly holds: RedisCreditHolds;
  readonly limiter: RedisRateLimiter;
  /** Keys' caps on concurrent requests: leases in Redis, renewed while their requests run. */
  readonly inFlight: RedisInFlightLimiter;
  readonly bus: RedisInvalidationBus;
  /** Sticky routes for prompt caches, shared by the fleet. */
  readonly sticky: RedisStickyRoutes;
  /** The response cache's entries, shared by the fleet. */
  readonly responseCache: RedisResponseCacheStore;
  /** Credential pools' use (rpm, tpm, cool-downs), counted for the fleet. */
  readonly credentialUse: RedisCredentialUse;
  /** The pipeline's CreditHolds over `holds`, following the settlement queue's commits; `rows`: the holds' durable rows, if any. */
  creditHolds(
    settlements: SettlementEvents,
    accountOf: (keyHash: string) => string | undefined | Promise<string | undefined>,
    rows?: DurableHoldRows,
  ): FleetCreditHolds;
  /** Readiness: Redis answers (`/ready`'s `redis` check). */
  redisCheck(): { ok: boolean; detail: string };
  /**
   * Readiness of the database behind the credit snapshots (`/ready`'s `postgres` check):
   * failing from a load that could not reach it until one that could. Passive: no query.
   */
  postgresCheck(): { ok: boolean; detail: string };
  close(): Promise<void>;
}

/**
 * Connects to Redis (bounded by the connect timeout; a Redis that is down makes the start
 * fail with SharedStateUnavailable, naming Redis, never the URL) and builds the shared pieces.
 */
export async function createFleetServices(
  backends: Extract<Backends, { kind: 'fleet' }> | { redisUrl: string },
  opts: FleetServiceOptions,
): Promise<FleetServices> {
  const instanceId = opts.instanceId ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const prefix = opts.prefix ?? 'sy';
  let down = false;
  const connection = new RedisConnection({
    url: backends.redisUrl,
    ...(opts.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: opts.connectTimeoutMs }),
    ...(opts.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: opts.commandTimeoutMs }),
    onError: (err) => {
      if (down) return;
      down = true;
      opts.log(`redis is unreachable (${err.message}): model calls are refused until it answers again`);
    },
  });
  connection.client.on('ready', () => {
    if (!down) return;
    down = false;
    opts.log('redis answers again: serving model calls');
  });
  await connection.connect();
  let bus: RedisInvalidationBus;
  try {
    bus = await RedisInvalidationBus.open(connection, `${prefix}:invalidate`);
  } catch (err) {
    await connection.close();
    throw err;
  }
  const { loader, postgresCheck } = watchSpendLoads(opts.loader);
  const holds = new RedisCreditHolds(connection, {
    loader,
    instanceId,
    holdMs: opts.holdMs,
    settleMs: opts.settleMs ?? opts.holdMs,
    prefix: `${prefix}:ch`,
    ...(opts.now === undefined ? {} : { now: opts.now }),
  });
  const limiter = new RedisRateLimiter(connection, { prefix: `${prefix}:rl` });
  const inFlight = new RedisInFlightLimiter(connection, {
    prefix: `${prefix}:if`,
    log: opts.log,
    ...(opts.inFlightLeaseMs === undefined ? {} : { leaseMs: opts.inFlightLeaseMs }),
  });
  return {
    instanceId,
    connection,
    holds,
    limiter,
    inFlight,
    bus,
    sticky: new RedisStickyRoutes(connection, `${prefix}:st`),
    responseCache: new RedisResponseCacheStore(connection, `${prefix}:rc`),
    credentialUse: new RedisCredentialUse(connection, `${prefix}:cr`),
    creditHolds(settlements, accountOf, rows) {
      return new FleetCreditHolds(holds, settlements, {
        accountOf,
        publish: (m: Invalidation) => bus.publish(m),
        log: opts.log,
        ...(rows === undefined ? {} : { rows }),
      });
    },
    redisCheck() {
      return connection.isReady ? { ok: true, detail: 'reachable' } : { ok: false, detail: 'unreachable: model calls are refused' };
    },
    postgresCheck,
    async close() {
      inFlight.close();
      await bus.close();
      await connection.close();
    },
  };
}

/**
 * For a process that changes accounts or keys without serving (the CLI, in a fleet): forgets
 * each changed account's shared credit snapshot and publishes the change, so every instance
 * reads it afresh and drops it from its caches at once. Rejects with SharedStateUnavailable
 * when Redis cannot be reached (the change is in the database; instances see it within the
 * snapshot's 60 s age and the auth cache's 2 s).
 */
export async function announceChanges(
  redisUrl: string,
  changes: ReadonlyArray<{ accountId: string; keyHash?: string }>,
  prefix = 'sy',
): Promise<void> {
  const connection = new RedisConnection({ url: redisUrl });
  await connection.connect();
  try {
    const holds = new RedisCreditHolds(connection, {
      loader: async () => {
        throw new Error('announceChanges never loads a snapshot');
      },
      instanceId: 'announce',
      holdMs: 0,
      settleMs: 0,
      prefix: `${prefix}:ch`,
    });
    for (const c of changes) {
      await holds.forget(c.accountId, c.keyHash);
      const message: Invalidation =
        c.keyHash === undefined ? { kind: 'account', accountId: c.accountId } : { kind: 'key', keyHash: c.keyHash, accountId: c.accountId };
      await connection.send(['PUBLISH', `${prefix}:invalidate`, JSON.stringify(message)]);
    }
  } finally {
    await connection.close();
  }
}

/**
 * The spend-state loader (Postgres, behind the Redis holds), watched: its last failure is
 * what `/ready` says of Postgres. As a reason (connection refused, timed out...), never the
 * error's text, which names the server's address: anyone may ask /ready.
 */
export function watchSpendLoads(load: SpendStateLoader): {
  loader: SpendStateLoader;
  postgresCheck: () => { ok: boolean; detail: string };
} {
  let failure: string | null = null;
  const loader: SpendStateLoader = async (accountId, keyHash, ids, days) => {
    try {
      const state = await load(accountId, keyHash, ids, days);
      failure = null;
      return state;
    } catch (err) {
      if (err instanceof SharedStateUnavailable && err.store === 'postgres')
        failure = `postgres is unavailable: ${transportReason(err, 'error')}`;
      throw err;
    }
  };
  const postgresCheck = () =>
    failure === null ? { ok: true, detail: 'reachable' } : { ok: false, detail: `${failure}: model calls needing a balance are refused` };
  return { loader, postgresCheck };
}
