import type { RedisConnection } from '../shared/redis/redis-connection.ts';
import { RedisScript } from '../shared/redis/redis-script.ts';
import type { InFlightLimiter } from './in-flight-limiter.ts';

// A key's leases are one sorted set, `<prefix>:{<account>}:<key hash>`: member the lease id
// (the generation id), score the time it expires (Redis's clock, one for the fleet). Taking
// a lease drops the expired ones first, counts, and adds only below the cap, atomically.
// The holding instance renews its leases while their requests run; one that dies stops
// renewing, and its leases expire within `leaseMs`. The set itself expires when no lease
// is renewed (memory only: correctness never depends on it).
const ACQUIRE = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + lease, ARGV[3])
redis.call('PEXPIRE', KEYS[1], lease * 2)
return 1
`);

// ARGV: lease ms, then the lease ids to renew (those still held: an expired one is not revived).
const RENEW = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + lease, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], lease * 2)
return 1
`);

export interface RedisInFlightOptions {
  /** How long a lease lives without renewal (default 30 s): an instance that dies gives its leases back within it. */
  leaseMs?: number;
  /** Key prefix (default 'sy:if'). */
  prefix?: string;
  /** Renewal failures (Redis down): the leases then expire on their own. */
  log?: (message: string) => void;
}

/** Concurrent-request caps shared by every instance of a fleet (InFlightLimiter). */
export class RedisInFlightLimiter implements InFlightLimiter {
  private readonly conn: RedisConnection;
  private readonly leaseMs: number;
  private readonly prefix: string;
  private readonly log: (message: string) => void;
  /** Leases this instance holds, by Redis key. */
  private readonly held = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(conn: RedisConnection, opts: RedisInFlightOptions = {}) {
    this.conn = conn;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.prefix = opts.prefix ?? 'sy:if';
    this.log = opts.log ?? (() => {});
  }

  async acquire(keyHash: string, accountId: string, max: number, leaseId: string): Promise<boolean> {
    const key = this.keyOf(keyHash, accountId);
    const taken = await ACQUIRE.run<number>(this.conn, [key], [String(max), String(this.leaseMs), leaseId]);
    if (taken !== 1) return false;
    let set = this.held.get(key);
    if (set === undefined) this.held.set(key, (set = new Set()));
    set.add(leaseId);
    this.startRenewing();
    return true;
  }

  /** Awaited before the answer's last bytes: the client's next request must find the lease gone, on any instance. */
  async release(keyHash: string, accountId: string, leaseId: string): Promise<void> {
    const key = this.keyOf(keyHash, accountId);
    const set = this.held.get(key);
    set?.delete(leaseId);
    if (set !== undefined && set.size === 0) this.held.delete(key);
    if (this.held.size === 0) this.stopRenewing();
    try {
      await this.conn.send(['ZREM', key, leaseId]);
    } catch (err) {
      // The lease expires on its own within leaseMs.
      this.log(`a concurrent-request lease could not be released (${(err as Error).message}); it expires within ${this.leaseMs} ms`);
    }
  }

  close(): void {
    this.stopRenewing();
  }

  private keyOf(keyHash: string, accountId: string): string {
    return `${this.prefix}:{${accountId}}:${keyHash}`;
  }

  private startRenewing(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  private stopRenewing(): void {
    if (this.timer === null) return;
    clearInterval(this.timer);
    this.timer = null;
  }

  /** One script per key (keys of different accounts may live on different Cluster slots), sent together. */
  private async renew(): Promise<void> {
    const runs = [...this.held].map(([key, ids]) => RENEW.run(this.conn, [key], [String(this.leaseMs), ...ids]));
    const failed = (await Promise.allSettled(runs)).find((r) => r.status === 'rejected');
    if (failed !== undefined) this.log(`concurrent-request leases could not be renewed (${(failed.reason as Error).message})`);
  }
}
