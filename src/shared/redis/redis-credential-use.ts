import { randomUUID } from 'node:crypto';
import type { CredentialCandidate, CredentialClaim, CredentialMark, SharedCredentialUse } from '../../catalog/shared-credential-use.ts';
import type { RedisConnection } from './redis-connection.ts';
import { RedisScript } from './redis-script.ts';

// Credential pools' use counted by the fleet in Redis (catalog/shared-credential-use.ts).
// Per credential, under one hash tag per pool ({provider id}) so a pool's keys share a slot:
//   <prefix>:{pool}:<label>:req   a sorted set, one member per request, scored by its time:
//                                 the requests of the sliding minute, exactly;
//   <prefix>:{pool}:<label>:tok   a hash, epoch second → tokens: the tokens of the minute;
//   <prefix>:{pool}:<label>:cool  the time (epoch ms) it rests until, as an upstream asked;
//   <prefix>:{pool}:<label>:spent the time (epoch ms) until which the upstream said it has no
//                                 headroom left (`x-ratelimit-remaining-*: 0`, its reset);
//   <prefix>:{pool}:<label>:out:<fingerprint>  why this key of it was taken out (a 401/403),
//                                 kept an hour: an instance started meanwhile skips it too, and
//                                 a replaced key (another fingerprint) starts afresh.
// Times are the gateway's clock (passed in), so every instance and the tests agree on them;
// TTLs only bound memory.

const WINDOW_MS = 60_000;
/** How long Redis keeps a removal (each instance that saw it keeps it until its next reload). */
export const REMOVAL_TTL_MS = 60 * 60_000;

// KEYS: req, tok, cool, spent, out per candidate, in the draw's order. ARGV: now, window,
// member, then rpm and tpm per candidate (-1: unbounded). Returns {index claimed (1-based,
// 0 for none), then per candidate passed over for a mark: index, kind, value}.
const CLAIM = new RedisScript(`
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local n = #KEYS / 5
local result = {0}
local function mark(i, kind, value)
  result[#result + 1] = i
  result[#result + 1] = kind
  result[#result + 1] = value
end
for i = 1, n do
  local req, tok, cool, spent, out = KEYS[5 * i - 4], KEYS[5 * i - 3], KEYS[5 * i - 2], KEYS[5 * i - 1], KEYS[5 * i]
  local rpm = tonumber(ARGV[2 + 2 * i])
  local tpm = tonumber(ARGV[3 + 2 * i])
  local reason = redis.call('GET', out)
  local cooled = tonumber(redis.call('GET', cool) or '0')
  local spentUntil = tonumber(redis.call('GET', spent) or '0')
  if reason then
    mark(i, 'removed', reason)
  elseif cooled > now then
    mark(i, 'cooling', tostring(cooled))
  elseif spentUntil > now then
    mark(i, 'spent', tostring(spentUntil))
  else
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
      result[1] = i
      return result
    end
  end
end
return result
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

  private key(poolId: string, label: string, what: 'req' | 'tok' | 'cool' | 'spent'): string {
    return `${this.prefix}:{${poolId}}:${label}:${what}`;
  }

  private outKey(poolId: string, label: string, fingerprint: string): string {
    return `${this.prefix}:{${poolId}}:${label}:out:${fingerprint}`;
  }

  async claim(poolId: string, candidates: readonly CredentialCandidate[], now: number): Promise<CredentialClaim> {
    if (candidates.length === 0) return { label: null, marks: [] };
    const keys = candidates.flatMap((c) => [
      this.key(poolId, c.label, 'req'),
      this.key(poolId, c.label, 'tok'),
      this.key(poolId, c.label, 'cool'),
      this.key(poolId, c.label, 'spent'),
      this.outKey(poolId, c.label, c.fingerprint),
    ]);
    const args = [
      String(now),
      String(WINDOW_MS),
      `${now}:${randomUUID()}`,
      ...candidates.flatMap((c) => [String(c.rpm ?? -1), String(c.tpm ?? -1)]),
    ];
    const reply = await CLAIM.run<Array<number | string>>(this.conn, keys, args);
    const index = Number(reply[0]);
    const marks: CredentialMark[] = [];
    for (let j = 1; j + 2 < reply.length; j += 3) {
      const label = candidates[Number(reply[j]) - 1]?.label;
      const kind = String(reply[j + 1]);
      const value = String(reply[j + 2]);
      if (label === undefined) continue;
      if (kind === 'removed') marks.push({ label, kind, reason: value });
      else if (kind === 'cooling' || kind === 'spent') marks.push({ label, kind, until: Number(value) });
    }
    return { label: index === 0 ? null : candidates[index - 1]!.label, marks };
  }

  async coolDown(poolId: string, label: string, until: number, now: number): Promise<void> {
    await COOL.run(this.conn, [this.key(poolId, label, 'cool')], [String(until), String(Math.max(1, until - now) + WINDOW_MS)]);
  }

  async spent(poolId: string, label: string, until: number, now: number): Promise<void> {
    // The same "keep the later end" as a cool-down; it lapses by itself at the upstream's reset.
    await COOL.run(this.conn, [this.key(poolId, label, 'spent')], [String(until), String(Math.max(1, until - now) + WINDOW_MS)]);
  }

  async remove(poolId: string, label: string, fingerprint: string, reason: string): Promise<void> {
    await this.conn.send(['SET', this.outKey(poolId, label, fingerprint), reason, 'PX', String(REMOVAL_TTL_MS)]);
  }

  async addTokens(poolId: string, label: string, tokens: number, now: number): Promise<void> {
    const key = this.key(poolId, label, 'tok');
    await this.conn.send(['HINCRBY', key, String(Math.floor(now / 1000)), String(Math.round(tokens))]);
    await this.conn.send(['PEXPIRE', key, String(WINDOW_MS * 2)]);
  }
}
