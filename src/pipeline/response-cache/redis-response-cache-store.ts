import type { RedisConnection } from '../../shared/redis/redis-connection.ts';
import { RedisScript } from '../../shared/redis/redis-script.ts';
import type { ResponseCacheStore } from './response-cache-store.ts';

// Each account's entries, least recently used first: a sorted set (member: the entry's
// digest, score: its last use in ms) and a hash of their sizes (`#total`: their sum). A new
// entry past the account's share evicts the account's own oldest entries, in the same
// script: another account's are never touched. A value larger than the whole share is not
// kept (and the entry it would replace goes), as in process. Entries Redis itself expired or evicted
// (maxmemory) stay counted until they are the oldest and go first.
const SET = new RedisScript(`
local member, size, cap = ARGV[5], string.len(ARGV[1]), tonumber(ARGV[4])
local total = tonumber(redis.call('HGET', KEYS[3], '#total') or '0')
local prev = redis.call('HGET', KEYS[3], member)
if prev then
  total = total - tonumber(prev)
  redis.call('ZREM', KEYS[2], member)
  redis.call('HDEL', KEYS[3], member)
end
if size > cap then
  if prev then redis.call('HSET', KEYS[3], '#total', total) end
  redis.call('DEL', KEYS[1])
  return 0
end
while total + size > cap do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  total = total - tonumber(redis.call('HGET', KEYS[3], oldest) or '0')
  redis.call('ZREM', KEYS[2], oldest)
  redis.call('HDEL', KEYS[3], oldest)
  redis.call('DEL', ARGV[6] .. oldest)
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], member)
redis.call('HSET', KEYS[3], member, size, '#total', total + size)
local keep = math.max(tonumber(ARGV[2]), redis.call('PTTL', KEYS[2]))
redis.call('PEXPIRE', KEYS[2], keep)
redis.call('PEXPIRE', KEYS[3], keep)
return 1
`);

/**
 * A fleet's response cache: one string per entry, `SET … PX ttl`, named
 * `<prefix>:{<account>}:<digest>` (hash-tagged by account, so an account's entries and its
 * bookkeeping share a Redis Cluster slot and one script keeps them). Entries are bounded by
 * `cache.max_entry_bytes` before they get here, each account's together by its share
 * (`cache.account_share` of `cache.max_total_bytes`), and the whole by the Redis server's
 * own `maxmemory` (with an eviction policy such as `volatile-lru`: every entry has a TTL).
 * Failures reject with the connection's SharedStateUnavailable; the caller treats them as a miss.
 */
export class RedisResponseCacheStore implements ResponseCacheStore {
  private readonly connection: RedisConnection;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(connection: RedisConnection, prefix: string, now: () => number = Date.now) {
    this.connection = connection;
    this.prefix = prefix;
    this.now = now;
  }

  private base(owner: string): string {
    return `${this.prefix}:{${owner}}:`;
  }

  async get(owner: string, key: string): Promise<string | null> {
    const base = this.base(owner);
    const value = await this.connection.send<string | null>(['GET', base + key]);
    if (typeof value !== 'string') return null;
    // The account's most recently used now (XX: never re-adds one its bookkeeping dropped).
    this.connection.send(['ZADD', `${base}#lru`, 'XX', String(this.now()), key]).catch(() => {});
    return value;
  }

  async set(owner: string, key: string, value: string, ttlMs: number, maxOwnerBytes: number): Promise<void> {
    const base = this.base(owner);
    await SET.run(
      this.connection,
      [base + key, `${base}#lru`, `${base}#sizes`],
      [value, String(ttlMs), String(this.now()), String(Number.isFinite(maxOwnerBytes) ? maxOwnerBytes : 2 ** 53), key, base],
    );
  }
}
