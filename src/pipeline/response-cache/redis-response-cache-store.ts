import type { RedisConnection } from '../../shared/redis/redis-connection.ts';
import type { ResponseCacheStore } from './response-cache-store.ts';

/**
 * A fleet's response cache: one string per key (`<prefix>:{<digest>}`, hash-tagged), `SET …
 * PX ttl`. Entries are bounded by `cache.max_entry_bytes` before they get here; the whole is
 * bounded by the Redis server's own `maxmemory` (with an eviction policy such as
 * `volatile-lru`: every entry has a TTL). Failures reject with the connection's
 * SharedStateUnavailable; the caller treats them as a miss.
 */
export class RedisResponseCacheStore implements ResponseCacheStore {
  private readonly connection: RedisConnection;
  private readonly prefix: string;

  constructor(connection: RedisConnection, prefix: string) {
    this.connection = connection;
    this.prefix = prefix;
  }

  async get(key: string): Promise<string | null> {
    const value = await this.connection.send<string | null>(['GET', `${this.prefix}:{${key}}`]);
    return typeof value === 'string' ? value : null;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.connection.send(['SET', `${this.prefix}:{${key}}`, value, 'PX', String(ttlMs)]);
  }
}
