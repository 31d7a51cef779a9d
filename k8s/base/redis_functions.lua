#!lua name=arbiter_v3
-- The game store's Redis functions (libs/store/redis_scripts.h has the keys, the arguments and
-- the replies of each). Loaded once by an administrator (FUNCTION LOAD REPLACE; the store's own
-- ACL user may only FCALL them, so it cannot run any other code on Redis), persisted in the AOF
-- and replicated, so a restarted Redis and a promoted replica have them.
--
-- Versioned: the library's name and every function's name carry the version (Redis function
-- names are global across libraries). A change to any function is a new version (arbiter_v3,
-- arbiter_v3_append, ...) loaded beside the old one, so servers of both versions run during a
-- rolling upgrade; libs/store/redis_scripts.h names the version a server calls.
--
-- Each function touches only keys that share one hash tag, the game's deadline shard, so it runs
-- on Redis Cluster as on one node. A function runs atomically; each validates everything before
-- its first write, so an error can never leave half of a write behind (Redis does not roll back
-- a function's earlier writes).

-- arbiter_v3 keeps one stream entry per append, a compact record (redis_scripts.h, "Records"), and
-- derives the game's version and tip from the last one, so the common append is one XADD: the AOF
-- gets that command alone, without MULTI/EXEC. Games written by arbiter_v2 (entries with field
-- `e`, one per event; the command records in the cmd hash; the tip in field `t`) still read and
-- append.

-- n bytes of the SHA-1 of s.
local function digest(s, n)
  local hex = redis.sha1hex(s)
  local out = {}
  for i = 1, n do out[i] = string.char(tonumber(string.sub(hex, 2 * i - 1, 2 * i), 16)) end
  return table.concat(out)
end

-- An entry's versions: ID "<last>-<n>" (a v3 record of n events; "<v>-0" is a v2 event).
local function versions(id)
  local last, n = string.match(id, '^(%d+)%-(%d+)$')
  last = tonumber(last)
  n = tonumber(n)
  if n == 0 then n = 1 end
  return last - n + 1, last
end

-- The game's version and tip from its last entry (and, for a v2 one, the game's hash).
local function head(KEYS, window)
  local last = window[1]
  if not last then return 0, '' end
  local _, version = versions(last[1])
  if last[2][1] == 'r' then return version, redis.sha1hex(last[2][2]) end
  return version, (redis.call('HGET', KEYS[1], 't') or '')
end

-- A record begins with its command id and the command's identity (8 bytes); the events follow,
-- in the store's compact encoding (redis_scripts.h). A client's id is stored scoped to its caller,
-- "u:<32 hex>/<client id>" (command_ids.h): 35 bytes of scope that each of that caller's records
-- would repeat. So a game keeps its callers' scopes once, in field u of its hash (each: one byte
-- of length, the scope), and a record names its scope by its place there: SCOPED, the scope's
-- index, the rest's length, the rest. Any other id (and a scope beyond MAX_SCOPES): one byte of
-- length, the id. An id's form is fixed when its scope joins the list (in the append that first
-- writes it), so one id has one form for the game's whole life.
local SCOPED = 255
local MAX_SCOPES = 250

local function scopes_of(game)
  if not game.scope_list then
    local list, i, s = {}, 1, game.scopes or ''
    while i <= #s do
      local len = string.byte(s, i)
      list[#list + 1] = string.sub(s, i + 1, i + len)
      i = i + 1 + len
    end
    game.scope_list = list
  end
  return game.scope_list
end

-- The place of s (a scope or a name) in the game's list, s joining the list at the next place
-- when it is not there yet (written by the append that first names it: game.joined); nil when
-- the list is full.
local function place_of(game, s)
  local list = scopes_of(game)
  for i, listed in ipairs(list) do
    if listed == s then return i end
  end
  if #list >= MAX_SCOPES then return nil end
  list[#list + 1] = s
  game.joined = (game.joined or '') .. string.char(#s) .. s
  return #list
end

-- The stored form of a command id (the record's first bytes, before the identity).
local function id_form(game, command_id)
  local scope, rest = string.match(command_id, '^(u:[^/]*/)(.*)$')
  local place = scope and place_of(game, scope)
  if not place then return string.char(#command_id) .. command_id end
  return string.char(SCOPED, place, #rest) .. rest
end

-- A name the game's records repeat (a move's actor) is kept once, in the same list as the scopes
-- (internal/record.h, kNamed). ARGV[14] lists the names the events hold inline: each entry its
-- offset in the events (3 bytes, from 0), its length (1 byte) and its bytes. There the events hold
-- the byte 0, the length (a varint) and the name, which become the name's place in the list (one
-- byte), the name joining the list if new. A full list, or an entry that does not match the events,
-- leaves the name inline: the record reads the same either way.
local function place_names(game, events, names)
  if not names or names == '' then return events end
  local out, from, i = {}, 1, 1
  while i + 3 <= #names do
    local a, b, c, len = string.byte(names, i, i + 3)
    local name = string.sub(names, i + 4, i + 3 + len)
    i = i + 4 + len
    local at = a * 65536 + b * 256 + c + 1
    local length = string.char(len)
    if len >= 128 then length = string.char(len, 1) end  -- the varint of 128..255
    local inline = '\0' .. length .. name
    local matches = len > 0 and #name == len and at >= from and
                    string.sub(events, at, at + #inline - 1) == inline
    local place = matches and place_of(game, name)
    if place then
      out[#out + 1] = string.sub(events, from, at - 1)
      out[#out + 1] = string.char(place)
      from = at + #inline
    end
  end
  out[#out + 1] = string.sub(events, from)
  return table.concat(out)
end

-- The command ids: every record carries its own, so an id is recognised however old it is. The
-- records after the snapshot (at most snapshot_every - 1, event_log.h) are compared one by one;
-- the ids of those up to it are summarised in a Bloom filter (field b of the game's hash,
-- BLOOM_BYTES, rewritten with the snapshot), and only its rare "maybe" reads the older records.
local BLOOM_BYTES = 128
local BLOOM_HASHES = 3

-- The filter's bits of a command id: BLOOM_HASHES 16-bit slices of its SHA-1.
local function bloom_bits(command_id)
  local hex = redis.sha1hex(command_id)
  local bits = {}
  for i = 1, BLOOM_HASHES do
    bits[i] = tonumber(string.sub(hex, 4 * i - 3, 4 * i), 16) % (BLOOM_BYTES * 8)
  end
  return bits
end

local function bloom_may_hold(bloom, command_id)
  if not bloom then return false end
  for _, b in ipairs(bloom_bits(command_id)) do
    local byte = string.byte(bloom, math.floor(b / 8) + 1)
    if bit.band(byte, bit.lshift(1, b % 8)) == 0 then return false end
  end
  return true
end

local function bloom_with(bloom, ids)
  local bytes = {}
  for i = 1, BLOOM_BYTES do bytes[i] = bloom and string.byte(bloom, i) or 0 end
  for _, id in ipairs(ids) do
    for _, b in ipairs(bloom_bits(id)) do
      local i = math.floor(b / 8) + 1
      bytes[i] = bit.bor(bytes[i], bit.lshift(1, b % 8))
    end
  end
  local out = {}
  for i = 1, BLOOM_BYTES do out[i] = string.char(bytes[i]) end
  return table.concat(out)
end

-- A record's command id (whole) and the command's identity.
local function record_id(game, rec)
  local len = string.byte(rec, 1)
  if len == SCOPED then
    local i, n = string.byte(rec, 2, 3)
    return (scopes_of(game)[i] or '') .. string.sub(rec, 4, 3 + n), string.sub(rec, 4 + n, 11 + n)
  end
  return string.sub(rec, 2, 1 + len), string.sub(rec, 2 + len, 9 + len)
end

-- The record whose command id has the stored form `form` among entries: first, last version and
-- identity, or nil.
local function find_in(entries, form)
  for _, entry in ipairs(entries) do
    if entry[2][1] == 'r' and string.sub(entry[2][2], 1, #form) == form then
      local first, last = versions(entry[1])
      return first, last, string.sub(entry[2][2], #form + 1, #form + 8)
    end
  end
  return nil
end

-- The entries after the snapshot at version `at`.
local function tail_of(KEYS, at)
  return redis.call('XRANGE', KEYS[2], (at + 1) .. '-0', '+')
end

-- The game as an append or a lookup reads it: the snapshot's version (arbiter_v2's: v), the
-- filter, whether arbiter_v2 wrote it, its callers' scopes and (unless `without_tail`) the entries
-- after the snapshot.
local function load(KEYS, without_tail)
  local g = redis.call('HMGET', KEYS[1], 'sv', 'v', 'b', 'u')
  local at = tonumber(g[1] or g[2] or '0')
  local game = {at = at, bloom = g[3], v2 = g[2] ~= false, scopes = g[4] or nil}
  if not without_tail then game.tail = tail_of(KEYS, at) end
  return game
end

-- The caller's word for the records after the snapshot (ARGV[12]: the snapshot's version, or
-- ''): the store client that made every append since that snapshot vouches that none of them
-- holds this command id. Reading and comparing those records costs ~0.7 us each (up to
-- snapshot_every - 1 of them, most of an append's cost in Redis), so they are skipped, but only
-- when the game is where the caller says: its snapshot at that version, its last entry at the
-- expected version with the expected tip (the compare-and-set the append makes anyway). Otherwise
-- the records are read and compared as ever. Either way the filter answers for the ids up to the
-- snapshot. Returns the game's version and tip when trusted (nil otherwise), with game.tail set:
-- {} when trusted, the records otherwise.
local function vouched(KEYS, ARGV, game)
  local at = tonumber(ARGV[12] or '')
  if at and at == game.at and not game.v2 and ARGV[4] ~= '' then
    local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
    local version, tip = head(KEYS, {last[1]})
    if version == tonumber(ARGV[5]) and tip == ARGV[4] then
      game.tail = {}
      return version, tip
    end
  end
  game.tail = tail_of(KEYS, game.at)
  return nil
end

-- A command id's record: first, last version and identity (v2's: its identity string), or nil.
-- `form`: the id's stored form (id_form).
local function find(KEYS, game, command_id, form)
  local first, last, identity = find_in(game.tail, form)
  if first then return first, last, identity end
  if bloom_may_hold(game.bloom, command_id) then
    first, last, identity = find_in(redis.call('XRANGE', KEYS[2], '-', tostring(game.at)), form)
    if first then return first, last, identity end
  end
  if game.v2 then
    -- A game written by arbiter_v2 keeps its command records in the cmd hash.
    local prev = redis.call('HGET', KEYS[3], command_id)
    if prev then
      local pfirst, plast, pidentity = string.match(prev, '^(%d+)|(%d+)|(.*)$')
      return tonumber(pfirst), tonumber(plast), pidentity
    end
  end
  return nil
end

-- The shard's feed (KEYS[7], game_feed.h): one entry per append, one field: the game id, and the
-- last version the append wrote, "-<n>" after it only when it wrote n > 1 events (the log's entry
-- ID is "<last>-<n>"), not the events again. IDs "1-<sequence>": Redis numbers the sequence itself
-- (1-*), one more than the last, so a reader tells a gap (trimmed entries) from the sequences
-- alone. Trimmed to about ARGV[11] entries ('' or '0' writes none) not by the XADD, whose MAXLEN
-- Redis would write into the AOF with every append, but by an XTRIM MAXLEN ~ (whole nodes, cheap)
-- on every FEED_TRIM_EVERY-th entry of the shard (fewer for a short retention): the feed keeps at
-- least ARGV[11] entries and at most that many more.
local FEED_TRIM_EVERY = 128

-- The feed is replicated but not written to the AOF (redis.set_repl): a move then costs the AOF
-- its log's XADD alone, without the feed's XADD and the MULTI/EXEC that two writes need. A
-- failover keeps it (the replicas have it); a restart from the AOF loses the entries since the
-- last rewrite, or the whole feed. So the first entry a shard's feed gets after this library is
-- loaded (a restart, a promoted replica, FUNCTION LOAD) starts a new epoch of its numbering:
-- sequence (epoch) * FEED_EPOCH, the epoch one more than the last, which is kept where the AOF
-- has it (field '' of the shard's deadline-info hash, KEYS[5]: no game has an empty id), written
-- once per load and shard. A reader's position from before then finds another sequence than the
-- one it expects and is refused as expired, never read past entries that were lost. (A shard's
-- epoch holds 2^36 entries: years of a shard's appends.) The feeds written since the library was
-- loaded:
local FEED_EPOCH = 68719476736
local feeds_written = {}

-- The epoch the shard's next entry starts, when it is the first since the library was loaded,
-- else nil. `info`: the shard's deadline-info hash.
local function feed_epoch(key, info)
  if feeds_written[key] then return nil end
  return tonumber(redis.call('HGET', info, '') or '0') + 1
end

local function feed(KEYS, ARGV, now, n)
  local keep = tonumber(ARGV[11] or '0') or 0
  if keep <= 0 then return end
  local versions = tostring(now)
  if n ~= 1 then versions = now .. '-' .. n end
  local epoch = feed_epoch(KEYS[7], KEYS[5])
  local next_id = '1-*'
  if epoch then
    redis.call('HSET', KEYS[5], '', string.format('%.0f', epoch))
    next_id = string.format('1-%.0f', epoch * FEED_EPOCH)
  end
  redis.set_repl(redis.REPL_REPLICA)
  local id = redis.call('XADD', KEYS[7], next_id, ARGV[1], versions)
  feeds_written[KEYS[7]] = true
  local every = math.min(FEED_TRIM_EVERY, math.max(1, math.floor(keep / 32)))
  if tonumber(string.sub(id, 3)) % every == 0 then
    redis.call('XTRIM', KEYS[7], 'MAXLEN', '~', keep)
  end
  redis.set_repl(redis.REPL_ALL)
end

-- The sequence of the shard's next feed entry (KEYS[1] the feed, KEYS[2] the shard's
-- deadline-info; FeedHead): one past the last, or the next epoch's first.
local function feed_head(KEYS)
  local epoch = feed_epoch(KEYS[1], KEYS[2])
  if epoch then return string.format('%.0f', epoch * FEED_EPOCH) end
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
  if not last then return '0' end
  return string.format('%.0f', tonumber(string.sub(last[1], 3)) + 1)
end

-- The games index (redis_scripts.h, "The games index"): the caller's labels for the game (packed
-- "<status>|..."), written only when they change, with the game in the shard's set of all games,
-- of its status (out of its previous status's) and of its event and players. KEYS[from] is the
-- index hash, KEYS[from + 1] the set of all games, KEYS[from + 2] the previous status's set,
-- KEYS[from + 3..] the sets the game belongs to.
local function index(KEYS, from, id, labels)
  redis.call('HSET', KEYS[from], id, labels)
  redis.call('ZADD', KEYS[from + 1], 0, id)
  if KEYS[from + 2] ~= KEYS[from + 3] then redis.call('ZREM', KEYS[from + 2], id) end
  for i = from + 3, #KEYS do redis.call('ZADD', KEYS[i], 0, id) end
end

local function append(KEYS, ARGV)
  local identity
  if ARGV[3] ~= '' then
    identity = digest('c:' .. ARGV[3], 8)
  else
    -- Everything the request writes, not the expected tip (a retry may pass another one) nor the
    -- server's settings that follow the events (the feed's retention).
    local parts = {}
    for i = 5, 10 do parts[#parts + 1] = #ARGV[i] .. ':' .. ARGV[i] end
    identity = digest('r:' .. table.concat(parts), 8)
  end
  local game = load(KEYS, true)
  local trusted_version, trusted_tip = vouched(KEYS, ARGV, game)
  local form = id_form(game, ARGV[2])
  local first, last, recorded = find(KEYS, game, ARGV[2], form)
  if first then
    -- arbiter_v2's records hold the identity as 'c:' and the fingerprint's SHA-1.
    if recorded ~= identity and (ARGV[3] == '' or recorded ~= 'c:' .. redis.sha1hex(ARGV[3])) then
      return {'REUSED', tostring(first), tostring(last)}
    end
    -- Written again: a replay is a write too, so the WAIT after it (replicas, redis_client.h)
    -- waits for the original append to reach the replicas, not only this connection's writes.
    redis.call('HSET', KEYS[1], 'r', last)
    return {'REPLAY', tostring(first), tostring(last)}
  end
  -- The game's version and tip: known already when the caller's word was taken.
  local version, tip = trusted_version, trusted_tip
  if not version then
    local latest = game.tail
    if #latest == 0 then latest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1) end
    version, tip = head(KEYS, {latest[#latest]})
  end
  local expected = tonumber(ARGV[5])
  if version == 0 and redis.call('EXISTS', KEYS[6]) == 1 then return {'ARCHIVED'} end
  if expected == 0 and version ~= 0 then return {'EXISTS', tostring(version)} end
  if expected ~= 0 and version == 0 then return {'NOT_FOUND'} end
  if version ~= expected then return {'CONFLICT', tostring(version)} end
  -- The tip: the same version reached by other appends (a promoted replica that lacked some)
  -- is a conflict too. A game written before tips has none and matches only ''.
  if ARGV[4] ~= '' and tip ~= ARGV[4] then return {'TIP', tostring(version)} end
  local n = tonumber(ARGV[9])
  local record = form .. identity .. place_names(game, ARGV[10], ARGV[14])
  local now = version + n
  redis.call('XADD', KEYS[2], now .. '-' .. n, 'r', record)
  feed(KEYS, ARGV, now, n)
  -- One HSET of the game's hash for what changed: a new caller's scope or name, and the snapshot
  -- when the caller sends one (every snapshot_every versions, event_log.h) with the filter of the
  -- command ids up to it.
  local fields = {}
  if game.joined then
    fields = {'u', (game.scopes or '') .. game.joined}
    game.scopes = fields[2]
  end
  if ARGV[8] ~= '' then
    local ids = {ARGV[2]}
    if trusted_version then game.tail = tail_of(KEYS, game.at) end  -- skipped above
    for _, entry in ipairs(game.tail) do
      if entry[2][1] == 'r' then ids[#ids + 1] = record_id(game, entry[2][2]) end
    end
    for _, f in ipairs({'s', ARGV[8], 'sv', now, 'b', bloom_with(game.bloom, ids)}) do
      fields[#fields + 1] = f
    end
  end
  if #fields > 0 then redis.call('HSET', KEYS[1], unpack(fields)) end
  local kind = ARGV[6]
  if kind == 'bound' then
    -- A lower bound of the flag's instant: written only when the entry would come due after it
    -- (its score: the deadline, the end of a lease, or where a check released it to).
    local due = redis.call('ZSCORE', KEYS[4], ARGV[1])
    if due and tonumber(due) <= tonumber(ARGV[7]) then kind = 'keep' else kind = 'set' end
  end
  if kind == 'set' then
    redis.call('ZADD', KEYS[4], ARGV[7], ARGV[1])
    redis.call('HSET', KEYS[5], ARGV[1], ARGV[7] .. '|' .. now .. '|0|0|')
  elseif kind == 'clear' then
    -- Nothing is propagated when there was no entry.
    redis.call('ZREM', KEYS[4], ARGV[1])
    redis.call('HDEL', KEYS[5], ARGV[1])
  end
  if ARGV[13] and ARGV[13] ~= '' then index(KEYS, 8, ARGV[1], ARGV[13]) end
  return {'OK', tostring(version + 1), tostring(now), redis.sha1hex(record)}
end

-- A command id's record: {first, last} or {} (LookupCommand).
local function lookup(KEYS, ARGV)
  local game = load(KEYS)
  local first, last = find(KEYS, game, ARGV[1], id_form(game, ARGV[1]))
  if first then return {tostring(first), tostring(last)} end
  return {}
end

local function archive(KEYS, ARGV)
  local stored = redis.call('HGET', KEYS[6], 't')
  if stored then
    -- Written again, unchanged, as an append's replay is: the WAIT after it covers the original.
    redis.call('HSET', KEYS[6], 't', stored)
    return {'REPLAY', stored}
  end
  local version = head(KEYS, redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1))
  if version == 0 then return {'NOT_FOUND'} end
  if version ~= tonumber(ARGV[2]) then return {'CONFLICT', tostring(version)} end
  -- UNLINK: the log can be large; Redis frees it in the background.
  redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3])
  redis.call('ZREM', KEYS[4], ARGV[1])
  redis.call('HDEL', KEYS[5], ARGV[1])
  redis.call('HSET', KEYS[6], 't', ARGV[3])
  -- The index lists it as archived (KEYS[8..] and ARGV[4] as an append's KEYS[8..], ARGV[13]).
  if ARGV[4] then index(KEYS, 8, ARGV[1], ARGV[4]) end
  return {'OK'}
end

-- The games index's backfill (redis_scripts.h, kBackfill): a game written before the index, live
-- (KEYS[1], its hash) or archived (KEYS[2]), listed as index() lists it (KEYS[3..]), unless an
-- append listed it already: that entry stands.
local function backfill(KEYS, ARGV)
  if redis.call('HGET', KEYS[3], ARGV[1]) then return 0 end
  if redis.call('EXISTS', KEYS[1], KEYS[2]) == 0 then return -1 end
  index(KEYS, 3, ARGV[1], ARGV[2])
  return 1
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

-- A page of one shard's index: the ids after ARGV[1] ('' = from the first) in KEYS[1] (a set of
-- the index, in the order of the ids), at most ARGV[2], each with its labels from KEYS[2] (the
-- index hash; '' when missing).
local function list(KEYS, ARGV)
  local from = '-'
  if ARGV[1] ~= '' then from = '(' .. ARGV[1] end
  local ids = redis.call('ZRANGEBYLEX', KEYS[1], from, '+', 'LIMIT', 0, tonumber(ARGV[2]))
  if #ids == 0 then return {} end
  local labels = redis.call('HMGET', KEYS[2], unpack(ids))
  local out = {}
  for i, id in ipairs(ids) do
    out[#out + 1] = id
    out[#out + 1] = labels[i] or ''
  end
  return out
end

-- The library's version, read by the store at start (FCALL_RO): a Redis without this library
-- is reported as such, not as a failure of the first append.
local function version()
  return 'arbiter_v3'
end

-- Whether the append places names (its ARGV[14]): a library loaded before has no such function,
-- and a store that finds none sends no names (redis_scripts.h, kNames).
local function names()
  return 1
end

redis.register_function('arbiter_v3_append', append)
redis.register_function{function_name = 'arbiter_v3_feed_head', callback = feed_head,
                        flags = {'no-writes'}}
redis.register_function{function_name = 'arbiter_v3_lookup', callback = lookup,
                        flags = {'no-writes'}}
redis.register_function('arbiter_v3_archive', archive)
redis.register_function('arbiter_v3_backfill', backfill)
redis.register_function('arbiter_v3_claim', claim)
redis.register_function('arbiter_v3_release', release)
redis.register_function{function_name = 'arbiter_v3_list', callback = list,
                        flags = {'no-writes'}}
redis.register_function{function_name = 'arbiter_v3_version', callback = version,
                        flags = {'no-writes'}}
redis.register_function{function_name = 'arbiter_v3_names', callback = names,
                        flags = {'no-writes'}}
