import { RedisScript } from '../shared/redis/redis-script.ts';

// The Lua scripts of RedisCreditHolds (redis-credit-holds.ts), one atomic step each.
// Every script works on one account's three keys, hash-tagged by the account id (one
// Redis Cluster slot): KEYS[1] the account hash, KEYS[2] the entries hash, KEYS[3] the
// expiry sorted set.
//  account hash: balance, active, at (load time), held, settling, seq (bumped by every
//    commit, drop and forget, so a load that read the database before one is refused), and
//    per key of the account: k:<hash>:usage, :limit ('' none), :active, :exp ('' none), :held, :settling,
//    and the reset period the usage was read for, :pstart and :pend (epoch ms; '' both without
//    a reset: the usage is then the key's whole usage). At :pend the snapshot is read afresh.
//    The account's budget (budgets.ts): budget ('' none), busage (what the account spent in
//    the window), bpstart and bpend (the window, epoch ms; '' both without a reset); at
//    bpend the snapshot is read afresh. The budget counts the account's held and settling.
//    The member a key belongs to, k:<hash>:member ('' none), and per member of the account
//    whose key was loaded: m:<id>:budget ('' none), :busage, :bpstart, :bpend (as the
//    account's), and the member's in-flight money over all their keys, :held and :settling.
//  entries hash: id -> 'h|<keyHash>|<nanos>|<owner>|<member>' (a hold) or 's|...' (a charge
//    settling: the request ended, its database write has not committed yet). <member> is the
//    key's member when the hold was taken ('' none; absent in entries of older versions).
//  expiry set: id -> epoch ms when the entry is abandoned (its instance died).
// Money is integer nano-USD: stored and moved with HINCRBY (exact 64-bit); compared in Lua
// numbers (doubles), exact while every figure stays under 2^53 nano-USD (about $9M),
// which RedisCreditHolds checks before loading a snapshot.

const COMMON = `
local function clock(v)
  local n = tonumber(v)
  if n then return n end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function n0(v) return tonumber(v or '0') or 0 end
local function fmt(n) return string.format('%.0f', n) end
local function parse(e)
  local state, kh, amount, owner, member = string.match(e, '^(%a)|([^|]*)|(%-?%d+)|([^|]*)|?([^|]*)$')
  return state, kh, amount, owner, member or ''
end
local function drop(id, state, kh, amount, member)
  local field = state == 'h' and 'held' or 'settling'
  redis.call('HINCRBY', KEYS[1], field, '-' .. amount)
  redis.call('HINCRBY', KEYS[1], 'k:' .. kh .. ':' .. field, '-' .. amount)
  if member and member ~= '' then redis.call('HINCRBY', KEYS[1], 'm:' .. member .. ':' .. field, '-' .. amount) end
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
local function settlingIds()
  local ids = {}
  local all = redis.call('HGETALL', KEYS[2])
  for i = 1, #all, 2 do
    if string.sub(all[i + 1], 1, 2) == 's|' then ids[#ids + 1] = all[i] end
  end
  return ids
end
`;

// A key's snapshot whose reset period has ended (now >= :pend) is loaded afresh: the next
// period starts from the database's figure. The 'load' reply carries the clock reading
// that decided it, so the period loaded is the one in force by this clock.
// ARGV: now, id, keyHash, amount, owner, holdMs, maxAgeMs.
// A key's member's budget is checked beside the account's (m:<id>:*, loaded with the key).
// -> {'ok', held} | {'balance'|'key_limit'|'budget'|'member_budget', available} | {'inactive'} | {'load', seq, now, settling ids...}
export const RESERVE = new RedisScript(`${COMMON}
local now = clock(ARGV[1])
local id, kh, amount, owner = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local p = 'k:' .. kh .. ':'
local a = redis.call('HMGET', KEYS[1], 'balance', 'active', 'held', 'settling', p .. 'usage', p .. 'limit', p .. 'active', p .. 'exp', p .. 'held', p .. 'settling', 'seq', 'at', p .. 'pend', 'budget', 'busage', 'bpend', p .. 'member')
local function load()
  local reply = {'load', a[11] or '0', fmt(now)}
  for _, sid in ipairs(settlingIds()) do reply[#reply + 1] = sid end
  return reply
end
if not a[1] or not a[5] or not a[12] or now - tonumber(a[12]) > tonumber(ARGV[7])
  or not a[13] or (a[13] ~= '' and now >= tonumber(a[13]))
  or not a[14] or (a[16] and a[16] ~= '' and now >= tonumber(a[16])) or not a[17] then
  return load()
end
local member = a[17]
local m = nil
if member ~= '' then
  local q = 'm:' .. member .. ':'
  m = redis.call('HMGET', KEYS[1], q .. 'budget', q .. 'busage', q .. 'bpend', q .. 'held', q .. 'settling')
  if not m[1] or (m[3] and m[3] ~= '' and now >= tonumber(m[3])) then return load() end
end
if a[2] ~= '1' or a[7] ~= '1' or (a[8] ~= '' and tonumber(a[8]) <= now) then return {'inactive'} end
local balance = tonumber(a[1]) - n0(a[4])
local available = balance - n0(a[3])
if balance <= 0 or available < amount then
  return {'balance', fmt(math.max(available, 0))}
end
if a[6] ~= '' then
  local keyRoom = tonumber(a[6]) - tonumber(a[5]) - n0(a[10]) - n0(a[9])
  if keyRoom <= 0 or keyRoom < amount then
    return {'key_limit', fmt(math.max(math.min(keyRoom, available), 0))}
  end
end
if a[14] ~= '' then
  local budgetRoom = tonumber(a[14]) - n0(a[15]) - n0(a[4]) - n0(a[3])
  if budgetRoom <= 0 or budgetRoom < amount then
    return {'budget', fmt(math.max(math.min(budgetRoom, available), 0))}
  end
end
if m and m[1] ~= '' then
  local memberRoom = tonumber(m[1]) - n0(m[2]) - n0(m[5]) - n0(m[4])
  if memberRoom <= 0 or memberRoom < amount then
    return {'member_budget', fmt(math.max(math.min(memberRoom, available), 0))}
  end
end
if amount == 0 then return {'ok', '0'} end
if redis.call('HEXISTS', KEYS[2], id) == 1 then return redis.error_reply('ERR credit hold ' .. id .. ' exists') end
redis.call('HINCRBY', KEYS[1], 'held', ARGV[4])
redis.call('HINCRBY', KEYS[1], p .. 'held', ARGV[4])
if member ~= '' then redis.call('HINCRBY', KEYS[1], 'm:' .. member .. ':held', ARGV[4]) end
redis.call('HSET', KEYS[2], id, 'h|' .. kh .. '|' .. ARGV[4] .. '|' .. owner .. '|' .. member)
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[6]), id)
return {'ok', ARGV[4]}
`);

// The overshoot rule (CreditReservations.chargeable), read only.
// ARGV: keyHash, held, cost. -> the chargeable amount. \`member\`: the hold's member ('' none).
const CHARGEABLE_BODY = `
local function chargeable(kh, held, cost, member)
  if cost <= held then return cost end
  local p = 'k:' .. kh .. ':'
  local a = redis.call('HMGET', KEYS[1], 'balance', 'held', 'settling', p .. 'usage', p .. 'limit', p .. 'held', p .. 'settling', 'budget', 'busage')
  if not a[1] or not a[4] then return held end
  local room = tonumber(a[1]) - n0(a[3]) - (n0(a[2]) - held)
  if a[5] ~= '' then
    local keyRoom = tonumber(a[5]) - tonumber(a[4]) - n0(a[7]) - (n0(a[6]) - held)
    if keyRoom < room then room = keyRoom end
  end
  if a[8] and a[8] ~= '' then
    local budgetRoom = tonumber(a[8]) - n0(a[9]) - n0(a[3]) - (n0(a[2]) - held)
    if budgetRoom < room then room = budgetRoom end
  end
  if member ~= '' then
    local q = 'm:' .. member .. ':'
    local m = redis.call('HMGET', KEYS[1], q .. 'budget', q .. 'busage', q .. 'held', q .. 'settling')
    if m[1] and m[1] ~= '' then
      local memberRoom = tonumber(m[1]) - n0(m[2]) - n0(m[4]) - (n0(m[3]) - held)
      if memberRoom < room then room = memberRoom end
    end
  end
  if room < held then room = held end
  if cost < room then return cost end
  return room
end
`;

export const CHARGEABLE = new RedisScript(`${COMMON}${CHARGEABLE_BODY}
return fmt(chargeable(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), redis.call('HGET', KEYS[1], 'k:' .. ARGV[1] .. ':member') or ''))
`);

// The request ended: its hold (if still there) is released, and the chargeable part of
// its cost (the overshoot rule, in the same step) counts as settling until `committed`.
// ARGV: now, id, keyHash, cost, owner, settleMs. -> the amount to charge.
export const FINISH = new RedisScript(`${COMMON}${CHARGEABLE_BODY}
local now = clock(ARGV[1])
local id, kh, cost = ARGV[2], ARGV[3], tonumber(ARGV[4])
local held = 0
local e = redis.call('HGET', KEYS[2], ARGV[2])
local state, ekh, amount, _, member
if e then
  state, ekh, amount, _, member = parse(e)
  if state ~= 'h' then return redis.error_reply('ERR credit hold ' .. id .. ' already finished') end
  held = tonumber(amount)
else
  member = redis.call('HGET', KEYS[1], 'k:' .. kh .. ':member') or ''
end
-- The rule counts this hold among the account's (chargeable() subtracts it): charge, then release.
local charge = chargeable(kh, held, cost, member)
if e then drop(id, state, ekh, amount, member) end
if charge > 0 then
  local c = fmt(charge)
  redis.call('HINCRBY', KEYS[1], 'settling', c)
  redis.call('HINCRBY', KEYS[1], 'k:' .. kh .. ':settling', c)
  if member ~= '' then redis.call('HINCRBY', KEYS[1], 'm:' .. member .. ':settling', c) end
  redis.call('HSET', KEYS[2], id, 's|' .. kh .. '|' .. c .. '|' .. ARGV[5] .. '|' .. member)
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[6]), id)
end
return fmt(charge)
`);

// Settlements committed to the database (or dropped: never will be).
// ARGV: 'commit'|'drop', then per settlement: id, epoch ms its request began ('' for a drop).
// A committed charge moves the snapshot's balance and key usage once: if its entry is gone, a
// load already read it from the database. The key usage moves only for a request begun
// within the snapshot's reset period (a charge counts on the day its request began, as the
// rollups put it: one begun before the period does not count in it).
export const SETTLED = new RedisScript(`${COMMON}
local commit = ARGV[1] == 'commit'
for i = 2, #ARGV, 2 do
  local id = ARGV[i]
  local e = redis.call('HGET', KEYS[2], id)
  if e then
    local state, kh, amount, _, member = parse(e)
    if state == 's' then
      drop(id, state, kh, amount, member)
      if commit then
        if redis.call('HEXISTS', KEYS[1], 'balance') == 1 then redis.call('HINCRBY', KEYS[1], 'balance', '-' .. amount) end
        local u = redis.call('HMGET', KEYS[1], 'k:' .. kh .. ':usage', 'k:' .. kh .. ':pstart', 'busage', 'bpstart')
        local begun = tonumber(ARGV[i + 1] or '')
        if member ~= '' then
          local q = 'm:' .. member .. ':'
          local mu = redis.call('HMGET', KEYS[1], q .. 'busage', q .. 'bpstart')
          if mu[1] and (not mu[2] or mu[2] == '' or (begun and begun >= tonumber(mu[2]))) then
            redis.call('HINCRBY', KEYS[1], q .. 'busage', amount)
          end
        end
        if u[3] and (not u[4] or u[4] == '' or (begun and begun >= tonumber(u[4]))) then
          redis.call('HINCRBY', KEYS[1], 'busage', amount)
        end
        if u[1] and (not u[2] or u[2] == '' or (begun and begun >= tonumber(u[2]))) then
          redis.call('HINCRBY', KEYS[1], 'k:' .. kh .. ':usage', amount)
        end
      end
    end
  end
end
redis.call('HINCRBY', KEYS[1], 'seq', 1)
return 'ok'
`);

// The database's state, read after the 'load' reply with sequence ARGV[1]; refused ('retry')
// when a commit, drop or forget came in between. The settling ids the database already has
// in its ledger (ARGV[12..]) are part of the loaded balance: their entries go.
// ARGV: seq, now, keyHash, balance, accountActive, usage (the limit's: of the period with a
// reset), limit|'', keyActive, exp|'', period start|'', period end|'', budget|'', budget usage,
// budget window start|'', budget window end|'', the key's member|'', the member's budget|'',
// its usage, its window start|'', its window end|'', committed ids...
export const LOAD = new RedisScript(`${COMMON}
if (redis.call('HGET', KEYS[1], 'seq') or '0') ~= ARGV[1] then return 'retry' end
local p = 'k:' .. ARGV[3] .. ':'
redis.call('HSET', KEYS[1], 'balance', ARGV[4], 'active', ARGV[5], 'at', fmt(clock(ARGV[2])),
  p .. 'usage', ARGV[6], p .. 'limit', ARGV[7], p .. 'active', ARGV[8], p .. 'exp', ARGV[9], p .. 'pstart', ARGV[10], p .. 'pend', ARGV[11],
  'budget', ARGV[12], 'busage', ARGV[13], 'bpstart', ARGV[14], 'bpend', ARGV[15], p .. 'member', ARGV[16])
if ARGV[16] ~= '' then
  local q = 'm:' .. ARGV[16] .. ':'
  redis.call('HSET', KEYS[1], q .. 'budget', ARGV[17], q .. 'busage', ARGV[18], q .. 'bpstart', ARGV[19], q .. 'bpend', ARGV[20])
end
for i = 21, #ARGV do
  local e = redis.call('HGET', KEYS[2], ARGV[i])
  if e then
    local state, kh, amount, _, member = parse(e)
    if state == 's' then drop(ARGV[i], state, kh, amount, member) end
  end
end
return 'ok'
`);

// Something changed in the database (credits, a key revoked, an account deactivated): the
// next reserve loads afresh. ARGV: keyHash or '' (the account and every key's snapshot).
export const FORGET = new RedisScript(`${COMMON}
if ARGV[1] == '' then
  local fields = redis.call('HKEYS', KEYS[1])
  for _, f in ipairs(fields) do
    if f == 'balance' or f == 'active' or f == 'at' or f == 'budget' or string.match(f, '^k:.*:usage$') or string.match(f, '^m:.*:budget$') then redis.call('HDEL', KEYS[1], f) end
  end
else
  redis.call('HDEL', KEYS[1], 'k:' .. ARGV[1] .. ':usage', 'at')
end
redis.call('HINCRBY', KEYS[1], 'seq', 1)
return 'ok'
`);

// Entries whose instance died (expired) are released: a hold's money is free again; a
// settling charge's fate is unknown here, so the snapshot is forgotten and the next load
// reads the ledger. ARGV: now. -> {released count, earliest remaining expiry or ''}
export const RECONCILE = new RedisScript(`${COMMON}
local now = clock(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
local forget = false
for _, id in ipairs(due) do
  local e = redis.call('HGET', KEYS[2], id)
  if e then
    local state, kh, amount, _, member = parse(e)
    drop(id, state, kh, amount, member)
    if state == 's' then forget = true end
  else
    redis.call('ZREM', KEYS[3], id)
  end
end
if forget then
  redis.call('HDEL', KEYS[1], 'balance', 'at')
  redis.call('HINCRBY', KEYS[1], 'seq', 1)
end
local nextDue = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
return {tostring(#due), nextDue[2] or ''}
`);

// The index of accounts with entries (its own key): score = when the account next needs
// reconciling. ARGV: now, account, next expiry or ''. Moved only when still due, so a
// reserve that meanwhile set an earlier time keeps it.
export const INDEX_AFTER_RECONCILE = new RedisScript(`
local score = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not score or tonumber(score) > tonumber(ARGV[1]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[2]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2]) end
return 1
`);
