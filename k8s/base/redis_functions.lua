#!lua name=arbiter_v2
-- The game store's Redis functions (libs/store/redis_scripts.h has the keys, the arguments and
-- the replies of each). Loaded once by an administrator (FUNCTION LOAD REPLACE; the store's own
-- ACL user may only FCALL them, so it cannot run any other code on Redis), persisted in the AOF
-- and replicated, so a restarted Redis and a promoted replica have them.
--
-- Versioned: the library's name and every function's name carry the version (Redis function
-- names are global across libraries). A change to any function is a new version (arbiter_v2,
-- arbiter_v2_append, ...) loaded beside the old one, so servers of both versions run during a
-- rolling upgrade; libs/store/redis_scripts.h names the version a server calls.
--
-- Each function touches only keys that share one hash tag, the game's deadline shard, so it runs
-- on Redis Cluster as on one node. A function runs atomically; each validates everything before
-- its first write, so an error can never leave half of a write behind (Redis does not roll back
-- a function's earlier writes).

local function append(KEYS, ARGV)
  local identity
  if ARGV[3] ~= '' then
    identity = 'c:' .. redis.sha1hex(ARGV[3])
  else
    -- Everything the request writes, not the expected tip (a retry may pass another one).
    local parts = {}
    for i = 5, #ARGV do parts[#parts + 1] = #ARGV[i] .. ':' .. ARGV[i] end
    identity = 'r:' .. redis.sha1hex(table.concat(parts))
  end
  local prev = redis.call('HGET', KEYS[3], ARGV[2])
  if prev then
    local first, last, prev_identity = string.match(prev, '^(%d+)|(%d+)|(.*)$')
    if prev_identity ~= identity then return {'REUSED', first, last} end
    -- Written again, unchanged: a replay is a write too, so the WAIT after it (replicas,
    -- redis_client.h) waits for the original append to reach the replicas, not only for this
    -- connection's earlier writes. The retry of an append whose WAIT fell short relies on it.
    redis.call('HSET', KEYS[3], ARGV[2], prev)
    return {'REPLAY', first, last}
  end
  local version = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
  local expected = tonumber(ARGV[5])
  if version == 0 and redis.call('EXISTS', KEYS[6]) == 1 then return {'ARCHIVED'} end
  if expected == 0 and version ~= 0 then return {'EXISTS', tostring(version)} end
  if expected ~= 0 and version == 0 then return {'NOT_FOUND'} end
  if version ~= expected then return {'CONFLICT', tostring(version)} end
  -- The tip: the same version reached by other appends (a promoted replica that lacked some)
  -- is a conflict too. A game written before tips has none and matches only ''.
  if ARGV[4] ~= '' and (redis.call('HGET', KEYS[1], 't') or '') ~= ARGV[4] then
    return {'TIP', tostring(version)}
  end
  -- The new tip: a digest of what this append writes under which command id, so the same command
  -- decided again on a promoted replica (a retry, other timestamps) leaves another tip.
  local written = {#ARGV[2] .. ':' .. ARGV[2]}
  for i = 8, #ARGV do written[#written + 1] = #ARGV[i] .. ':' .. ARGV[i] end
  local tip = redis.sha1hex(table.concat(written))
  local n = #ARGV - 8
  for i = 1, n do
    redis.call('XADD', KEYS[2], (version + i) .. '-0', 'e', ARGV[8 + i])
  end
  local last = version + n
  redis.call('HSET', KEYS[1], 'v', last, 's', ARGV[8], 't', tip)
  redis.call('HSET', KEYS[3], ARGV[2], (version + 1) .. '|' .. last .. '|' .. identity)
  if ARGV[6] == 'set' then
    redis.call('ZADD', KEYS[4], ARGV[7], ARGV[1])
    redis.call('HSET', KEYS[5], ARGV[1], ARGV[7] .. '|' .. last .. '|0|0|')
  elseif ARGV[6] == 'clear' then
    redis.call('ZREM', KEYS[4], ARGV[1])
    redis.call('HDEL', KEYS[5], ARGV[1])
  end
  return {'OK', tostring(version + 1), tostring(last), tip}
end

local function archive(KEYS, ARGV)
  local stored = redis.call('HGET', KEYS[6], 't')
  if stored then
    -- Written again, unchanged, as an append's replay is: the WAIT after it covers the original.
    redis.call('HSET', KEYS[6], 't', stored)
    return {'REPLAY', stored}
  end
  local version = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
  if version == 0 then return {'NOT_FOUND'} end
  if version ~= tonumber(ARGV[2]) then return {'CONFLICT', tostring(version)} end
  -- UNLINK: the log can be large; Redis frees it in the background.
  redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3])
  redis.call('ZREM', KEYS[4], ARGV[1])
  redis.call('HDEL', KEYS[5], ARGV[1])
  redis.call('HSET', KEYS[6], 't', ARGV[3])
  return {'OK'}
end

local function claim(KEYS, ARGV)
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
  local out = {}
  for _, id in ipairs(ids) do
    local info = redis.call('HGET', KEYS[2], id)
    if info then
      local deadline, version, claims = string.match(info, '^(%-?%d+)|(%d+)|(%d+)|')
      info = deadline .. '|' .. version .. '|' .. (tonumber(claims) + 1) .. '|' .. ARGV[2] .. '|' ..
             ARGV[4]
      redis.call('HSET', KEYS[2], id, info)
      redis.call('ZADD', KEYS[1], ARGV[2], id)
      out[#out + 1] = id
      out[#out + 1] = info
    end
  end
  return out
end

local function release(KEYS, ARGV)
  local info = redis.call('HGET', KEYS[2], ARGV[1])
  if not info then return 0 end
  local deadline, version, claims, lease, owner = string.match(info, '^(%-?%d+)|(%d+)|(%d+)|(%d+)|(.*)$')
  if owner ~= ARGV[2] then return 0 end
  redis.call('HSET', KEYS[2], ARGV[1], deadline .. '|' .. version .. '|' .. claims .. '|0|')
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end

-- The library's version, read by the store at start (FCALL_RO): a Redis without this library
-- is reported as such, not as a failure of the first append.
local function version()
  return 'arbiter_v2'
end

redis.register_function('arbiter_v2_append', append)
redis.register_function('arbiter_v2_archive', archive)
redis.register_function('arbiter_v2_claim', claim)
redis.register_function('arbiter_v2_release', release)
redis.register_function{function_name = 'arbiter_v2_version', callback = version,
                        flags = {'no-writes'}}
