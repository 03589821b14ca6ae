import { randomUUID } from 'node:crypto';
import type { CredentialCandidate, SharedCredentialUse } from '../../catalog/shared-credential-use.ts';
import type { RedisConnection } from './redis-connection.ts';
import { RedisScript } from './redis-script.ts';

// Credential pools' use counted by the fleet in Redis (catalog/shared-credential-use.ts).
// Per credential, under one hash tag per pool ({provider id}) so a pool's keys share a slot:
//   <prefix>:{pool}:<label>:req   a sorted set, one member per request, scored by its time:
//                                 the requests of the sliding minute, exactly;
//   <prefix>:{pool}:<label>:tok   a hash, epoch second → tokens: the tokens of the minute;
//   <prefix>:{pool}:<label>:cool  the time (epoch ms) it rests until, as an upstream asked.
// Times are the gateway's clock (passed in), so every instance and the tests agree on them;
// TTLs only bound memory.

const WINDOW_MS = 60_000;

// KEYS: req, tok, cool per candidate, in the draw's order. ARGV: now, window, member, then
// rpm and tpm per candidate (-1: unbounded). Returns the 1-based index claimed, 0 for none.
const CLAIM = new RedisScript(`
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local n = #KEYS / 3
for i = 1, n do
  local req, tok, cool = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local rpm = tonumber(ARGV[2 + 2 * i])
  local tpm = tonumber(ARGV[3 + 2 * i])
  if tonumber(redis.call('GET', cool) or '0') <= now then
    redis.call('ZREMRANGEBYSCORE', req, '-inf', now - window)
    local ok = rpm < 0 or redis.call('ZCARD', req) < rpm
    if ok and tpm >= 0 then
      local sum = 0
      local fields = redis.call('HGETALL', tok)
      for j = 1, #fields, 2 do
        if (tonumber(fields[j]) + 1) * 1000 <= now - window then
          redis.call('HDEL', tok, fields[j])
        else
          sum = sum + tonumber(fields[j + 1])
        end
      end
      ok = sum < tpm
    end
    if ok then
      redis.call('ZADD', req, now, member)
      redis.call('PEXPIRE', req, window * 2)
      return i
    end
  end
end
return 0
`);

// KEYS: cool. ARGV: until, ttl ms. Keeps the later of the two ends.
const COOL = new RedisScript(`
local till = tonumber(ARGV[1])
if tonumber(redis.call('GET', KEYS[1]) or '0') < till then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1
`);

export class RedisCredentialUse implements SharedCredentialUse {
  private readonly conn: RedisConnection;
  private readonly prefix: string;

  constructor(conn: RedisConnection, prefix: string) {
    this.conn = conn;
    this.prefix = prefix;
  }

  private key(poolId: string, label: string, what: 'req' | 'tok' | 'cool'): string {
    return `${this.prefix}:{${poolId}}:${label}:${what}`;
  }

  async claim(poolId: string, candidates: readonly CredentialCandidate[], now: number): Promise<string | null> {
    if (candidates.length === 0) return null;
    const keys = candidates.flatMap((c) => [this.key(poolId, c.label, 'req'), this.key(poolId, c.label, 'tok'), this.key(poolId, c.label, 'cool')]);
    const args = [String(now), String(WINDOW_MS), `${now}:${randomUUID()}`, ...candidates.flatMap((c) => [String(c.rpm ?? -1), String(c.tpm ?? -1)])];
    const index = Number(await CLAIM.run<number>(this.conn, keys, args));
    return index === 0 ? null : candidates[index - 1]!.label;
  }

  async coolDown(poolId: string, label: string, until: number, now: number): Promise<void> {
    await COOL.run(this.conn, [this.key(poolId, label, 'cool')], [String(until), String(Math.max(1, until - now) + WINDOW_MS)]);
  }

  async addTokens(poolId: string, label: string, tokens: number, now: number): Promise<void> {
    const key = this.key(poolId, label, 'tok');
    await this.conn.send(['HINCRBY', key, String(Math.floor(now / 1000)), String(Math.round(tokens))]);
    await this.conn.send(['PEXPIRE', key, String(WINDOW_MS * 2)]);
  }
}
