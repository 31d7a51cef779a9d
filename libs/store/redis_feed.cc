// The Redis store's feed (game_feed.h; the key layout in redis_scripts.h): read with XREAD, on
// one Redis over every shard at once, on a cluster shard by shard through the masters' pipelines.
#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/store/internal/validation.h"
#include "libs/store/redis_game_store.h"
#include "libs/store/redis_scripts.h"

namespace store {
namespace {

absl::string_view Text(const redisReply& r) { return absl::string_view(r.str, r.len); }

bool IsText(const redisReply& r) {
  return r.type == REDIS_REPLY_STRING || r.type == REDIS_REPLY_STATUS;
}

// A feed entry's ID "1-<sequence>".
bool ParseFeedId(absl::string_view id, std::int64_t* sequence) {
  return absl::ConsumePrefix(&id, "1-") && absl::SimpleAtoi(id, sequence) && *sequence >= 0;
}

// XREAD's ID for "the entries from sequence `next` on" (XREAD returns those after the ID).
std::string AfterId(std::int64_t next) {
  return next == 0 ? std::string("0-0") : absl::StrCat("1-", next - 1);
}

}  // namespace

std::vector<absl::StatusOr<RedisReplyPtr>> RedisGameStore::RunAll(
    RedisClient& client, std::vector<std::vector<std::string>> commands) {
  std::vector<absl::StatusOr<RedisReplyPtr>> replies(commands.size());
  absl::BlockingCounter left(static_cast<int>(commands.size()));
  for (size_t i = 0; i < commands.size(); ++i) {
    client.CommandAsync(std::move(commands[i]),
                        [&replies, &left, &client, i](absl::StatusOr<RedisReplyPtr> reply) {
                          if (reply.ok()) {
                            if (absl::Status st = client.ReplyStatus(**reply); !st.ok()) {
                              reply = st;
                            }
                          }
                          replies[i] = std::move(reply);
                          left.DecrementCount();
                        });
  }
  left.Wait();
  return replies;
}

absl::Status RedisGameStore::ParseFeed(int shard, std::int64_t next, const redisReply& entries,
                                       std::vector<FeedEntry>* out) {
  if (entries.type != REDIS_REPLY_ARRAY) return Corrupt("feed entries");
  for (size_t i = 0; i < entries.elements; ++i) {
    const redisReply& entry = *entries.element[i];
    if (entry.type != REDIS_REPLY_ARRAY || entry.elements != 2 || !IsText(*entry.element[0]) ||
        entry.element[1]->type != REDIS_REPLY_ARRAY) {
      return Corrupt("feed entry");
    }
    FeedEntry e{.shard = shard};
    if (!ParseFeedId(Text(*entry.element[0]), &e.sequence)) return Corrupt("feed entry ID");
    if (i == 0 && e.sequence != next) {
      // Entries between the position and the first one kept were trimmed, or lost with a restart
      // (the numbering jumped past them: redis_functions.lua).
      return internal::FeedPositionExpired(shard, next, e.sequence);
    }
    // A jump after the first: the read ends before it, and the next read, from the entry it
    // expects, is refused as above.
    if (i > 0 && e.sequence != next) break;
    next = e.sequence + 1;
    const redisReply& fields = *entry.element[1];
    for (size_t f = 0; f < fields.elements; ++f) {
      if (!IsText(*fields.element[f])) return Corrupt("feed entry");
    }
    // One field, the game id, valued "<last version>[-<events>]" (the events default to 1); or,
    // as entries written before it, two: g (the game id) and v ("<last version>-<events>").
    absl::string_view versions;
    if (fields.elements == 2) {
      e.game_id = std::string(Text(*fields.element[0]));
      versions = Text(*fields.element[1]);
    } else {
      for (size_t f = 0; f + 1 < fields.elements; f += 2) {
        if (Text(*fields.element[f]) == "g") e.game_id = std::string(Text(*fields.element[f + 1]));
        if (Text(*fields.element[f]) == "v") versions = Text(*fields.element[f + 1]);
      }
    }
    const size_t dash = versions.find('-');
    std::int64_t n = 1;
    if (e.game_id.empty() || !absl::SimpleAtoi(versions.substr(0, dash), &e.version) ||
        (dash != absl::string_view::npos && !absl::SimpleAtoi(versions.substr(dash + 1), &n)) ||
        n < 1 || n > e.version) {
      return Corrupt("feed entry");
    }
    e.first_version = e.version - n + 1;
    out->push_back(std::move(e));
  }
  return absl::OkStatus();
}

absl::StatusOr<FeedPosition> RedisGameStore::FeedHead() {
  const int shards = options_.num_deadline_shards;
  std::vector<std::vector<std::string>> commands;
  commands.reserve(static_cast<size_t>(shards));
  // The library says where each shard's next entry goes (it may jump: kFeedHead); one loaded
  // before it had the function has no jumps, and the last entry says it.
  for (int s = 0; s < shards; ++s) {
    commands.push_back({"FCALL_RO", redis_scripts::kFeedHead, "2", ShardKey("feed", s),
                        ShardKey("deadline-info", s)});
  }
  std::vector<absl::StatusOr<RedisReplyPtr>> replies = RunAll(client_, std::move(commands));
  FeedPosition head;
  head.next.reserve(static_cast<size_t>(shards));
  if (!replies.empty() && NoSuchFunction(replies[0].status())) {
    return FeedHeadOfLastEntries();
  }
  for (int s = 0; s < shards; ++s) {
    if (!replies[s].ok()) return replies[s].status();
    const redisReply& r = **replies[s];
    std::int64_t next = 0;
    if (!IsText(r) || !absl::SimpleAtoi(Text(r), &next) || next < 0) return Corrupt("feed head");
    head.next.push_back(next);
  }
  return head;
}

absl::StatusOr<FeedPosition> RedisGameStore::FeedHeadOfLastEntries() {
  const int shards = options_.num_deadline_shards;
  std::vector<std::vector<std::string>> commands;
  commands.reserve(static_cast<size_t>(shards));
  for (int s = 0; s < shards; ++s) {
    commands.push_back({"XREVRANGE", ShardKey("feed", s), "+", "-", "COUNT", "1"});
  }
  std::vector<absl::StatusOr<RedisReplyPtr>> replies = RunAll(client_, std::move(commands));
  FeedPosition head;
  head.next.reserve(static_cast<size_t>(shards));
  for (int s = 0; s < shards; ++s) {
    if (!replies[s].ok()) return replies[s].status();
    const redisReply& r = **replies[s];
    if (r.type != REDIS_REPLY_ARRAY) return Corrupt("feed head");
    std::int64_t next = 0;
    if (r.elements > 0) {
      const redisReply& last = *r.element[0];
      std::int64_t seq = 0;
      if (last.type != REDIS_REPLY_ARRAY || last.elements < 1 || !IsText(*last.element[0]) ||
          !ParseFeedId(Text(*last.element[0]), &seq)) {
        return Corrupt("feed head");
      }
      next = seq + 1;
    }
    head.next.push_back(next);
  }
  return head;
}

absl::StatusOr<std::vector<FeedEntry>> RedisGameStore::ReadFeed(const FeedPosition& from,
                                                                int max_per_shard,
                                                                absl::Duration wait) {
  const int shards = options_.num_deadline_shards;
  RETURN_IF_ERROR(internal::ValidateFeedRead(from, shards, max_per_shard));
  wait = std::min(std::max(wait, absl::ZeroDuration()), kMaxWait);
  std::vector<FeedEntry> out;
  if (!client_.uses_cluster()) {
    // One Redis: one XREAD over every shard's feed, blocking until any has news.
    std::vector<std::string> args = {"XREAD", "COUNT", absl::StrCat(max_per_shard)};
    absl::Duration block = absl::ZeroDuration();
    if (wait > absl::ZeroDuration()) {
      const std::int64_t ms = std::max<std::int64_t>(1, absl::ToInt64Milliseconds(wait));
      block = absl::Milliseconds(ms);
      args.insert(args.end(), {"BLOCK", absl::StrCat(ms)});
    }
    args.push_back("STREAMS");
    absl::flat_hash_map<std::string, int> shard_of_key;
    for (int s = 0; s < shards; ++s) {
      args.push_back(ShardKey("feed", s));
      shard_of_key[args.back()] = s;
    }
    for (int s = 0; s < shards; ++s) args.push_back(AfterId(from.next[s]));
    ASSIGN_OR_RETURN(RedisReplyPtr reply, Run(watch_client_, args, block));
    if (reply->type == REDIS_REPLY_NIL) return out;
    if (reply->type != REDIS_REPLY_ARRAY) return Corrupt("XREAD reply");
    for (size_t i = 0; i < reply->elements; ++i) {
      const redisReply& stream = *reply->element[i];
      if (stream.type != REDIS_REPLY_ARRAY || stream.elements != 2 || !IsText(*stream.element[0])) {
        return Corrupt("XREAD reply");
      }
      auto shard = shard_of_key.find(std::string(Text(*stream.element[0])));
      if (shard == shard_of_key.end()) return Corrupt("XREAD reply: a stream not asked for");
      RETURN_IF_ERROR(ParseFeed(shard->second, from.next[shard->second], *stream.element[1], &out));
    }
    return out;
  }
  // A cluster: the feeds lie in as many slots as shards, and XREAD takes keys of one slot. One
  // XREAD per shard, all sent at once (each master's share in its pipeline), polled while none
  // has news: a blocking read per shard would hold a connection per shard.
  const absl::Time deadline = absl::Now() + wait;
  absl::Duration pause = absl::Milliseconds(2);
  while (true) {
    std::vector<std::vector<std::string>> commands;
    commands.reserve(static_cast<size_t>(shards));
    for (int s = 0; s < shards; ++s) {
      commands.push_back({"XREAD", "COUNT", absl::StrCat(max_per_shard), "STREAMS",
                          ShardKey("feed", s), AfterId(from.next[s])});
    }
    std::vector<absl::StatusOr<RedisReplyPtr>> replies = RunAll(client_, std::move(commands));
    for (int s = 0; s < shards; ++s) {
      if (!replies[s].ok()) return replies[s].status();
      const redisReply& r = **replies[s];
      if (r.type == REDIS_REPLY_NIL) continue;
      if (r.type != REDIS_REPLY_ARRAY || r.elements != 1 ||
          r.element[0]->type != REDIS_REPLY_ARRAY || r.element[0]->elements != 2) {
        return Corrupt("XREAD reply");
      }
      RETURN_IF_ERROR(ParseFeed(s, from.next[s], *r.element[0]->element[1], &out));
    }
    const absl::Time now = absl::Now();
    if (!out.empty() || now >= deadline) return out;
    absl::SleepFor(std::min(pause, deadline - now));
    pause = std::min(pause * 2, absl::Milliseconds(50));
  }
}

}  // namespace store
