// Over real gRPC, on the in-memory store and on a real redis-server: an event created once with
// its ruleset and regulations, a game joining it, a round's pairings created and started in one
// call (all or nothing, a retry creating nothing twice), 6.7a's default counted from the round's
// scheduled start with the event's default time, the event's results and PGN.
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

class EventsTest : public GameServerTest<EventsTest> {
 protected:
  // 2023, 90 minutes + 30 s, no draw offer before move 20 (9.1a), `default_ms` of default time.
  v1::CreateEventRequest Open(const std::string& event, std::int64_t default_ms = 1'800'000) {
    v1::CreateEventRequest req;
    req.set_event(event);
    req.set_name("Integration Open");
    req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
    req.mutable_ruleset()->mutable_regulations()->set_default_time_ms(default_ms);
    req.mutable_ruleset()->mutable_regulations()->set_no_draw_offers_before_move(20);
    req.set_time_control("5400+30");
    req.set_site("Online");
    return req;
  }
  grpc::Status CreateEvent(const v1::CreateEventRequest& req, v1::EventReply* reply = nullptr,
                           const std::string& token = Token(Role::kPlatform)) {
    return Unary(Stub().get(), &S::CreateEvent, req, token, reply);
  }
  static v1::CreateRoundRequest Round(const std::string& event, int number,
                                      std::int64_t scheduled_start_ms, bool start) {
    v1::CreateRoundRequest req;
    req.set_event(event);
    req.set_command_id(absl::StrCat("round-", number));
    req.set_round(number);
    req.set_scheduled_start_ms(scheduled_start_ms);
    req.set_start(start);
    for (const auto& [white, black] :
         std::vector<std::pair<const char*, const char*>>{{"ann", "bob"}, {"cid", "dan"}}) {
      v1::RoundPairing* p = req.add_pairings();
      p->set_white_id(white);
      p->set_white_name(absl::StrCat(white, " name"));
      p->set_black_id(black);
      p->set_black_name(absl::StrCat(black, " name"));
    }
    return req;
  }
  grpc::Status CreateRound(const v1::CreateRoundRequest& req, v1::RoundReply* reply = nullptr,
                           const std::string& token = Token(Role::kPlatform)) {
    return Unary(Stub().get(), &S::CreateRound, req, token, reply);
  }
  std::vector<std::string> EventGames(const std::string& event) {
    v1::ListGamesRequest req;
    req.set_event(event);
    v1::ListGamesReply reply;
    EXPECT_TRUE(Succeeded(Unary(Stub().get(), &S::ListGames, req, Token(Role::kPlatform), &reply)));
    std::vector<std::string> ids;
    for (const v1::GameSummary& g : reply.games()) ids.push_back(g.game_id());
    return ids;
  }
  static std::string EventToken(Role role, const std::string& event) {
    service::TokenClaims c = Claims(role);
    c.event = event;
    return Sign(c);
  }
};

TEST_P(EventsTest, AnEventIsCreatedOnceAndItsGamesJoinIt) {
  const std::string event = GameId("open");
  v1::CreateEventRequest req = Open(event);
  req.set_command_id("create-open");
  v1::EventReply reply;
  ASSERT_TRUE(Succeeded(CreateEvent(req, &reply)));
  EXPECT_FALSE(reply.replayed());
  EXPECT_EQ(reply.event().time_control(), "5400+30");
  EXPECT_EQ(reply.event().ruleset().game_type(), v1::GAME_TYPE_STANDARD);
  ASSERT_TRUE(Succeeded(CreateEvent(req, &reply)));
  EXPECT_TRUE(reply.replayed());
  // Another content under the same id; malformed events: refused, nothing changed.
  v1::CreateEventRequest other = Open(event);
  other.set_time_control("600+5");
  grpc::Status st = CreateEvent(other);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(Code(st), "ERR_EVENT_EXISTS");
  v1::CreateEventRequest no_edition = Open(GameId("none"));
  no_edition.mutable_ruleset()->clear_edition();
  EXPECT_EQ(Code(CreateEvent(no_edition)), "ERR_BAD_EDITION");
  v1::CreateEventRequest bad_clock = Open(GameId("bad"));
  bad_clock.set_time_control("ninety");
  EXPECT_EQ(Code(CreateEvent(bad_clock)), "ERR_BAD_TIME_CONTROL");
  // An arbiter of another event; a player.
  st = CreateEvent(Open(GameId("theirs")), nullptr, EventToken(Role::kArbiter, event));
  EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  EXPECT_EQ(CreateEvent(Open(GameId("p")), nullptr, Token(Role::kPlayer)).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  v1::GetEventRequest get;
  get.set_event(event);
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::GetEvent, get, Token(Role::kObserver), &reply)));
  EXPECT_EQ(reply.event().name(), "Integration Open");
  EXPECT_EQ(reply.event().ruleset().regulations().no_draw_offers_before_move(), 20);
  // The event's record is no game: not listed, and its id is not a game's.
  EXPECT_TRUE(EventGames(event).empty());
  const std::string record = absl::StrCat("event:", event);
  EXPECT_EQ(Code(Create(EventGame(record))), "ERR_RESERVED_GAME_ID");
  v1::GameReply none;
  st = Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(record), Token(Role::kArbiter),
             &none);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Code(st), "ERR_RESERVED_GAME_ID");
  EXPECT_EQ(Code(Unary(Stub().get(), &S::StartGame, ForGame<v1::StartGameRequest>(record),
                       Token(Role::kArbiter))),
            "ERR_RESERVED_GAME_ID");
  EXPECT_TRUE(Watch(record, Token(Role::kArbiter), 1).empty());

  // A game names the event and leaves the rules out: it is played under the event's.
  v1::CreateGameRequest game;
  game.set_game_id(GameId("g"));
  game.set_white_id("alice");
  game.set_black_id("bob");
  game.set_event(event);
  v1::GameReply created;
  ASSERT_TRUE(Succeeded(Create(game, &created)));
  EXPECT_EQ(created.game().time_control(), "5400+30");
  EXPECT_EQ(created.game().ruleset().edition(), v1::EDITION_FIDE_2023);
  EXPECT_EQ(created.game().ruleset().regulations().default_time_ms(), 1'800'000);
  EXPECT_EQ(created.game().site(), "Online");
  v1::CreateGameRequest conflicting = game;
  conflicting.set_game_id(GameId("g2"));
  conflicting.set_time_control("300+2");
  st = Create(conflicting);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_EVENT_RULES_CONFLICT");
  EXPECT_EQ(EventGames(event), (std::vector<std::string>{game.game_id()}));
  // A label that names no event keeps working as before.
  ASSERT_TRUE(Succeeded(Create(
      EventGame(GameId("label"), "5400", v1::EDITION_FIDE_2023, "Some Label Nobody Created"))));
}

TEST_P(EventsTest, ARoundIsCreatedAndStartedInOneCallOnce) {
  const std::string event = GameId("open");
  ASSERT_TRUE(Succeeded(CreateEvent(Open(event))));
  // A bad pairing: nothing is created.
  v1::CreateRoundRequest bad = Round(event, 1, 0, true);
  bad.mutable_pairings(1)->set_black_id("ann");
  grpc::Status st = CreateRound(bad);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Code(st), "ERR_BAD_PAIRING");
  EXPECT_TRUE(EventGames(event).empty());

  // The event's arbiter pairs and starts the round; a retry answers the same games.
  const std::string arbiter = EventToken(Role::kArbiter, event);
  v1::RoundReply reply;
  ASSERT_TRUE(Succeeded(CreateRound(Round(event, 1, 0, true), &reply, arbiter)));
  EXPECT_FALSE(reply.replayed());
  ASSERT_EQ(reply.games_size(), 2);
  EXPECT_EQ(reply.games(0).game().status(), v1::GAME_STATUS_ONGOING);
  EXPECT_EQ(reply.games(1).game().white_id(), "cid");
  EXPECT_EQ(reply.games(1).game().round(), "1");
  const std::vector<std::string> games = {reply.games(0).game().game_id(),
                                          reply.games(1).game().game_id()};
  v1::RoundReply again;
  ASSERT_TRUE(Succeeded(CreateRound(Round(event, 1, 0, true), &again, arbiter)));
  EXPECT_TRUE(again.replayed());
  ASSERT_EQ(again.games_size(), 2);
  EXPECT_EQ(again.games(1).game().game_id(), games[1]);
  EXPECT_EQ(again.games(1).game().version(), 2);
  EXPECT_EQ(EventGames(event), games);
  st = CreateRound(Round(event, 1, 0, false), nullptr, Token(Role::kPlatform));
  EXPECT_EQ(Code(st), "ERR_ROUND_EXISTS");

  // 5.1b on board 1; the results and the PGN by board.
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::Resign,
                              ForSide<v1::ResignRequest>(games[0], v1::COLOR_BLACK),
                              Token(Role::kPlatform))));
  v1::GetEventResultsRequest results_req;
  results_req.set_event(event);
  v1::EventResultsReply results;
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::GetEventResults, results_req, arbiter, &results)));
  ASSERT_EQ(results.rounds_size(), 1);
  ASSERT_EQ(results.rounds(0).games_size(), 2);
  EXPECT_EQ(results.rounds(0).games(0).result(), "1-0");
  EXPECT_EQ(results.rounds(0).games(0).white_points(), 1.0);
  EXPECT_EQ(results.rounds(0).games(0).black_points(), 0.0);
  EXPECT_TRUE(results.rounds(0).games(1).pending());
  v1::ExportEventPgnRequest pgn_req;
  pgn_req.set_event(event);
  pgn_req.set_round(1);
  v1::ExportPgnReply pgn;
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::ExportEventPgn, pgn_req, arbiter, &pgn)));
  const size_t ann = pgn.pgn().find("[White \"ann name\"]");
  const size_t cid = pgn.pgn().find("[White \"cid name\"]");
  ASSERT_NE(ann, std::string::npos) << pgn.pgn();
  ASSERT_NE(cid, std::string::npos) << pgn.pgn();
  EXPECT_LT(ann, cid);
  EXPECT_NE(pgn.pgn().find("1-0"), std::string::npos);
}

// 6.7a: the default time is the event's (here 600 ms) and counts from the round's scheduled
// start: the absent player loses once it has passed, with the server's own deadline.
TEST_P(EventsTest, AnAbsentPlayerLosesByDefaultAfterTheRoundsScheduledStart) {
  const std::string event = GameId("blitzless");
  ASSERT_TRUE(Succeeded(CreateEvent(Open(event, 600))));
  const std::int64_t scheduled = absl::ToUnixMillis(absl::Now()) + 400;
  v1::RoundReply reply;
  ASSERT_TRUE(Succeeded(CreateRound(Round(event, 1, scheduled, false), &reply)));
  const std::string game = reply.games(0).game().game_id();
  EXPECT_EQ(reply.games(0).game().scheduled_start_ms(), scheduled);
  ASSERT_TRUE(Succeeded(Start(game, {v1::COLOR_BLACK})));
  EXPECT_EQ(Get(game).game().status(), v1::GAME_STATUS_ONGOING);
  v1::GameReply now;
  for (int i = 0; i < 100; ++i) {
    now = Get(game);
    if (now.game().status() == v1::GAME_STATUS_ENDED) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_EQ(now.game().status(), v1::GAME_STATUS_ENDED);
  EXPECT_EQ(now.game().outcome().article(), "6.7");
  EXPECT_EQ(now.game().white_points(), 1.0);
  EXPECT_GE(now.game().last_event_ms(), scheduled + 600);
}

INSTANTIATE_TEST_SUITE_P(Stores, EventsTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
