#include "libs/store/game_store.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "libs/base/error.h"

namespace store {
namespace {

absl::Status Bad(absl::string_view message) {
  return base::InvalidArgument(kErrBadArgument, message);
}

bool IsGameIdChar(char c) {
  return absl::ascii_isalnum(c) || c == '.' || c == '_' || c == '~' || c == ':' || c == '-';
}

}  // namespace

int DeadlineShard(absl::string_view game_id, int num_shards) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : game_id) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return static_cast<int>(h % static_cast<std::uint64_t>(num_shards));
}

absl::Status ValidateGameId(absl::string_view game_id) {
  if (game_id.empty() || game_id.size() > kMaxIdLength) {
    return Bad(absl::StrCat("game id must have 1 to ", kMaxIdLength, " characters"));
  }
  for (char c : game_id) {
    if (!IsGameIdChar(c)) {
      return Bad(absl::StrCat("game id \"", absl::CHexEscape(game_id),
                              "\" may only contain A-Z a-z 0-9 . _ ~ : -"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<LatestState> EventLog::ReadLatest(absl::string_view game_id) {
  LatestState out;
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = ReadSnapshot(game_id);
  if (!snapshot.ok()) return snapshot.status();
  out.snapshot = *std::move(snapshot);
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> tail =
      ReadEvents(game_id, out.snapshot.version() + 1, kHead);
  if (!tail.ok()) return tail.status();
  out.tail = *std::move(tail);
  return out;
}

std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> EventLog::ReadEventsOfGames(
    const std::vector<EventRange>& ranges) {
  std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> out;
  out.reserve(ranges.size());
  for (const EventRange& r : ranges) {
    out.push_back(ReadEvents(r.game_id, r.from_version, r.to_version));
  }
  return out;
}

absl::StatusOr<ArchiveResult> EventLog::Archive(const ArchiveRequest&) {
  return absl::UnimplementedError("this store does not archive games");
}

absl::StatusOr<std::string> EventLog::ReadTombstone(absl::string_view) {
  return absl::UnimplementedError("this store does not archive games");
}

absl::StatusOr<FeedPosition> GameFeed::FeedHead() {
  return absl::UnimplementedError("this store keeps no feed");
}

absl::StatusOr<std::vector<FeedEntry>> GameFeed::ReadFeed(const FeedPosition&, int,
                                                          absl::Duration) {
  return absl::UnimplementedError("this store keeps no feed");
}

namespace {
constexpr char kFeedTokenVersion = 1;
}  // namespace

std::string EncodeFeedPosition(const FeedPosition& position) {
  std::string bytes(1, kFeedTokenVersion);
  for (std::int64_t next : position.next) {
    auto v = static_cast<std::uint64_t>(next);
    do {
      const auto low = static_cast<unsigned char>(v & 0x7f);
      v >>= 7;
      bytes.push_back(static_cast<char>(v != 0 ? low | 0x80 : low));
    } while (v != 0);
  }
  return absl::WebSafeBase64Escape(bytes);
}

absl::StatusOr<FeedPosition> DecodeFeedPosition(absl::string_view token, int num_shards) {
  auto bad = [](absl::string_view why) {
    return base::InvalidArgument(kErrBadFeedPosition, absl::StrCat("feed position: ", why));
  };
  std::string bytes;
  if (!absl::WebSafeBase64Unescape(token, &bytes) || bytes.empty() ||
      bytes[0] != kFeedTokenVersion) {
    return bad("not a position this server gave");
  }
  FeedPosition out;
  out.next.reserve(static_cast<size_t>(num_shards));
  size_t i = 1;
  while (i < bytes.size()) {
    std::uint64_t v = 0;
    int shift = 0;
    while (true) {
      if (i >= bytes.size() || shift > 56) return bad("truncated");
      const auto b = static_cast<unsigned char>(bytes[i++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) == 0) break;
    }
    out.next.push_back(static_cast<std::int64_t>(v));
  }
  if (out.next.size() != static_cast<size_t>(num_shards)) {
    return bad(absl::StrCat("it names ", out.next.size(), " shards, the store has ", num_shards));
  }
  return out;
}

bool IndexMatches(const IndexLabels& labels, const IndexQuery& query) {
  return (query.status.empty() || labels.status == query.status) &&
         (query.event.empty() || labels.event == query.event) &&
         (query.round.empty() || labels.round == query.round) &&
         (query.player.empty() || labels.white_id == query.player ||
          labels.black_id == query.player);
}

absl::StatusOr<IndexPage> EventLog::ListIndex(const IndexQuery&) {
  return absl::UnimplementedError("this store keeps no games index");
}

absl::StatusOr<bool> EventLog::BackfillIndex(absl::string_view, const IndexLabels&) {
  return absl::UnimplementedError("this store keeps no games index");
}

}  // namespace store
