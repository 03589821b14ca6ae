import type { RedisConnection } from '../../shared/redis/redis-connection.ts';
import { RedisScript } from '../../shared/redis/redis-script.ts';
import type { StickyRoutes } from './sticky-routes.ts';

// Each account's entries, least recently used first: a sorted set (member: `<scope>:<digest>`,
// score: last use in ms). Remembering past the account's share evicts the account's own
// oldest entries in the same script; another account's are never touched. Entries that
// expired stay counted until they are the oldest and go first.
const REMEMBER = new RedisScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  for _, oldest in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do redis.call('DEL', ARGV[6] .. oldest) end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
end
redis.call('PEXPIRE', KEYS[2], math.max(tonumber(ARGV[2]), redis.call('PTTL', KEYS[2])))
return 1
`);

/**
 * Sticky routes shared by a fleet: one string per prompt-cache key, `SET … PX ttl`, named
 * `<prefix>:{<account>}:<scope>:<digest>`. The hash tag is the account, so every key one
 * request looks up, and the account's bookkeeping, live in one slot of a cluster: the
 * lookup is one MGET, however many prefixes it has (at most MAX_LOOKUP_PREFIXES + 1), and
 * one script remembers and bounds. A hit's TTL is refreshed with PEXPIRE, not awaited.
 * Failures reject (the connection's SharedStateUnavailable); the caller falls back to the
 * normal draw.
 */
export class RedisStickyRoutes implements StickyRoutes {
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

  async find(owner: string, scope: string, keys: readonly string[], ttlMs: number): Promise<string | null> {
    if (keys.length === 0) return null;
    const base = this.base(owner);
    const names = keys.map((k) => `${base}${scope}:${k}`);
    const values = await this.connection.send<Array<string | null>>(['MGET', ...names]);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v !== 'string') continue;
      this.connection.send(['PEXPIRE', names[i]!, String(ttlMs)]).catch(() => {});
      this.connection.send(['ZADD', `${base}#lru`, 'XX', String(this.now()), `${scope}:${keys[i]!}`]).catch(() => {});
      return v;
    }
    return null;
  }

  async remember(owner: string, scope: string, key: string, endpointId: string, ttlMs: number, maxOwnerEntries: number): Promise<void> {
    const base = this.base(owner);
    const member = `${scope}:${key}`;
    await REMEMBER.run(
      this.connection,
      [base + member, `${base}#lru`],
      [endpointId, String(ttlMs), String(this.now()), String(Number.isFinite(maxOwnerEntries) ? maxOwnerEntries : 2 ** 31), member, base],
    );
  }
}
