// WatchGames, the firehose, over gRPC on each store (a real redis-server for Redis): a client that
// resumes from a position gets exactly what came after it, nothing lost and nothing twice; a
// token sees only the games it may (another event's never appear); observers see each game
// through its broadcast delay; a position the store did not give is refused.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/game_server.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;

class FirehoseServerTest : public GameServerTest<FirehoseServerTest> {
 protected:
  // A WatchGames stream with `token`, from `position`.
  struct Stream {
    std::unique_ptr<Call> call;
    std::unique_ptr<grpc::ClientReader<v1::GamesUpdate>> reader;
  };
  Stream Open(const std::string& token, const std::string& position = "") {
    Stream s;
    s.call = std::make_unique<Call>(token, absl::Seconds(20));
    v1::WatchGamesRequest req;
    req.set_position(position);
    s.reader = Stub()->WatchGames(s.call.get(), req);
    return s;
  }

  // Reads until `done` says so (or the stream ends); every update read.
  template <typename Done>
  std::vector<v1::GamesUpdate> ReadUntil(Stream& s, Done done) {
    std::vector<v1::GamesUpdate> out;
    v1::GamesUpdate u;
    while (!done(out) && s.reader->Read(&u)) out.push_back(u);
    return out;
  }

  static void Close(Stream& s) {
    s.call->TryCancel();
    v1::GamesUpdate u;
    while (s.reader->Read(&u)) {
    }
    s.reader->Finish();
  }
};

// (game, version) of every event in `updates`, in order.
std::vector<std::pair<std::string, std::int64_t>> Events(const std::vector<v1::GamesUpdate>& us) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const v1::GamesUpdate& u : us) {
    for (const v1::GameUpdate& e : u.events()) out.emplace_back(u.game_id(), e.version());
  }
  return out;
}

// The highest version of `game` among `updates`.
std::int64_t Reached(const std::vector<v1::GamesUpdate>& updates, const std::string& game) {
  std::int64_t v = 0;
  for (const auto& [g, version] : Events(updates)) {
    if (g == game) v = std::max(v, version);
  }
  return v;
}

TEST_P(FirehoseServerTest, AResumedStreamGetsExactlyWhatCameAfterItsPosition) {
  const std::string a = GameId("fa");
  const std::string b = GameId("fb");
  Stream first = Open(Token(Role::kPlatform));
  // The first update names no game: the position the stream starts from.
  std::vector<v1::GamesUpdate> start = ReadUntil(first, [](const auto& u) { return !u.empty(); });
  ASSERT_EQ(start.size(), 1u);
  EXPECT_EQ(start[0].game_id(), "");
  EXPECT_FALSE(start[0].position().empty());
  Ready(a, "5400");  // versions 1, 2
  Ready(b, "5400");
  ASSERT_TRUE(Succeeded(Move(a, v1::COLOR_WHITE, "e4")));  // 3
  ASSERT_TRUE(Succeeded(Move(b, v1::COLOR_WHITE, "d4")));
  std::vector<v1::GamesUpdate> before =
      ReadUntil(first, [&](const auto& u) { return Reached(u, a) >= 3 && Reached(u, b) >= 3; });
  ASSERT_GE(Reached(before, a), 3);
  ASSERT_GE(Reached(before, b), 3);
  // The client stops after the update that brought a's move, and resumes from its position.
  size_t cut = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i].game_id() == a && Reached({before[i]}, a) == 3) cut = i;
  }
  before.resize(cut + 1);
  const std::string position = before.back().position();
  Close(first);
  ASSERT_TRUE(Succeeded(Move(a, v1::COLOR_BLACK, "e5")));  // 4, while nobody follows
  ASSERT_TRUE(Succeeded(Move(b, v1::COLOR_BLACK, "d5")));
  Stream second = Open(Token(Role::kPlatform), position);
  std::vector<v1::GamesUpdate> after =
      ReadUntil(second, [&](const auto& u) { return Reached(u, a) >= 4 && Reached(u, b) >= 4; });
  Close(second);
  // Every version of both games exactly once, across the two streams.
  std::map<std::string, std::vector<std::int64_t>> seen;
  for (const auto& [game, version] : Events(before)) seen[game].push_back(version);
  for (const auto& [game, version] : Events(after)) seen[game].push_back(version);
  EXPECT_EQ(seen[a], (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(seen[b], (std::vector<std::int64_t>{1, 2, 3, 4}));
  for (const v1::GamesUpdate& u : after) EXPECT_FALSE(u.position().empty());
}

TEST_P(FirehoseServerTest, ATokenForAnEventSeesOnlyThatEventsGames) {
  const std::string ours = GameId("fo");
  const std::string theirs = GameId("ft");
  service::TokenClaims claims = Claims(Role::kArbiter);
  claims.event = "Integration";
  Stream s = Open(Sign(claims));
  const std::string start = ReadUntil(s, [](const auto& u) { return !u.empty(); })[0].position();
  Ready(EventGame(theirs, "5400", v1::EDITION_FIDE_2023, "Another event"));
  ASSERT_TRUE(Succeeded(Move(theirs, v1::COLOR_WHITE, "e4")));
  Ready(ours, "5400");
  ASSERT_TRUE(Succeeded(Move(ours, v1::COLOR_WHITE, "e4")));
  std::vector<v1::GamesUpdate> got =
      ReadUntil(s, [&](const auto& u) { return Reached(u, ours) >= 3; });
  Close(s);
  EXPECT_EQ(Reached(got, ours), 3);
  for (const v1::GamesUpdate& u : got) EXPECT_NE(u.game_id(), theirs);
  // The platform sees both.
  Stream all = Open(Token(Role::kPlatform), start);
  std::vector<v1::GamesUpdate> both = ReadUntil(
      all, [&](const auto& u) { return Reached(u, ours) >= 3 && Reached(u, theirs) >= 3; });
  Close(all);
  EXPECT_EQ(Reached(both, theirs), 3);
}

// An observer follows a game with a delay of one ply: the last move is held back until the next
// one is played; the platform sees every move at once.
TEST_P(FirehoseServerTest, ObserversSeeEachGameThroughItsBroadcastDelay) {
  const std::string game = GameId("fd");
  Stream observer = Open(Token(Role::kObserver));
  ReadUntil(observer, [](const auto& u) { return !u.empty(); });
  v1::CreateGameRequest req = EventGame(game, "5400");
  req.set_broadcast_delay_plies(1);
  Ready(req);
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "e4")));  // 3
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "e5")));  // 4
  std::vector<v1::GamesUpdate> got =
      ReadUntil(observer, [&](const auto& u) { return Reached(u, game) >= 3; });
  EXPECT_EQ(Reached(got, game), 3);
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "Nf3")));  // 5: e5 is released
  std::vector<v1::GamesUpdate> more =
      ReadUntil(observer, [&](const auto& u) { return Reached(u, game) >= 4; });
  Close(observer);
  EXPECT_EQ(Reached(more, game), 4);
  for (const auto& [g, version] : Events(more)) EXPECT_LE(version, 4) << g;
}

TEST_P(FirehoseServerTest, APositionTheStoreDidNotGiveIsRefused) {
  for (const std::string& position : {std::string("not a position"), std::string("AQID")}) {
    Stream s = Open(Token(Role::kPlatform), position);
    v1::GamesUpdate u;
    EXPECT_FALSE(s.reader->Read(&u));
    const grpc::Status st = s.reader->Finish();
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << position;
    EXPECT_EQ(Code(st), "ERR_BAD_FEED_POSITION") << position;
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, FirehoseServerTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
