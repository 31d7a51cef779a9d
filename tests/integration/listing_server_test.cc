// Over real gRPC, on the in-memory store and on a real redis-server: ListGames from the games
// index (by status, event, round and player; every page; what each token may see), and an event's
// games paused and resumed in one audited call (6.13a: PauseEvent, ResumeEvent).
#include <string>
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

class ListingTest : public GameServerTest<ListingTest> {
 protected:
  // Every page of `req` with `token`: the games' ids, or the refusal.
  grpc::Status ListAll(v1::ListGamesRequest req, const std::string& token,
                       std::vector<std::string>* ids, int* pages = nullptr) {
    for (int n = 1; n < 100; ++n) {
      v1::ListGamesReply reply;
      grpc::Status st = Unary(Stub().get(), &S::ListGames, req, token, &reply);
      if (!st.ok()) return st;
      for (const v1::GameSummary& g : reply.games()) ids->push_back(g.game_id());
      if (pages != nullptr) *pages = n;
      if (reply.next_page_token().empty()) return st;
      req.set_page_token(reply.next_page_token());
    }
    return grpc::Status(grpc::StatusCode::INTERNAL, "endless pages");
  }
  std::vector<std::string> Listed(const v1::ListGamesRequest& req,
                                  const std::string& token = Token(Role::kPlatform)) {
    std::vector<std::string> ids;
    EXPECT_TRUE(Succeeded(ListAll(req, token, &ids)));
    return ids;
  }
  static v1::ListGamesRequest ByEvent(const std::string& event,
                                      v1::ListedStatus status = v1::LISTED_STATUS_UNSPECIFIED) {
    v1::ListGamesRequest req;
    req.set_event(event);
    req.set_status(status);
    return req;
  }
  // An arbiter's (or another role's) token scoped to `event`.
  static std::string EventToken(Role role, const std::string& event) {
    service::TokenClaims c = Claims(role);
    c.event = event;
    return Sign(c);
  }
  // A person's token for `event` (a player's, no game), subject `subject`.
  static std::string PersonToken(const std::string& subject, const std::string& event) {
    service::TokenClaims c = Claims(Role::kPlayer);
    c.game_id.clear();
    c.color.reset();
    c.subject = subject;
    c.event = event;
    return Sign(c);
  }
};

// The index lists each game under its status from the append that changed it: created, then
// ongoing once started, ended once over; by event, round and player; page by page.
TEST_P(ListingTest, ListsGamesByStatusEventRoundAndPlayer) {
  const std::string event = GameId("ev");
  const std::string other = GameId("other");
  std::vector<std::string> games;
  for (int i = 0; i < 5; ++i) {
    v1::CreateGameRequest req =
        EventGame(GameId(absl::StrCat("g", i)), "5400", v1::EDITION_FIDE_2023, event);
    req.set_round(i < 3 ? "1" : "2");
    if (i == 4) req.set_white_id("carl");
    ASSERT_TRUE(Succeeded(Create(req)));
    games.push_back(req.game_id());
  }
  ASSERT_TRUE(Succeeded(Create(EventGame(GameId("x"), "5400", v1::EDITION_FIDE_2023, other))));
  for (int i : {0, 1, 2}) ASSERT_TRUE(Succeeded(Start(games[i])));
  // 5.1b: a resignation ends game 2.
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::Resign,
                              ForSide<v1::ResignRequest>(games[2], v1::COLOR_WHITE),
                              PlayerToken(games[2], v1::COLOR_WHITE))));

  EXPECT_EQ(Listed(ByEvent(event)), games);
  EXPECT_EQ(Listed(ByEvent(event, v1::LISTED_STATUS_ONGOING)),
            (std::vector<std::string>{games[0], games[1]}));
  EXPECT_EQ(Listed(ByEvent(event, v1::LISTED_STATUS_CREATED)),
            (std::vector<std::string>{games[3], games[4]}));
  v1::ListGamesReply ended;
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::ListGames, ByEvent(event, v1::LISTED_STATUS_ENDED),
                              Token(Role::kPlatform), &ended)));
  ASSERT_EQ(ended.games_size(), 1);
  EXPECT_EQ(ended.games(0).game_id(), games[2]);
  EXPECT_EQ(ended.games(0).result(), "0-1");
  EXPECT_EQ(ended.games(0).white_id(), "alice");
  v1::ListGamesRequest round = ByEvent(event);
  round.set_round("2");
  EXPECT_EQ(Listed(round), (std::vector<std::string>{games[3], games[4]}));
  v1::ListGamesRequest carl;
  carl.set_player_id("carl");
  EXPECT_EQ(Listed(carl), (std::vector<std::string>{games[4]}));
  // Every page, two games at a time.
  v1::ListGamesRequest paged = ByEvent(event);
  paged.set_page_size(2);
  std::vector<std::string> ids;
  int pages = 0;
  ASSERT_TRUE(Succeeded(ListAll(paged, Token(Role::kPlatform), &ids, &pages)));
  EXPECT_EQ(ids, games);
  EXPECT_GE(pages, 3);
}

// What a token may see: an event's arbiter its event's games (another event refused), a person's
// token the games of its event that name him, a game's token its game; hostile requests change
// nothing and show nothing.
TEST_P(ListingTest, ListsOnlyWhatTheTokenMaySee) {
  const std::string event = GameId("ev");
  const std::string other = GameId("other");
  const std::string mine = GameId("mine");
  const std::string theirs = GameId("theirs");
  v1::CreateGameRequest carl = EventGame(mine, "5400", v1::EDITION_FIDE_2023, event);
  carl.set_white_id("carl");
  ASSERT_TRUE(Succeeded(Create(carl)));
  ASSERT_TRUE(Succeeded(Create(EventGame(theirs, "5400", v1::EDITION_FIDE_2023, event))));
  ASSERT_TRUE(Succeeded(Create(EventGame(GameId("far"), "5400", v1::EDITION_FIDE_2023, other))));

  EXPECT_EQ(Listed(v1::ListGamesRequest(), EventToken(Role::kArbiter, event)),
            (std::vector<std::string>{mine, theirs}));
  std::vector<std::string> none;
  grpc::Status st = ListAll(ByEvent(other), EventToken(Role::kArbiter, event), &none);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  EXPECT_TRUE(none.empty());

  EXPECT_EQ(Listed(v1::ListGamesRequest(), PersonToken("carl", event)),
            (std::vector<std::string>{mine}));
  v1::ListGamesRequest alice;
  alice.set_player_id("alice");
  st = ListAll(alice, PersonToken("carl", event), &none);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Code(st), "ERR_NOT_YOUR_GAME");

  EXPECT_EQ(Listed(v1::ListGamesRequest(), PlayerToken(theirs, v1::COLOR_BLACK)),
            (std::vector<std::string>{theirs}));
  st = ListAll(v1::ListGamesRequest(), Token(Role::kObserver), &none);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  v1::ListGamesRequest bad;
  bad.set_page_token("not-a-token");
  st = ListAll(bad, Token(Role::kPlatform), &none);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(none.empty());
}

// 6.13a: the arbiter pauses every running game of the event in one call (a retry pauses nothing
// twice) and resumes them, giving back the time the outage cost the player whose clock ran.
TEST_P(ListingTest, PausesAndResumesAnEventsGames) {
  const std::string event = GameId("ev");
  const std::string a = GameId("a");
  const std::string b = GameId("b");
  const std::string waiting = GameId("waiting");
  Ready(a, "5400", v1::EDITION_FIDE_2023, event);
  Ready(b, "5400", v1::EDITION_FIDE_2023, event);
  ASSERT_TRUE(Succeeded(Create(EventGame(waiting, "5400", v1::EDITION_FIDE_2023, event))));
  ASSERT_TRUE(Succeeded(Move(a, v1::COLOR_WHITE, "e4")));
  const std::int64_t outage = Get(a).game().now_ms();
  absl::SleepFor(absl::Milliseconds(300));

  v1::PauseEventRequest pause;
  pause.set_event(event);
  pause.set_command_id("outage-1");
  pause.set_reason("power cut in the hall");
  v1::EventGamesReply paused;
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::PauseEvent, pause, EventToken(Role::kArbiter, event), &paused)));
  ASSERT_EQ(paused.games_size(), 2);  // not the game that has not started
  for (const v1::EventGameOutcome& g : paused.games()) {
    EXPECT_TRUE(g.ok()) << g.game_id() << " " << g.code();
    EXPECT_FALSE(g.replayed());
    EXPECT_TRUE(Get(g.game_id()).game().paused()) << g.game_id();
  }
  const std::int64_t a_version = Get(a).game().version();
  v1::EventGamesReply again;
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::PauseEvent, pause, EventToken(Role::kArbiter, event), &again)));
  EXPECT_EQ(Get(a).game().version(), a_version);  // nothing paused twice
  // Another event's arbiter may not; a player may not.
  grpc::Status st = Unary(Stub().get(), &S::PauseEvent, pause,
                          EventToken(Role::kArbiter, GameId("other")), &again);
  EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  st = Unary(Stub().get(), &S::PauseEvent, pause, PlayerToken(a, v1::COLOR_WHITE), &again);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);

  const std::int64_t black_before = Get(a).game().black_ms();
  v1::ResumeEventRequest resume;
  resume.set_event(event);
  resume.set_command_id("outage-1");
  resume.set_outage_started_ms(outage);
  v1::EventGamesReply resumed;
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::ResumeEvent, resume, EventToken(Role::kArbiter, event), &resumed)));
  ASSERT_EQ(resumed.games_size(), 2);
  for (const v1::EventGameOutcome& g : resumed.games()) {
    EXPECT_TRUE(g.ok()) << g.game_id() << " " << g.code();
    EXPECT_FALSE(Get(g.game_id()).game().paused()) << g.game_id();
    if (g.game_id() == a) {
      // Black's clock ran from the outage's start to the pause: at least the 300 ms slept.
      EXPECT_EQ(g.time_given_back_to(), v1::COLOR_BLACK);
      EXPECT_GE(g.time_given_back_ms(), 300);
    }
  }
  // Recorded as the arbiter's time adjustment, citing 6.13a, before the resumption.
  const v1::GameReply now = Get(a);
  std::vector<v1::GameUpdate> log =
      Watch(a, Token(Role::kArbiter), static_cast<size_t>(now.game().version()));
  ASSERT_GE(log.size(), 2u);
  const v1::ArbitrationEvent& adjusted = log[log.size() - 2].event();
  ASSERT_TRUE(adjusted.has_adjusted()) << adjusted.DebugString();
  EXPECT_NE(adjusted.adjusted().reason().find("6.13a"), std::string::npos);
  EXPECT_GE(adjusted.adjusted().delta_ms(), 300);
  EXPECT_TRUE(log.back().event().has_resumed());
  EXPECT_GT(now.game().black_ms(), black_before - 1000);
}

INSTANTIATE_TEST_SUITE_P(Stores, ListingTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
