#include "libs/store/redis_game_store.h"

#include <openssl/evp.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/store/internal/record.h"
#include "libs/store/internal/validation.h"
#include "libs/store/key_layout.h"
#include "libs/store/redis_scripts.h"

namespace store {
namespace {

using arbiter::v1::GameEvent;
using arbiter::v1::GameSnapshot;

absl::string_view Str(const redisReply& r) { return absl::string_view(r.str, r.len); }

bool IsString(const redisReply& r) {
  return r.type == REDIS_REPLY_STRING || r.type == REDIS_REPLY_STATUS;
}

// redis.sha1hex's digest, as the functions compute a record's tip.
std::string Sha1Hex(absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha1(), nullptr);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), static_cast<size_t>(size)));
}

// The games index's labels as the index hash keeps them (redis_scripts.h): "<status>|" and then
// each other label as "<length>:<bytes>". The status leads so that kArchive can replace it.
std::string PackLabels(const IndexLabels& l) {
  std::string out = absl::StrCat(l.status, "|");
  for (const std::string* v : {&l.event, &l.round, &l.white_id, &l.black_id, &l.result}) {
    absl::StrAppend(&out, v->size(), ":", *v);
  }
  return out;
}

std::optional<IndexLabels> UnpackLabels(absl::string_view packed) {
  IndexLabels l;
  const size_t bar = packed.find('|');
  if (bar == absl::string_view::npos) return std::nullopt;
  l.status = std::string(packed.substr(0, bar));
  packed.remove_prefix(bar + 1);
  for (std::string* v : {&l.event, &l.round, &l.white_id, &l.black_id, &l.result}) {
    const size_t colon = packed.find(':');
    size_t n = 0;
    if (colon == absl::string_view::npos || !absl::SimpleAtoi(packed.substr(0, colon), &n) ||
        n > packed.size() - colon - 1) {
      return std::nullopt;
    }
    *v = std::string(packed.substr(colon + 1, n));
    packed.remove_prefix(colon + 1 + n);
  }
  if (!packed.empty()) return std::nullopt;
  return l;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RedisGameStore>> RedisGameStore::Create(
    RedisGameStoreOptions options) {
  const RedisConnectionOptions& c = options.connection;
  if (c.host.empty() || c.port <= 0 || c.port > 65535) {
    return base::InvalidArgument(kErrBadArgument, "redis needs a host and a port in 1..65535");
  }
  if (c.pool_size < 1 || options.max_watchers < 1) {
    return base::InvalidArgument(kErrBadArgument, "pool_size and max_watchers must be >= 1");
  }
  if (c.connect_timeout <= absl::ZeroDuration() || c.command_timeout <= absl::ZeroDuration()) {
    return base::InvalidArgument(kErrBadArgument, "redis timeouts must be > 0");
  }
  if (options.num_deadline_shards < 1) {
    return base::InvalidArgument(kErrBadArgument, "num_deadline_shards must be >= 1");
  }
  if (absl::StrContains(options.key_prefix, "{") || absl::StrContains(options.key_prefix, "}")) {
    return base::InvalidArgument(kErrBadArgument, "the key prefix may not contain '{' or '}'");
  }
  return std::unique_ptr<RedisGameStore>(new RedisGameStore(std::move(options)));
}

RedisGameStore::RedisGameStore(RedisGameStoreOptions options)
    : options_(std::move(options)),
      shard_tags_(ShardHashTags(options_.num_deadline_shards)),
      client_(options_.connection),
      watch_client_([this] {
        RedisConnectionOptions watch = options_.connection;
        watch.pool_size = options_.max_watchers;
        watch.pipeline_lanes = 0;  // blocking reads, one per connection
        // The writers' client reports failovers; this one follows them silently (it would count
        // each switch a second time).
        watch.observer = nullptr;
        return watch;
      }()) {}

std::string RedisGameStore::ShardKey(absl::string_view kind, int shard) const {
  // The shard's hash tag (key_layout.h) puts every key of its games on one cluster slot.
  return absl::StrCat(options_.key_prefix, "{", shard_tags_[static_cast<size_t>(shard)],
                      "}:", kind);
}

std::string RedisGameStore::Key(absl::string_view kind, absl::string_view game_id) const {
  return absl::StrCat(ShardKey(kind, DeadlineShard(game_id, options_.num_deadline_shards)), ":",
                      game_id);
}

absl::Status RedisGameStore::GameNotFound(absl::string_view game_id) const {
  return base::NotFound(kErrGameNotFound, absl::StrCat("game ", game_id, " does not exist"));
}

absl::Status RedisGameStore::Corrupt(absl::string_view what) const {
  return base::Error(absl::StatusCode::kInternal, kErrStoreInternal,
                     absl::StrCat("redis ", client_.address(), ": unreadable ", what));
}

absl::StatusOr<RedisReplyPtr> RedisGameStore::Run(RedisClient& client,
                                                  const std::vector<std::string>& args,
                                                  absl::Duration extra_timeout) {
  ASSIGN_OR_RETURN(RedisReplyPtr reply, client.Command(args, extra_timeout));
  RETURN_IF_ERROR(client.ReplyStatus(*reply));
  return reply;
}

bool RedisGameStore::NoSuchFunction(const absl::Status& status) {
  return base::ErrorCode(status) == kErrStoreInternal &&
         absl::StrContains(status.message(), "Function not found");
}

absl::Status RedisGameStore::FunctionsMissing(const absl::StatusOr<RedisReplyPtr>& reply) const {
  if (!reply.ok() || (*reply)->type != REDIS_REPLY_ERROR ||
      !absl::StartsWith(Str(**reply), "ERR Function not found")) {
    return absl::OkStatus();
  }
  return base::Error(
      absl::StatusCode::kUnavailable, kErrStoreFunctionsMissing,
      absl::StrCat("redis ", client_.address(), " has no function library ",
                   redis_scripts::kLibrary,
                   ": an administrator loads libs/store/redis_functions.lua (FUNCTION LOAD "
                   "REPLACE; libs/store/README.md, \"Functions\")"));
}

std::vector<std::string> RedisGameStore::FcallCommand(const char* function,
                                                      std::vector<std::string> keys,
                                                      std::vector<std::string> args) {
  std::vector<std::string> argv;
  argv.reserve(3 + keys.size() + args.size());
  argv.insert(argv.end(), {"FCALL", function, absl::StrCat(keys.size())});
  std::move(keys.begin(), keys.end(), std::back_inserter(argv));
  std::move(args.begin(), args.end(), std::back_inserter(argv));
  return argv;
}

absl::StatusOr<RedisReplyPtr> RedisGameStore::Call(const char* function,
                                                   const std::vector<std::string>& keys,
                                                   const std::vector<std::string>& args,
                                                   Durability durability) {
  absl::StatusOr<RedisReplyPtr> reply =
      client_.Command(FcallCommand(function, keys, args), absl::ZeroDuration(), durability);
  RETURN_IF_ERROR(FunctionsMissing(reply));
  if (!reply.ok()) return reply.status();
  RETURN_IF_ERROR(client_.ReplyStatus(**reply));
  return reply;
}

absl::StatusOr<RedisReplyPtr> RedisGameStore::CallReadOnly(const char* function,
                                                           std::vector<std::string> keys,
                                                           std::vector<std::string> args) {
  std::vector<std::string> command = FcallCommand(function, std::move(keys), std::move(args));
  command[0] = "FCALL_RO";
  absl::StatusOr<RedisReplyPtr> reply = client_.Command(command);
  RETURN_IF_ERROR(FunctionsMissing(reply));
  if (!reply.ok()) return reply.status();
  RETURN_IF_ERROR(client_.ReplyStatus(**reply));
  return reply;
}

absl::Status RedisGameStore::CheckFunctions() {
  if (client_.uses_cluster()) {
    // Every master serves some games: each must have the library (FUNCTION LOAD runs per node).
    absl::Status status = client_.CommandOnEveryMaster({"FCALL_RO", redis_scripts::kVersion, "0"});
    if (status.ok()) {
      LearnNames(client_.CommandOnEveryMaster({"FCALL_RO", redis_scripts::kNames, "0"}));
    }
    if (NoSuchFunction(status)) {
      return base::Error(absl::StatusCode::kUnavailable, kErrStoreFunctionsMissing,
                         absl::StrCat(status.message(),
                                      ": a master of the cluster has no function "
                                      "library ",
                                      redis_scripts::kLibrary,
                                      ": an administrator loads libs/store/redis_functions.lua on "
                                      "every master (libs/store/README.md, \"Functions\")"));
    }
    return status;
  }
  absl::StatusOr<RedisReplyPtr> reply = client_.Command({"FCALL_RO", redis_scripts::kVersion, "0"});
  RETURN_IF_ERROR(FunctionsMissing(reply));
  if (!reply.ok()) return reply.status();
  RETURN_IF_ERROR(client_.ReplyStatus(**reply));
  if (!IsString(**reply) || Str(**reply) != redis_scripts::kLibrary) {
    return Corrupt("function library version");
  }
  LearnNames(client_.Command({"FCALL_RO", redis_scripts::kNames, "0"}).status());
  return absl::OkStatus();
}

void RedisGameStore::LearnNames(const absl::Status& answer) {
  // A library loaded before kNames answers "Function not found": its append would take the names'
  // argument for an index's labels, so none is sent to it.
  library_places_names_.store(answer.ok(), std::memory_order_relaxed);
}

std::vector<std::string> RedisGameStore::GameKeys(absl::string_view game_id) const {
  const int shard = DeadlineShard(game_id, options_.num_deadline_shards);
  return {Key("game", game_id),
          Key("log", game_id),
          Key("cmd", game_id),
          ShardKey("deadlines", shard),
          ShardKey("deadline-info", shard),
          Key("archived", game_id),
          ShardKey("feed", shard)};
}

RedisGameStore::ScriptArgs RedisGameStore::AppendArgs(const AppendRequest& request,
                                                      std::string vouched) const {
  const std::string& id = request.game_id;
  ScriptArgs a;
  a.keys = GameKeys(id);
  a.args.reserve(11);
  a.args.insert(a.args.end(), {id, request.command_id, request.fingerprint, request.expected_tip,
                               absl::StrCat(request.expected_version)});
  switch (request.deadline.kind) {
    case DeadlineUpdate::Kind::kKeep:
      a.args.insert(a.args.end(), {"keep", "0"});
      break;
    case DeadlineUpdate::Kind::kSet:
      a.args.insert(a.args.end(), {"set", absl::StrCat(request.deadline.deadline_ms)});
      break;
    case DeadlineUpdate::Kind::kClear:
      a.args.insert(a.args.end(), {"clear", "0"});
      break;
    case DeadlineUpdate::Kind::kBound:
      a.args.insert(a.args.end(), {"bound", absl::StrCat(request.deadline.deadline_ms)});
      break;
  }
  a.args.push_back(internal::WritesSnapshot(request)
                       ? internal::StampedSnapshot(request).SerializeAsString()
                       : std::string());
  a.args.push_back(absl::StrCat(request.events.size()));
  // The store fills version and command id on read (the entry's ID, the record's header).
  internal::EncodedEvents encoded = internal::EncodeEvents(
      request.events, options_.compact_events ? options_.event_codec.get() : nullptr,
      library_places_names_.load(std::memory_order_relaxed));
  a.args.push_back(std::move(encoded.events));
  a.args.push_back(absl::StrCat(std::max<std::int64_t>(0, options_.feed_retention)));
  a.args.push_back(std::move(vouched));
  // The index only when its labels change: an ordinary move sends (and logs) nothing more.
  if (request.index.has_value()) {
    AddIndexKeys(id, *request.index, a.keys);
    a.args.push_back(PackLabels(request.index->labels));
  }
  if (!encoded.names.empty()) {
    if (!request.index.has_value()) a.args.emplace_back();  // no labels
    a.args.push_back(std::move(encoded.names));
  }
  return a;
}

std::string RedisGameStore::Vouch(const AppendRequest& request) {
  if (request.expected_version == 0 || request.expected_tip.empty()) return "";
  const std::size_t id = absl::HashOf(request.command_id);
  absl::MutexLock lock(&tails_mu_);
  auto it = tails_.find(request.game_id);
  if (it == tails_.end()) return "";
  const KnownTail& t = it->second;
  if (t.version != request.expected_version || t.tip != request.expected_tip) return "";
  for (std::size_t known : t.ids) {
    if (known == id) return "";  // perhaps a retry: the function looks
  }
  return absl::StrCat(t.snapshot_version);
}

void RedisGameStore::Learn(const AppendRequest& request,
                           const absl::StatusOr<AppendResult>& result) {
  absl::MutexLock lock(&tails_mu_);
  if (!result.ok() || result->replayed || result->tip.empty()) {
    tails_.erase(request.game_id);
    return;
  }
  if (internal::WritesSnapshot(request)) {
    if (tails_.size() >= kMaxKnownTails && !tails_.contains(request.game_id)) tails_.clear();
    tails_[request.game_id] = KnownTail{result->version, result->version, result->tip, {}};
    return;
  }
  auto it = tails_.find(request.game_id);
  if (it == tails_.end()) return;
  KnownTail& t = it->second;
  if (t.version != request.expected_version || t.tip != request.expected_tip) {
    tails_.erase(it);
    return;
  }
  t.ids.push_back(absl::HashOf(request.command_id));
  t.version = result->version;
  t.tip = result->tip;
}

void RedisGameStore::AddIndexKeys(absl::string_view game_id, const IndexUpdate& update,
                                  std::vector<std::string>& keys) const {
  const int shard = DeadlineShard(game_id, options_.num_deadline_shards);
  const IndexLabels& l = update.labels;
  keys.push_back(ShardKey("index", shard));
  keys.push_back(ShardKey("index:all", shard));
  keys.push_back(
      ShardKey(absl::StrCat("index:status:",
                            update.previous_status.empty() ? l.status : update.previous_status),
               shard));
  keys.push_back(ShardKey(absl::StrCat("index:status:", l.status), shard));
  if (!l.event.empty()) keys.push_back(ShardKey(absl::StrCat("index:event:", l.event), shard));
  if (!l.white_id.empty()) {
    keys.push_back(ShardKey(absl::StrCat("index:player:", l.white_id), shard));
  }
  if (!l.black_id.empty() && l.black_id != l.white_id) {
    keys.push_back(ShardKey(absl::StrCat("index:player:", l.black_id), shard));
  }
}

absl::StatusOr<IndexPage> RedisGameStore::ListIndex(const IndexQuery& query) {
  RETURN_IF_ERROR(internal::ValidateIndexQuery(query));
  // The most selective set the query names drives the scan; the other labels filter its games.
  const std::string set = !query.event.empty()    ? absl::StrCat("index:event:", query.event)
                          : !query.player.empty() ? absl::StrCat("index:player:", query.player)
                          : !query.status.empty() ? absl::StrCat("index:status:", query.status)
                                                  : std::string("index:all");
  const int shards = options_.num_deadline_shards;
  absl::Mutex mu;
  int pending = shards;
  std::vector<absl::StatusOr<RedisReplyPtr>> replies;
  replies.reserve(static_cast<size_t>(shards));
  for (int shard = 0; shard < shards; ++shard) replies.emplace_back(absl::UnknownError("unsent"));
  for (int shard = 0; shard < shards; ++shard) {
    std::vector<std::string> command =
        FcallCommand(redis_scripts::kList, {ShardKey(set, shard), ShardKey("index", shard)},
                     {query.after, absl::StrCat(query.limit)});
    command[0] = "FCALL_RO";
    client_.CommandAsync(std::move(command), [&, shard](absl::StatusOr<RedisReplyPtr> reply) {
      absl::MutexLock lock(&mu);
      replies[static_cast<size_t>(shard)] = std::move(reply);
      --pending;
    });
  }
  {
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(
        +[](int* n) { return *n == 0; }, &pending));
  }
  std::vector<IndexedGame> looked_at;
  bool more = false;  // a shard has games after its page
  for (absl::StatusOr<RedisReplyPtr>& reply : replies) {
    RETURN_IF_ERROR(FunctionsMissing(reply));
    if (!reply.ok()) return reply.status();
    RETURN_IF_ERROR(client_.ReplyStatus(**reply));
    const redisReply& r = **reply;
    if (r.type != REDIS_REPLY_ARRAY || r.elements % 2 != 0) return Corrupt("index page");
    if (static_cast<int>(r.elements / 2) == query.limit) more = true;
    for (size_t i = 0; i + 1 < r.elements; i += 2) {
      if (!IsString(*r.element[i])) return Corrupt("index page");
      IndexedGame g{std::string(Str(*r.element[i])), {}};
      if (IsString(*r.element[i + 1])) {
        std::optional<IndexLabels> labels = UnpackLabels(Str(*r.element[i + 1]));
        if (!labels.has_value()) return Corrupt(absl::StrCat("index labels of game ", g.game_id));
        g.labels = *std::move(labels);
      } else {
        g.labels.status.clear();  // in a set but not in the hash: matches no filter below
      }
      looked_at.push_back(std::move(g));
    }
  }
  std::sort(looked_at.begin(), looked_at.end(),
            [](const IndexedGame& a, const IndexedGame& b) { return a.game_id < b.game_id; });
  // Every shard's games up to the cut are in hand: a shard with more has all of its page, and
  // its page's last id is at or past the cut. Past the cut, or past a full page, more follow.
  IndexPage page;
  const size_t take = std::min(looked_at.size(), static_cast<size_t>(query.limit));
  for (size_t i = 0; i < take; ++i) {
    if (!looked_at[i].labels.status.empty() && IndexMatches(looked_at[i].labels, query)) {
      page.games.push_back(looked_at[i]);
    }
  }
  if ((more || looked_at.size() > take) && take > 0) page.next_after = looked_at[take - 1].game_id;
  return page;
}

absl::StatusOr<AppendResult> RedisGameStore::Append(const AppendRequest& request) {
  RETURN_IF_ERROR(internal::ValidateAppendRequest(request));
  const ScriptArgs a = AppendArgs(request, Vouch(request));
  absl::StatusOr<AppendResult> result =
      AppendOutcome(request, Call(redis_scripts::kAppend, a.keys, a.args, Durability::kReplicated));
  Learn(request, result);
  return result;
}

void RedisGameStore::AppendAsync(AppendRequest request, AppendCallback done) {
  if (absl::Status st = internal::ValidateAppendRequest(request); !st.ok()) return done(st);
  ScriptArgs a = AppendArgs(request, Vouch(request));
  client_.CommandAsync(
      FcallCommand(redis_scripts::kAppend, std::move(a.keys), std::move(a.args)),
      [this, request = std::move(request),
       done = std::move(done)](absl::StatusOr<RedisReplyPtr> reply) {
        if (absl::Status missing = FunctionsMissing(reply); !missing.ok()) {
          Learn(request, missing);
          return done(missing);
        }
        absl::StatusOr<AppendResult> result = AppendOutcome(request, std::move(reply));
        Learn(request, result);
        done(std::move(result));
      },
      Durability::kReplicated);
}

absl::StatusOr<AppendResult> RedisGameStore::AppendOutcome(const AppendRequest& request,
                                                           absl::StatusOr<RedisReplyPtr> sent) {
  if (!sent.ok()) return sent.status();
  const RedisReplyPtr& reply = *sent;
  RETURN_IF_ERROR(client_.ReplyStatus(*reply));
  const std::string& id = request.game_id;
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 1 || !IsString(*reply->element[0])) {
    return Corrupt("append reply");
  }
  const absl::string_view outcome = Str(*reply->element[0]);
  std::int64_t numbers[2] = {0, 0};
  for (size_t i = 1; i < reply->elements && i <= 2; ++i) {
    if (!IsString(*reply->element[i]) ||
        !absl::SimpleAtoi(Str(*reply->element[i]), &numbers[i - 1])) {
      return Corrupt("append reply");
    }
  }
  if (outcome == "OK") {
    if (reply->elements != 4 || !IsString(*reply->element[3])) return Corrupt("append reply");
    return AppendResult{numbers[0], numbers[1], false, std::string(Str(*reply->element[3]))};
  }
  if (outcome == "REPLAY") return AppendResult{numbers[0], numbers[1], true};
  if (outcome == "REUSED") {
    return base::FailedPrecondition(
        kErrCommandIdReused, absl::StrCat("command id ", request.command_id, " of game ", id,
                                          " was used for another command (versions ", numbers[0],
                                          "..", numbers[1], ")"));
  }
  if (outcome == "EXISTS") {
    return base::Error(absl::StatusCode::kAlreadyExists, kErrGameExists,
                       absl::StrCat("game ", id, " exists (version ", numbers[0], ")"));
  }
  if (outcome == "CONFLICT") {
    return internal::VersionConflict(id, numbers[0], request.expected_version);
  }
  if (outcome == "TIP") return internal::TipConflict(id, numbers[0], request.expected_tip);
  if (outcome == "NOT_FOUND") return GameNotFound(id);
  if (outcome == "ARCHIVED") {
    return request.expected_version == 0 ? internal::ArchivedGameExists(id)
                                         : internal::GameArchived(id);
  }
  return Corrupt("append reply");
}

absl::StatusOr<ArchiveResult> RedisGameStore::Archive(const ArchiveRequest& request) {
  RETURN_IF_ERROR(internal::ValidateArchiveRequest(request));
  const std::string& id = request.game_id;
  {
    absl::MutexLock lock(&tails_mu_);
    tails_.erase(id);
  }
  std::vector<std::string> keys = GameKeys(id);
  std::vector<std::string> args = {id, absl::StrCat(request.expected_version), request.tombstone};
  if (request.index.has_value()) {
    AddIndexKeys(id, *request.index, keys);
    args.push_back(PackLabels(request.index->labels));
  }
  ASSIGN_OR_RETURN(RedisReplyPtr reply,
                   Call(redis_scripts::kArchive, keys, args, Durability::kReplicated));
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 1 || !IsString(*reply->element[0])) {
    return Corrupt("archive reply");
  }
  const absl::string_view outcome = Str(*reply->element[0]);
  if (outcome == "OK") return ArchiveResult{request.tombstone, false};
  if (outcome == "NOT_FOUND") return GameNotFound(id);
  if (reply->elements != 2 || !IsString(*reply->element[1])) return Corrupt("archive reply");
  const absl::string_view value = Str(*reply->element[1]);
  if (outcome == "REPLAY") return ArchiveResult{std::string(value), true};
  std::int64_t version = 0;
  if (outcome == "CONFLICT" && absl::SimpleAtoi(value, &version)) {
    return internal::VersionConflict(id, version, request.expected_version);
  }
  return Corrupt("archive reply");
}

absl::StatusOr<bool> RedisGameStore::BackfillIndex(absl::string_view game_id,
                                                   const IndexLabels& labels) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  const IndexUpdate update{.labels = labels};
  RETURN_IF_ERROR(internal::ValidateIndexUpdate(update));
  std::vector<std::string> keys = {Key("game", game_id), Key("archived", game_id)};
  AddIndexKeys(game_id, update, keys);
  ASSIGN_OR_RETURN(RedisReplyPtr reply,
                   Call(redis_scripts::kBackfill, keys, {std::string(game_id), PackLabels(labels)},
                        Durability::kReplicated));
  if (reply->type != REDIS_REPLY_INTEGER) return Corrupt("index backfill reply");
  if (reply->integer < 0) return GameNotFound(game_id);
  return reply->integer == 1;
}

absl::StatusOr<std::string> RedisGameStore::ReadTombstone(absl::string_view game_id) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  ASSIGN_OR_RETURN(RedisReplyPtr reply, Run(client_, {"HGET", Key("archived", game_id), "t"}));
  if (reply->type == REDIS_REPLY_NIL) {
    return base::NotFound(kErrGameNotFound, absl::StrCat("game ", game_id, " is not archived"));
  }
  if (!IsString(*reply)) return Corrupt(absl::StrCat("tombstone of game ", game_id));
  return std::string(Str(*reply));
}

absl::StatusOr<std::optional<AppendResult>> RedisGameStore::LookupCommand(
    absl::string_view game_id, absl::string_view command_id) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  ASSIGN_OR_RETURN(RedisReplyPtr reply,
                   CallReadOnly(redis_scripts::kLookup,
                                {Key("game", game_id), Key("log", game_id), Key("cmd", game_id)},
                                {std::string(command_id)}));
  if (reply->type != REDIS_REPLY_ARRAY) return Corrupt("command record");
  if (reply->elements == 0) return std::nullopt;
  AppendResult result{0, 0, true};
  if (reply->elements != 2 || !IsString(*reply->element[0]) || !IsString(*reply->element[1]) ||
      !absl::SimpleAtoi(Str(*reply->element[0]), &result.first_version) ||
      !absl::SimpleAtoi(Str(*reply->element[1]), &result.version)) {
    return Corrupt("command record");
  }
  return result;
}

absl::StatusOr<GameSnapshot> RedisGameStore::ReadSnapshot(absl::string_view game_id) {
  ASSIGN_OR_RETURN(LatestState latest, ReadLatest(game_id));
  return std::move(latest.snapshot);
}

absl::StatusOr<LatestState> RedisGameStore::ReadLatest(absl::string_view game_id) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  // Plain reads, no function: a Redis whose library is missing still answers them.
  ASSIGN_OR_RETURN(RedisReplyPtr stored,
                   Run(client_, {"HMGET", Key("game", game_id), "s", "sv", "v", "t", "u"}));
  if (stored->type != REDIS_REPLY_ARRAY || stored->elements != 5) return Corrupt("HMGET reply");
  const redisReply& s = *stored->element[0];
  if (s.type == REDIS_REPLY_NIL) return Missing(game_id);
  LatestState out;
  if (!IsString(s) || !out.snapshot.ParseFromArray(s.str, static_cast<int>(s.len))) {
    return Corrupt(absl::StrCat("snapshot of game ", game_id));
  }
  // arbiter_v2 wrote the snapshot with every append (no sv: it is at v) and kept the tip in t.
  const bool v3 = stored->element[1]->type != REDIS_REPLY_NIL;
  const redisReply& at_reply = *stored->element[v3 ? 1 : 2];
  std::int64_t at = 0;
  if (!IsString(at_reply) || !absl::SimpleAtoi(Str(at_reply), &at)) {
    return Corrupt(absl::StrCat("snapshot version of game ", game_id));
  }
  const redisReply& old_tip = *stored->element[3];
  std::string tip = IsString(old_tip) ? std::string(Str(old_tip)) : "";
  ASSIGN_OR_RETURN(RedisReplyPtr tail,
                   Run(client_, {"XRANGE", Key("log", game_id), absl::StrCat(at + 1, "-0"), "+"}));
  // The callers' scopes as read with the snapshot: they hold those of the entries unless an append
  // between the two reads added one (ParseEntries then reads them again).
  const redisReply& scopes = *stored->element[4];
  ASSIGN_OR_RETURN(out.tail, ParseEntries(game_id, *tail, at + 1, kHead,
                                          IsString(scopes) ? Str(scopes) : absl::string_view()));
  // The tip: the last record's digest (the function's, redis_scripts.h).
  RedisReplyPtr last;
  const redisReply* entries = tail.get();
  if (tail->type == REDIS_REPLY_ARRAY && tail->elements == 0 && v3) {
    ASSIGN_OR_RETURN(last,
                     Run(client_, {"XREVRANGE", Key("log", game_id), "+", "-", "COUNT", "1"}));
    entries = last.get();
  }
  if (entries->type == REDIS_REPLY_ARRAY && entries->elements > 0) {
    const redisReply& entry = *entries->element[entries->elements - 1];
    if (entry.type != REDIS_REPLY_ARRAY || entry.elements != 2 ||
        entry.element[1]->type != REDIS_REPLY_ARRAY || entry.element[1]->elements != 2) {
      return Corrupt("log entry");
    }
    if (Str(*entry.element[1]->element[0]) == "r")
      tip = Sha1Hex(Str(*entry.element[1]->element[1]));
  }
  out.snapshot.set_tip(std::move(tip));
  return out;
}

absl::Status RedisGameStore::CheckExists(absl::string_view game_id) {
  ASSIGN_OR_RETURN(RedisReplyPtr reply, Run(client_, {"EXISTS", Key("game", game_id)}));
  if (reply->type != REDIS_REPLY_INTEGER) return Corrupt("EXISTS reply");
  return reply->integer == 0 ? Missing(game_id) : absl::OkStatus();
}

absl::Status RedisGameStore::Missing(absl::string_view game_id) {
  ASSIGN_OR_RETURN(RedisReplyPtr reply, Run(client_, {"EXISTS", Key("archived", game_id)}));
  if (reply->type != REDIS_REPLY_INTEGER) return Corrupt("EXISTS reply");
  return reply->integer == 0 ? GameNotFound(game_id) : internal::GameArchived(game_id);
}

absl::StatusOr<std::vector<GameEvent>> RedisGameStore::ParseEntry(const redisReply& id,
                                                                  const redisReply& field,
                                                                  const redisReply& value,
                                                                  absl::string_view scopes) {
  std::int64_t last = 0, n = 0;
  std::pair<absl::string_view, absl::string_view> parts =
      absl::StrSplit(IsString(id) ? Str(id) : absl::string_view(), absl::MaxSplits('-', 1));
  if (!IsString(field) || !IsString(value) || !absl::SimpleAtoi(parts.first, &last) ||
      !absl::SimpleAtoi(parts.second, &n) || n < 0 || n > kMaxEventsPerAppend) {
    return Corrupt("log entry");
  }
  if (Str(field) == "r") {
    absl::StatusOr<std::vector<GameEvent>> events = internal::DecodeRecord(
        Str(value), last, static_cast<int>(n), scopes, options_.event_codec.get());
    if (!events.ok() && !absl::IsNotFound(events.status())) {
      return Corrupt(absl::StrCat("record ", Str(id), ": ", events.status().message()));
    }
    return events;
  }
  // arbiter_v2: one event, serialized.
  std::vector<GameEvent> events(1);
  if (Str(field) != "e" || !events[0].ParseFromArray(value.str, static_cast<int>(value.len))) {
    return Corrupt("event");
  }
  return events;
}

absl::StatusOr<std::vector<GameEvent>> RedisGameStore::ParseEntries(absl::string_view game_id,
                                                                    const redisReply& entries,
                                                                    std::int64_t from_version,
                                                                    std::int64_t to_version,
                                                                    absl::string_view scopes) {
  if (entries.type != REDIS_REPLY_ARRAY) return Corrupt("stream entries");
  for (size_t i = 0; i < entries.elements; ++i) {
    const redisReply& entry = *entries.element[i];
    // [id, [field, value]]; the functions write exactly one field.
    if (entry.type != REDIS_REPLY_ARRAY || entry.elements != 2 ||
        entry.element[1]->type != REDIS_REPLY_ARRAY || entry.element[1]->elements != 2) {
      return Corrupt("event");
    }
  }
  auto parse_all = [&](absl::string_view list) -> absl::StatusOr<std::vector<GameEvent>> {
    std::vector<GameEvent> out;
    for (size_t i = 0; i < entries.elements; ++i) {
      const redisReply& entry = *entries.element[i];
      ASSIGN_OR_RETURN(std::vector<GameEvent> events,
                       ParseEntry(*entry.element[0], *entry.element[1]->element[0],
                                  *entry.element[1]->element[1], list));
      for (GameEvent& e : events) {
        // An append's record holds all of its events: the range may begin or end inside one.
        if (e.version() >= from_version && e.version() <= to_version) out.push_back(std::move(e));
      }
    }
    return out;
  };
  absl::StatusOr<std::vector<GameEvent>> out = parse_all(scopes);
  if (!absl::IsNotFound(out.status())) return out;
  // A record names a place beyond the caller's list (or it read none). The game's list only
  // grows, and a scope or name joins it in the append that first names it: read after the
  // entries, it holds all they name. None: the game was archived meanwhile.
  ASSIGN_OR_RETURN(RedisReplyPtr list, Run(client_, {"HGET", Key("game", game_id), "u"}));
  if (!IsString(*list)) return Missing(game_id);
  out = parse_all(Str(*list));
  if (absl::IsNotFound(out.status())) return Corrupt(out.status().message());
  return out;
}

std::vector<std::string> RedisGameStore::RangeCommand(absl::string_view game_id,
                                                      std::int64_t from_version,
                                                      std::int64_t to_version) const {
  // Entry IDs are "<last version>-<events>" ("<version>-0" for arbiter_v2's): the entries from
  // from_version's on end at or after it, and the one holding to_version ends at most
  // kMaxEventsPerAppend - 1 versions later. Each entry ends at a version of its own, so the range
  // takes at most to_version - from_version + 1 of them (COUNT: the read stops at the one holding
  // to_version, not kMaxEventsPerAppend - 1 versions later).
  if (to_version >= kHead - kMaxEventsPerAppend) {
    return {"XRANGE", Key("log", game_id), absl::StrCat(from_version, "-0"), "+"};
  }
  return {"XRANGE",
          Key("log", game_id),
          absl::StrCat(from_version, "-0"),
          absl::StrCat(to_version + kMaxEventsPerAppend - 1),
          "COUNT",
          absl::StrCat(std::max<std::int64_t>(1, to_version - from_version + 1))};
}

absl::Status RedisGameStore::ValidateRange(absl::string_view game_id, std::int64_t from_version) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  if (from_version < 1) return base::InvalidArgument(kErrBadArgument, "from_version must be >= 1");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<GameEvent>> RedisGameStore::ReadEvents(absl::string_view game_id,
                                                                  std::int64_t from_version,
                                                                  std::int64_t to_version) {
  RETURN_IF_ERROR(ValidateRange(game_id, from_version));
  ASSIGN_OR_RETURN(RedisReplyPtr reply,
                   Run(client_, RangeCommand(game_id, from_version, to_version)));
  if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 0) {
    RETURN_IF_ERROR(CheckExists(game_id));
  }
  return ParseEntries(game_id, *reply, from_version, to_version);
}

std::vector<absl::StatusOr<std::vector<GameEvent>>> RedisGameStore::ReadEventsOfGames(
    const std::vector<EventRange>& ranges) {
  std::vector<absl::StatusOr<std::vector<GameEvent>>> out(ranges.size(), std::vector<GameEvent>{});
  std::vector<std::vector<std::string>> commands;
  commands.reserve(2 * ranges.size());
  std::vector<size_t> sent;  // the place in `ranges` of each pair of commands
  for (size_t i = 0; i < ranges.size(); ++i) {
    const EventRange& r = ranges[i];
    if (absl::Status valid = ValidateRange(r.game_id, r.from_version); !valid.ok()) {
      out[i] = valid;
      continue;
    }
    commands.push_back(RangeCommand(r.game_id, r.from_version, r.to_version));
    // The game's callers' scopes, read after its entries (so they hold every scope the entries
    // name: ParseEntries): a record with a scoped command id needs them, and asking here saves a
    // round trip per game later.
    commands.push_back({"HGET", Key("game", r.game_id), "u"});
    sent.push_back(i);
  }
  std::vector<absl::StatusOr<RedisReplyPtr>> replies = client_.CommandBatch(commands);
  for (size_t k = 0; k < sent.size(); ++k) {
    const EventRange& r = ranges[sent[k]];
    absl::StatusOr<RedisReplyPtr>& entries = replies[2 * k];
    const absl::StatusOr<RedisReplyPtr>& scopes = replies[2 * k + 1];
    if (entries.ok()) {
      if (absl::Status refused = client_.ReplyStatus(**entries); !refused.ok()) entries = refused;
    }
    if (!entries.ok()) {
      out[sent[k]] = entries.status();
    } else if ((*entries)->type == REDIS_REPLY_ARRAY && (*entries)->elements == 0) {
      // Nothing in the range: whether the game exists (or was archived) is the one-game read's
      // to tell, a round trip only on this rare path.
      out[sent[k]] = ReadEvents(r.game_id, r.from_version, r.to_version);
    } else {
      const bool known = scopes.ok() && IsString(**scopes);
      out[sent[k]] = ParseEntries(r.game_id, **entries, r.from_version, r.to_version,
                                  known ? Str(**scopes) : absl::string_view());
    }
  }
  return out;
}

absl::StatusOr<std::vector<GameEvent>> RedisGameStore::WaitForEvents(absl::string_view game_id,
                                                                     std::int64_t after_version,
                                                                     absl::Duration timeout,
                                                                     int max_events) {
  RETURN_IF_ERROR(internal::ValidateWait(game_id, after_version, max_events));
  // XREAD on a missing key would just block: say NOT_FOUND at once, as the memory store does.
  RETURN_IF_ERROR(CheckExists(game_id));
  return internal::WaitAsWatchOfOne(*this, game_id, after_version, timeout, max_events);
}

absl::StatusOr<std::vector<GameEvents>> RedisGameStore::WaitForAnyEvents(
    const std::vector<WatchPosition>& games, absl::Duration timeout, int max_events) {
  RETURN_IF_ERROR(internal::ValidateWatch(games, options_.num_deadline_shards, max_events));
  timeout = std::min(timeout, kMaxWait);
  std::vector<std::string> args = {"XREAD", "COUNT", absl::StrCat(max_events)};
  absl::Duration block = absl::ZeroDuration();
  if (timeout > absl::ZeroDuration()) {
    // BLOCK 0 would mean "forever": at least 1 ms.
    const std::int64_t ms = std::max<std::int64_t>(1, absl::ToInt64Milliseconds(timeout));
    block = absl::Milliseconds(ms);
    args.insert(args.end(), {"BLOCK", absl::StrCat(ms)});
  }
  // One XREAD over every stream: they share the shard's hash tag, so one slot on Cluster, and the
  // client sends it (keyed by its first stream) to the master of that slot.
  args.push_back("STREAMS");
  absl::flat_hash_map<std::string, std::pair<const std::string*, size_t>> game_of_key;
  for (size_t i = 0; i < games.size(); ++i) {
    args.push_back(Key("log", games[i].game_id));
    game_of_key[args.back()] = {&games[i].game_id, i};
  }
  // After every entry ending at or before the position (an entry's sequence is at most
  // kMaxEventsPerAppend).
  std::vector<std::int64_t> after;
  for (const WatchPosition& g : games) {
    args.push_back(absl::StrCat(g.after_version, "-", kMaxEventsPerAppend));
    after.push_back(g.after_version);
  }
  ASSIGN_OR_RETURN(RedisReplyPtr reply, Run(watch_client_, args, block));
  std::vector<GameEvents> out;
  if (reply->type == REDIS_REPLY_NIL) return out;
  if (reply->type != REDIS_REPLY_ARRAY) return Corrupt("XREAD reply");
  for (size_t i = 0; i < reply->elements; ++i) {
    // [stream key, entries] per stream with news.
    const redisReply& stream = *reply->element[i];
    if (stream.type != REDIS_REPLY_ARRAY || stream.elements != 2 || !IsString(*stream.element[0])) {
      return Corrupt("XREAD reply");
    }
    auto game = game_of_key.find(std::string(Str(*stream.element[0])));
    if (game == game_of_key.end()) return Corrupt("XREAD reply: a stream not asked for");
    ASSIGN_OR_RETURN(std::vector<GameEvent> events,
                     ParseEntries(*game->second.first, *stream.element[1],
                                  after[game->second.second] + 1, kHead));
    if (events.size() > static_cast<size_t>(max_events)) events.resize(max_events);
    if (events.empty()) continue;
    out.push_back({*game->second.first, std::move(events)});
  }
  return out;
}

absl::StatusOr<Deadline> RedisGameStore::ParseDeadline(absl::string_view game_id,
                                                       absl::string_view info) {
  std::vector<absl::string_view> parts = absl::StrSplit(info, absl::MaxSplits('|', 4));
  Deadline d;
  d.game_id = std::string(game_id);
  if (parts.size() != 5 || !absl::SimpleAtoi(parts[0], &d.deadline_ms) ||
      !absl::SimpleAtoi(parts[1], &d.set_at_version) || !absl::SimpleAtoi(parts[2], &d.claims) ||
      !absl::SimpleAtoi(parts[3], &d.lease_until_ms)) {
    return Corrupt(absl::StrCat("deadline entry of game ", game_id));
  }
  d.owner = std::string(parts[4]);
  return d;
}

absl::StatusOr<std::optional<Deadline>> RedisGameStore::GetDeadline(absl::string_view game_id) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  const int shard = DeadlineShard(game_id, options_.num_deadline_shards);
  ASSIGN_OR_RETURN(RedisReplyPtr reply,
                   Run(client_, {"HGET", ShardKey("deadline-info", shard), std::string(game_id)}));
  if (reply->type == REDIS_REPLY_NIL) return std::nullopt;
  if (!IsString(*reply)) return Corrupt("deadline entry");
  return ParseDeadline(game_id, Str(*reply));
}

absl::StatusOr<std::vector<Deadline>> RedisGameStore::ClaimDueDeadlines(
    int shard, std::int64_t now_ms, std::int64_t lease_ms, int max, absl::string_view owner) {
  RETURN_IF_ERROR(
      internal::ValidateClaim(shard, options_.num_deadline_shards, lease_ms, max, owner));
  // The lease's end is computed here: Lua numbers are doubles and print large ones as 1.7e+12.
  ASSIGN_OR_RETURN(
      RedisReplyPtr reply,
      Call(redis_scripts::kClaim, {ShardKey("deadlines", shard), ShardKey("deadline-info", shard)},
           {absl::StrCat(now_ms), absl::StrCat(now_ms + lease_ms), absl::StrCat(max),
            std::string(owner)}));
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements % 2 != 0) return Corrupt("claim reply");
  std::vector<Deadline> out;
  for (size_t i = 0; i < reply->elements; i += 2) {
    if (!IsString(*reply->element[i]) || !IsString(*reply->element[i + 1])) {
      return Corrupt("claim reply");
    }
    ASSIGN_OR_RETURN(Deadline d,
                     ParseDeadline(Str(*reply->element[i]), Str(*reply->element[i + 1])));
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> RedisGameStore::PeekCommand(int shard, std::int64_t until_ms,
                                                     int max) const {
  return {"ZRANGEBYSCORE",
          ShardKey("deadlines", shard),
          "-inf",
          absl::StrCat(until_ms),
          "WITHSCORES",
          "LIMIT",
          "0",
          absl::StrCat(max)};
}

absl::StatusOr<std::vector<DueEntry>> RedisGameStore::PeekDeadlines(int shard,
                                                                    std::int64_t until_ms,
                                                                    int max) {
  RETURN_IF_ERROR(internal::ValidatePeek(shard, options_.num_deadline_shards, max));
  ASSIGN_OR_RETURN(RedisReplyPtr reply, Run(client_, PeekCommand(shard, until_ms, max)));
  return PeekOutcome(*reply);
}

std::vector<absl::StatusOr<std::vector<DueEntry>>> RedisGameStore::PeekDeadlinesOfShards(
    const std::vector<int>& shards, std::int64_t until_ms, int max) {
  std::vector<absl::StatusOr<std::vector<DueEntry>>> out(shards.size(), std::vector<DueEntry>{});
  std::vector<std::vector<std::string>> commands;
  std::vector<size_t> sent;  // the place in `shards` of each command
  for (size_t i = 0; i < shards.size(); ++i) {
    if (absl::Status valid = internal::ValidatePeek(shards[i], options_.num_deadline_shards, max);
        !valid.ok()) {
      out[i] = valid;
      continue;
    }
    commands.push_back(PeekCommand(shards[i], until_ms, max));
    sent.push_back(i);
  }
  std::vector<absl::StatusOr<RedisReplyPtr>> replies = client_.CommandBatch(commands);
  for (size_t k = 0; k < sent.size(); ++k) {
    if (!replies[k].ok()) {
      out[sent[k]] = replies[k].status();
    } else if (absl::Status refused = client_.ReplyStatus(**replies[k]); !refused.ok()) {
      out[sent[k]] = refused;
    } else {
      out[sent[k]] = PeekOutcome(**replies[k]);
    }
  }
  return out;
}

absl::StatusOr<std::vector<DueEntry>> RedisGameStore::PeekOutcome(const redisReply& reply) const {
  if (reply.type != REDIS_REPLY_ARRAY || reply.elements % 2 != 0) return Corrupt("peek reply");
  std::vector<DueEntry> out;
  out.reserve(reply.elements / 2);
  for (size_t i = 0; i < reply.elements; i += 2) {
    DueEntry e;
    if (!IsString(*reply.element[i]) || !IsString(*reply.element[i + 1]) ||
        !absl::SimpleAtoi(Str(*reply.element[i + 1]), &e.due_ms)) {
      return Corrupt("peek reply");
    }
    e.game_id = std::string(Str(*reply.element[i]));
    out.push_back(std::move(e));
  }
  return out;
}

absl::StatusOr<std::int64_t> RedisGameStore::CountDeadlines(int shard) {
  RETURN_IF_ERROR(internal::ValidateShard(shard, options_.num_deadline_shards));
  ASSIGN_OR_RETURN(RedisReplyPtr reply, Run(client_, {"ZCARD", ShardKey("deadlines", shard)}));
  if (reply->type != REDIS_REPLY_INTEGER) return Corrupt("ZCARD reply");
  return static_cast<std::int64_t>(reply->integer);
}

absl::StatusOr<bool> RedisGameStore::ReleaseDeadline(absl::string_view game_id,
                                                     absl::string_view owner,
                                                     std::int64_t claimable_at_ms) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  RETURN_IF_ERROR(internal::ValidateOwner(owner));
  const int shard = DeadlineShard(game_id, options_.num_deadline_shards);
  ASSIGN_OR_RETURN(RedisReplyPtr reply,
                   Call(redis_scripts::kRelease,
                        {ShardKey("deadlines", shard), ShardKey("deadline-info", shard)},
                        {std::string(game_id), std::string(owner), absl::StrCat(claimable_at_ms)}));
  if (reply->type != REDIS_REPLY_INTEGER) return Corrupt("release reply");
  return reply->integer == 1;
}

absl::StatusOr<std::pair<std::int64_t, std::string>> RedisGameStore::MasterTime() {
  const std::uint64_t switches = client_.master_switches();
  ASSIGN_OR_RETURN(RedisReplyPtr reply, Run(client_, {"TIME"}));
  std::int64_t seconds = 0;
  std::int64_t micros = 0;
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 || !IsString(*reply->element[0]) ||
      !IsString(*reply->element[1]) || !absl::SimpleAtoi(Str(*reply->element[0]), &seconds) ||
      !absl::SimpleAtoi(Str(*reply->element[1]), &micros)) {
    return Corrupt("TIME reply");
  }
  std::string master = client_.address();
  if (client_.master_switches() != switches || absl::StrContains(master, "@")) master = "";
  return std::make_pair(seconds * 1000 + micros / 1000, std::move(master));
}

absl::StatusOr<std::int64_t> RedisGameStore::RecordedSkew(const std::string& master,
                                                          std::int64_t skew_ms) {
  const std::string key = absl::StrCat(options_.key_prefix, "time-skew");
  RETURN_IF_ERROR(Run(client_, {"HSETNX", key, master, absl::StrCat(skew_ms)}).status());
  ASSIGN_OR_RETURN(RedisReplyPtr reply, Run(client_, {"HGET", key, master}));
  std::int64_t recorded = 0;
  if (!IsString(*reply) || !absl::SimpleAtoi(Str(*reply), &recorded)) {
    return Corrupt("recorded time skew");
  }
  return recorded;
}

// Deadlines and event times are on the master's clock, and a failover changes the master: a new
// master whose clock is 30 s ahead would make every flag fall 30 s early, one 30 s behind would
// hold time still (StoreTime never goes back) for 30 s. So the time base is continuous instead:
// the first replica to read a master's TIME records that master's skew, its TIME minus the time
// base as the replica estimates it then (its last reading plus the time elapsed since, by its
// monotonic clock: off by about one round trip), and every replica, also one started later,
// reads the time base as the master's TIME minus the recorded skew. The first master's skew is
// recorded as 0 (nothing to be continuous with). Without Sentinel there is one master: its TIME.
// On Redis Cluster the time base is the TIME of one master, the one serving slot 0 (TIME has no
// key: the client sends it there), continued across its failovers as above. The other masters'
// clocks never matter: deadlines, claims and event times all take `now` from this time base
// (ClaimDueDeadlines gets it as an argument; the functions read no clock), so a skew between
// masters moves no flag.
absl::StatusOr<std::int64_t> RedisGameStore::NowMs() {
  if (!client_.follows_master()) {
    ASSIGN_OR_RETURN(auto time, MasterTime());
    return time.first;
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    ASSIGN_OR_RETURN(auto time, MasterTime());
    const auto& [master_ms, master] = time;
    if (master.empty()) continue;  // which master answered is not sure: ask again
    absl::MutexLock lock(&time_mu_);
    const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
    if (master != time_master_) {
      std::int64_t skew = 0;
      if (last_reading_.has_value()) {
        const std::int64_t estimate =
            last_reading_->first +
            std::chrono::duration_cast<std::chrono::milliseconds>(now - last_reading_->second)
                .count();
        skew = master_ms - estimate;
      }
      ASSIGN_OR_RETURN(skew_ms_, RecordedSkew(master, skew));
      time_master_ = master;
    }
    const std::int64_t base = master_ms - skew_ms_;
    last_reading_ = std::make_pair(base, now);
    return base;
  }
  return client_.Unavailable("the master changed while its time was read");
}

}  // namespace store
