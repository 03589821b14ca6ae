import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

// Runs one contract suite against every implementation of an interface: the in-process one
// (on an injected clock) and the Redis one (a real redis-server from test/support, one per
// test file; its clock injected too, though Redis keeps TTLs in its own real time). Each
// case gets a fresh subject: its stores live under prefixes no other case uses.

export interface Clock {
  now: number;
}

/** What a contract case works with. */
export interface Subject<S> {
  /**
   * The store a gateway with `prefix` uses (default 'gw'): stores of one prefix share
   * their entries (one Redis; in process, the one instance), of two prefixes never.
   */
  store(prefix?: string): S;
  /** Moves the injected clock on (every operation a case orders by recency sits on its own tick). */
  tick(ms?: number): void;
  /** A TTL the expiry cases use: short real time for Redis, clock time in process. */
  readonly shortTtlMs: number;
  /** Resolves once everything written with `shortTtlMs` before this call has expired. */
  pastShortTtl(): Promise<void>;
}

export interface Implementations<S> {
  inProcess(clock: Clock): S;
  redis(connection: RedisConnection, prefix: string, clock: Clock): S;
}

/** Redis TTLs run in real time: short enough to wait for, long enough for a case's few commands. */
const REDIS_SHORT_TTL_MS = 60;

export function eachImplementation<S>(
  name: string,
  impls: Implementations<S>,
  suite: (it: (title: string, fn: (s: Subject<S>) => Promise<void>) => void) => void,
): void {
  describe(`${name}: in process`, () => {
    // node:test's runner awaits what it() returns.
    suite(
      (title, fn) =>
        void it(title, async () => {
          const clock: Clock = { now: Date.UTC(2026, 0, 1) };
          const stores = new Map<string, S>();
          await fn({
            store: (prefix = 'gw') => stores.get(prefix) ?? stores.set(prefix, impls.inProcess(clock)).get(prefix)!,
            tick: (ms = 1) => void (clock.now += ms),
            shortTtlMs: 1_000,
            pastShortTtl: async () => void (clock.now += 1_001),
          });
        }),
    );
  });

  const skip = redisUnavailable() ?? false;
  describe(`${name}: Redis`, { skip }, () => {
    let redis: RedisServer;
    let connection: RedisConnection;
    let cases = 0;
    before(async () => {
      redis = await startRedis();
      connection = new RedisConnection({ url: redis.url });
      await connection.connect();
    });
    after(async () => {
      await connection?.close();
      await redis?.stop();
    });
    // node:test's runner awaits what it() returns.
    suite(
      (title, fn) =>
        void it(title, async () => {
          const clock: Clock = { now: Date.UTC(2026, 0, 1) };
          const run = `c${++cases}`;
          await fn({
            store: (prefix = 'gw') => impls.redis(connection, `${run}:${prefix}`, clock),
            tick: (ms = 1) => void (clock.now += ms),
            shortTtlMs: REDIS_SHORT_TTL_MS,
            pastShortTtl: async () => {
              // A marker written now with the same TTL expires after everything written before it.
              const marker = `${run}:#marker`;
              await connection.send(['SET', marker, '1', 'PX', String(REDIS_SHORT_TTL_MS)]);
              while ((await connection.send<number>(['EXISTS', marker])) === 1) await delay(5);
            },
          });
        }),
    );
  });
}
