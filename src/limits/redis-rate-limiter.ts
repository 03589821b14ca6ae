import type { RedisConnection } from '../shared/redis/redis-connection.ts';
import { RedisScript } from '../shared/redis/redis-script.ts';
import type { RateDecision, RateLimiter, RateRule } from './rate-limiter.ts';

/** The RateLimiter contract, answered by a shared store: the same decisions, asynchronously. */
export interface SharedRateLimiter extends RateLimiter {
  admit(rules: readonly RateRule[], nowMs: number, subject?: string): Promise<RateDecision>;
}

// One script per admit: checks every rule, then (only if all pass) counts against all of
// them, atomically. The arithmetic is InProcessRateLimiter's, in the same IEEE doubles
// (Lua numbers), and values travel as %.17g strings so nothing is rounded on the way:
// both backends decide a scripted sequence identically (the conformance test).
// rolling (GCRA): the key holds the theoretical arrival time (TAT).
// calendar: the key holds "windowStart:count".
// TTLs only bound memory (a rolling key lives until its bucket is full again, a calendar
// key until its window ends, plus a second); correctness never depends on them.
// ARGV: now (or '' for Redis's clock), then kind, limit, period per rule (KEYS in order).
const ADMIT = new RedisScript(`
local now = tonumber(ARGV[1])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local n = #KEYS
local writes = {}
local refused, refusedRetry = nil, -1
local binding, bindingRemaining = nil, nil
local out = {}
for i = 1, n do
  local kind = ARGV[2 + (i - 1) * 3]
  local limit = tonumber(ARGV[3 + (i - 1) * 3])
  local period = tonumber(ARGV[4 + (i - 1) * 3])
  local allowed, remaining, resetAt, retry
  if kind == 'rolling' then
    local interval = period / limit
    local tat = tonumber(redis.call('GET', KEYS[i]) or '') or now
    if tat < now then tat = now end
    local newTat = tat + interval
    local over = newTat - now - period
    if over > 0 then
      allowed, remaining, resetAt, retry = 0, 0, tat, math.ceil(over)
    else
      allowed, remaining, resetAt, retry = 1, math.floor((period - (newTat - now)) / interval), math.ceil(newTat), 0
      writes[i] = {string.format('%.17g', newTat), math.ceil(newTat - now) + 1000}
    end
  else
    local start = now - (now % period)
    local finish = start + period
    local count = 0
    local stored = redis.call('GET', KEYS[i])
    if stored then
      local s, c = string.match(stored, '^([^:]+):(%d+)$')
      if tonumber(s) == start then count = tonumber(c) end
    end
    if count >= limit then
      allowed, remaining, resetAt, retry = 0, 0, finish, finish - now
    else
      allowed, remaining, resetAt, retry = 1, limit - count - 1, finish, 0
      writes[i] = {string.format('%.17g', start) .. ':' .. (count + 1), math.ceil(finish - now) + 1000}
    end
  end
  out[i] = {allowed, remaining, resetAt, retry}
  if allowed == 0 then
    if refused == nil or retry > refusedRetry then refused, refusedRetry = i, retry end
  elseif binding == nil or remaining < bindingRemaining then
    binding, bindingRemaining = i, remaining
  end
end
local pick = refused
if pick == nil then
  for i = 1, n do
    if writes[i] then redis.call('SET', KEYS[i], writes[i][1], 'PX', writes[i][2]) end
  end
  pick = binding
end
if pick == nil then return {'0', '1', '0', '0', '0', string.format('%.17g', now)} end
local d = out[pick]
return {tostring(pick), tostring(d[1]), string.format('%.17g', d[2]), string.format('%.17g', d[3]), string.format('%.17g', d[4]), string.format('%.17g', now)}
`);

export interface RedisRateLimiterOptions {
  /**
   * Whose clock decides: 'redis' (default) reads Redis's TIME inside the script, so every
   * instance uses one clock and skew between hosts cannot stretch or shrink a limit;
   * 'caller' uses the `nowMs` passed to admit (tests with a scripted clock).
   */
  clock?: 'redis' | 'caller';
  /** Key prefix. Default 'sy:rl'. */
  prefix?: string;
}

/**
 * Rate limits shared by every gateway instance: the InProcessRateLimiter contract (every
 * rule passes and counts, or none counts) in one Lua script per admit. Keys are
 * `<prefix>:{<subject>}:<bucket>`: the hash tag keeps one admit's keys in one Redis Cluster
 * slot. Pass the account id as `subject` (every rule of a request belongs to one account);
 * without it all buckets share one tag (right, but a cluster cannot spread them).
 * Rejects with SharedStateUnavailable when Redis cannot answer: the caller fails closed.
 */
export class RedisRateLimiter implements SharedRateLimiter {
  private readonly conn: RedisConnection;
  private readonly clock: 'redis' | 'caller';
  private readonly prefix: string;

  constructor(conn: RedisConnection, opts: RedisRateLimiterOptions = {}) {
    this.conn = conn;
    this.clock = opts.clock ?? 'redis';
    this.prefix = opts.prefix ?? 'sy:rl';
  }

  async admit(rules: readonly RateRule[], nowMs: number, subject = 'all'): Promise<RateDecision> {
    const keys = rules.map((r) => `${this.prefix}:{${subject}}:${r.bucket}`);
    const args = [this.clock === 'caller' ? String(nowMs) : ''];
    for (const r of rules) args.push(r.kind, String(r.limit), String(r.periodMs));
    const [pick, allowed, remaining, resetAt, retry, now] = await ADMIT.run<string[]>(this.conn, keys, args);
    const index = Number(pick);
    if (index === 0) {
      return { allowed: true, rule: null, limit: 0, remaining: Number.MAX_SAFE_INTEGER, resetAtMs: Number(now), retryAfterMs: 0 };
    }
    const rule = rules[index - 1]!;
    return {
      allowed: allowed === '1',
      rule,
      limit: rule.limit,
      remaining: Number(remaining),
      resetAtMs: Number(resetAt),
      retryAfterMs: Number(retry),
    };
  }
}
