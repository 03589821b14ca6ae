import type { RedisConnection } from '../../shared/redis/redis-connection.ts';
import type { StickyRoutes } from './sticky-routes.ts';

/**
 * Sticky routes shared by a fleet: one string per prompt-cache key, `SET … PX ttl`, named
 * `<prefix>:{<scope>}:<digest>`. The hash tag is the scope (a digest of the account and the
 * model), so every key one request looks up lives in one slot of a cluster and the lookup
 * is one MGET, however many prefixes it has (at most MAX_LOOKUP_PREFIXES + 1), not a GET per
 * prefix. A hit's TTL is refreshed with PEXPIRE, not awaited. Failures reject (the
 * connection's SharedStateUnavailable); the caller falls back to the normal draw.
 */
export class RedisStickyRoutes implements StickyRoutes {
  private readonly connection: RedisConnection;
  private readonly prefix: string;

  constructor(connection: RedisConnection, prefix: string) {
    this.connection = connection;
    this.prefix = prefix;
  }

  private keyOf(scope: string, digest: string): string {
    return `${this.prefix}:{${scope}}:${digest}`;
  }

  async find(scope: string, keys: readonly string[], ttlMs: number): Promise<string | null> {
    if (keys.length === 0) return null;
    const names = keys.map((k) => this.keyOf(scope, k));
    const values = await this.connection.send<Array<string | null>>(['MGET', ...names]);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v !== 'string') continue;
      this.connection.send(['PEXPIRE', names[i]!, String(ttlMs)]).catch(() => {});
      return v;
    }
    return null;
  }

  async remember(scope: string, key: string, endpointId: string, ttlMs: number): Promise<void> {
    await this.connection.send(['SET', this.keyOf(scope, key), endpointId, 'PX', String(ttlMs)]);
  }
}
