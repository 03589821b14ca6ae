import type { RedisConnection } from '../../shared/redis/redis-connection.ts';
import type { StickyRoutes } from './sticky-routes.ts';

/**
 * Sticky routes shared by a fleet: one string per prompt-cache key, `SET … PX ttl`. The
 * keys are hash-tagged by the digest (`<prefix>:{<digest>}`), so each lives in one slot of a
 * cluster and a lookup of several prefixes is several GETs pipelined over the connection
 * (node-redis pipelines concurrent commands), not one cross-slot MGET. A hit's TTL is
 * refreshed with PEXPIRE, not awaited. Failures reject (the connection's
 * SharedStateUnavailable); the caller falls back to the normal draw.
 */
export class RedisStickyRoutes implements StickyRoutes {
  private readonly connection: RedisConnection;
  private readonly prefix: string;

  constructor(connection: RedisConnection, prefix: string) {
    this.connection = connection;
    this.prefix = prefix;
  }

  private keyOf(digest: string): string {
    return `${this.prefix}:{${digest}}`;
  }

  async find(keys: readonly string[], ttlMs: number): Promise<string | null> {
    const values = await Promise.all(keys.map((k) => this.connection.send<string | null>(['GET', this.keyOf(k)])));
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v !== 'string') continue;
      this.connection.send(['PEXPIRE', this.keyOf(keys[i]!), String(ttlMs)]).catch(() => {});
      return v;
    }
    return null;
  }

  async remember(key: string, endpointId: string, ttlMs: number): Promise<void> {
    await this.connection.send(['SET', this.keyOf(key), endpointId, 'PX', String(ttlMs)]);
  }
}
