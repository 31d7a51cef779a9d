#include "libs/arbitration/event_rounds.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/errors.h"
#include "libs/base/status_matchers.h"
#include "libs/ledger/time_source.h"
#include "libs/store/command_ids.h"
#include "libs/store/errors.h"
#include "libs/store/memory_game_store.h"

namespace arbitration::testing {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000;
constexpr std::int64_t kMinute = 60'000;

// An open under the 2023 Laws: 90 minutes + 30 s, 30 minutes' default time (6.7a), no draw offer
// before move 30 (9.1a), an arbiter present.
v1::CreateEventRequest Open(const std::string& event = "open") {
  v1::CreateEventRequest req;
  req.set_event(event);
  req.set_name("City Open");
  req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  v1::Regulations* regs = req.mutable_ruleset()->mutable_regulations();
  regs->set_default_time_ms(30 * kMinute);
  regs->set_no_draw_offers_before_move(30);
  regs->set_arbiter_present(true);
  req.set_time_control_human("90+30");
  req.set_site("Town Hall");
  return req;
}

v1::RoundPairing Pairing(const std::string& white, const std::string& black, int board = 0) {
  v1::RoundPairing p;
  p.set_board(board);
  p.set_white_id(white);
  p.set_white_name(white + " name");
  p.set_black_id(black);
  p.set_black_name(black + " name");
  return p;
}

v1::CreateRoundRequest Round(int number, std::vector<v1::RoundPairing> pairings,
                             std::int64_t scheduled_start_ms, const std::string& command_id) {
  v1::CreateRoundRequest req;
  req.set_event("open");
  req.set_command_id(command_id);
  req.set_round(number);
  req.set_scheduled_start_ms(scheduled_start_ms);
  for (v1::RoundPairing& p : pairings) *req.add_pairings() = std::move(p);
  return req;
}

class EventRoundsTest : public ::testing::Test {
 protected:
  EventRoundsTest()
      : store_({.num_deadline_shards = 4, .now_ms = [this] { return time_.NowMs(); }}),
        authority_(&store_, &time_, analyst_, {.owner = "a"}) {}

  absl::StatusOr<EventRecord> Create(const v1::CreateEventRequest& req) {
    return CreateEvent(store_, req, Who("platform", "platform"), time_.NowMs());
  }
  absl::StatusOr<RoundOutcome> Pair(const v1::CreateRoundRequest& req) {
    return CreateRound(authority_, req, Who("platform", "platform"));
  }
  std::vector<std::string> Listed() {
    absl::StatusOr<store::IndexPage> page = store_.ListIndex({.limit = 100});
    EXPECT_OK(page.status());
    std::vector<std::string> ids;
    if (page.ok()) {
      for (const store::IndexedGame& g : page->games) ids.push_back(g.game_id);
    }
    return ids;
  }
  void StartAbsent(const std::string& game, std::vector<chess::Color> absent) {
    Command start;
    start.kind = CommandKind::kStart;
    start.actor = Who("arbiter", "arbiter");
    start.absent = std::move(absent);  // 6.6
    ASSERT_OK(authority_.Execute(game, start, {}).status());
  }
  const GameState& Game(const std::string& game) {
    absl::StatusOr<CommandResult> r = authority_.Get(game);
    EXPECT_OK(r.status());
    last_ = r->game;
    return *last_;
  }

  ledger::FakeTime time_{kT0};
  store::MemoryGameStore store_;
  LocalAnalyst analyst_;
  GameAuthority authority_;
  std::shared_ptr<const GameState> last_;
};

TEST_F(EventRoundsTest, AnEventIsRecordedAsItsGamesWouldRecordItsRules) {
  absl::StatusOr<EventRecord> e = Create(Open());
  ASSERT_OK(e.status());
  EXPECT_FALSE(e->replayed);
  EXPECT_EQ(e->event.event(), "open");
  EXPECT_EQ(e->event.name(), "City Open");
  EXPECT_EQ(e->event.time_control(), "5400+30");  // the PGN tag of "90+30"
  EXPECT_EQ(e->event.ruleset().game_type(), v1::GAME_TYPE_STANDARD);
  EXPECT_EQ(e->event.ruleset().regulations().default_time_ms(), 30 * kMinute);
  EXPECT_EQ(e->event.version(), 1);
  absl::StatusOr<v1::EventView> read = GetEvent(store_, "open");
  ASSERT_OK(read.status());
  EXPECT_EQ(read->site(), "Town Hall");
  // Kept in the store under the reserved id, never listed as a game.
  EXPECT_OK(store_.ReadSnapshot("event:open").status());
  EXPECT_TRUE(Listed().empty());
  EXPECT_THAT(GetEvent(store_, "nope"), HasErrorCode(kErrEventNotFound));
}

TEST_F(EventRoundsTest, AMalformedEventIsRefusedAndWritesNothing) {
  v1::CreateEventRequest no_edition = Open();
  no_edition.mutable_ruleset()->clear_edition();
  EXPECT_THAT(Create(no_edition), HasErrorCode("ERR_BAD_EDITION"));
  v1::CreateEventRequest bad_clock = Open();
  bad_clock.set_time_control_human("ninety minutes");
  EXPECT_THAT(Create(bad_clock), HasErrorCode("ERR_BAD_TIME_CONTROL"));
  v1::CreateEventRequest both = Open();
  both.set_time_control("5400+30");  // and time_control_human
  EXPECT_THAT(Create(both), HasErrorCode("ERR_BAD_TIME_CONTROL"));
  v1::CreateEventRequest bad_id = Open("the {open}");
  EXPECT_THAT(Create(bad_id), HasErrorCode(base::kErrBadArgument));
  v1::CreateEventRequest negative = Open();
  negative.mutable_ruleset()->mutable_regulations()->set_default_time_ms(-1);
  EXPECT_THAT(Create(negative), HasErrorCode(base::kErrBadArgument));
  v1::CreateEventRequest reserved = Open();
  reserved.set_command_id("settle:x");
  EXPECT_THAT(Create(reserved), HasErrorCode(store::kErrReservedCommandId));
  EXPECT_THAT(GetEvent(store_, "open"), HasErrorCode(kErrEventNotFound));
}

TEST_F(EventRoundsTest, TheSameEventAgainIsReplayedAnotherIsRefused) {
  v1::CreateEventRequest req = Open();
  req.set_command_id("e1");
  ASSERT_OK(Create(req).status());
  time_.AdvanceMs(kMinute);
  absl::StatusOr<EventRecord> again = Create(req);
  ASSERT_OK(again.status());
  EXPECT_TRUE(again->replayed);
  // The same content without the command id, or by another caller: the same event.
  v1::CreateEventRequest bare = Open();
  again = Create(bare);
  ASSERT_OK(again.status());
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->event.created_ms(), kT0);
  // Another content under the same id.
  v1::CreateEventRequest other = Open();
  other.set_time_control_human("60+30");
  EXPECT_THAT(Create(other), HasErrorCode(kErrEventExists));
  other.set_command_id("e1");
  EXPECT_THAT(Create(other), HasErrorCode(store::kErrCommandIdReused));
  absl::StatusOr<v1::EventView> read = GetEvent(store_, "open");
  ASSERT_OK(read.status());
  EXPECT_EQ(read->time_control(), "5400+30");
  EXPECT_EQ(read->version(), 1);
}

TEST_F(EventRoundsTest, AGameJoinsItsEventAndTakesItsRules) {
  ASSERT_OK(Create(Open()).status());
  v1::CreateGameRequest game;
  game.set_game_id("g1");
  game.set_white_id("w");
  game.set_black_id("b");
  game.set_event("open");
  ASSERT_OK(JoinEvent(store_, game));
  EXPECT_EQ(game.ruleset().edition(), v1::EDITION_FIDE_2023);
  EXPECT_EQ(game.ruleset().regulations().no_draw_offers_before_move(), 30);
  EXPECT_EQ(game.time_control(), "5400+30");
  EXPECT_EQ(game.site(), "Town Hall");
  ASSERT_OK(authority_.Create("g1", game, Who("platform", "platform"), {}).status());
  EXPECT_EQ(*Game("g1").ruleset().regulations.default_time_ms, 30 * kMinute);

  // The same rules given explicitly, in another notation: allowed.
  v1::CreateGameRequest same;
  same.set_event("open");
  same.set_time_control("5400+30");
  same.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  EXPECT_OK(JoinEvent(store_, same));
  // Other rules than the event's: refused.
  v1::CreateGameRequest edition;
  edition.set_event("open");
  edition.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2005);
  EXPECT_THAT(JoinEvent(store_, edition), HasErrorCode(kErrEventRulesConflict));
  v1::CreateGameRequest clock;
  clock.set_event("open");
  clock.set_time_control_human("15+10");
  EXPECT_THAT(JoinEvent(store_, clock), HasErrorCode(kErrEventRulesConflict));
  v1::CreateGameRequest regs;
  regs.set_event("open");
  regs.mutable_ruleset()->mutable_regulations()->set_default_time_ms(0);
  EXPECT_THAT(JoinEvent(store_, regs), HasErrorCode(kErrEventRulesConflict));

  // A label that names no event is a label only.
  v1::CreateGameRequest label;
  label.set_event("Club Championship 2026");
  label.set_time_control("5400");
  ASSERT_OK(JoinEvent(store_, label));
  EXPECT_EQ(label.time_control(), "5400");
  EXPECT_EQ(label.ruleset().edition(), v1::EDITION_UNSPECIFIED);
}

TEST_F(EventRoundsTest, AGameIdInTheEventsNamespaceIsRefused) {
  ASSERT_OK(Create(Open()).status());
  v1::CreateGameRequest game;
  game.set_white_id("w");
  game.set_black_id("b");
  game.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  game.set_time_control("5400");
  EXPECT_THAT(authority_.Create("event:open", game, Who("platform", "platform"), {}),
              HasErrorCode(kErrReservedGameId));
  EXPECT_THAT(authority_.Create("event:new", game, Who("platform", "platform"), {}),
              HasErrorCode(kErrReservedGameId));
  // Nor is the event's record read or changed as a game's.
  EXPECT_THAT(authority_.Get("event:open"), HasErrorCode(kErrReservedGameId));
  Command start;
  start.kind = CommandKind::kStart;
  start.actor = Who("arbiter", "arbiter");
  EXPECT_THAT(authority_.Execute("event:open", start, {}), HasErrorCode(kErrReservedGameId));
  EXPECT_OK(GetEvent(store_, "open").status());
  EXPECT_EQ(GetEvent(store_, "open")->version(), 1);
}

TEST_F(EventRoundsTest, ARoundCreatesItsGamesOnceAndStartsThem) {
  ASSERT_OK(Create(Open()).status());
  v1::CreateRoundRequest req =
      Round(1, {Pairing("ann", "bob"), Pairing("cid", "dan")}, kT0 + 10 * kMinute, "r1");
  req.set_start(true);
  absl::StatusOr<RoundOutcome> r = Pair(req);
  ASSERT_OK(r.status());
  EXPECT_FALSE(r->replayed);
  ASSERT_EQ(r->games.size(), 2u);
  ASSERT_EQ(r->round.pairings_size(), 2);
  EXPECT_EQ(r->round.pairings(0).game_id(), "open.r1.b1");
  EXPECT_EQ(r->round.pairings(1).game_id(), "open.r1.b2");
  const GameState& g = Game("open.r1.b2");
  EXPECT_EQ(g.status(), GameStatus::kOngoing);
  EXPECT_EQ(g.created().white_id(), "cid");
  EXPECT_EQ(g.created().round(), "1");
  EXPECT_EQ(g.created().event(), "open");
  EXPECT_EQ(g.created().scheduled_start_ms(), kT0 + 10 * kMinute);
  EXPECT_EQ(g.created().time_control(), "5400+30");
  // A retry: nothing twice, the same games.
  time_.AdvanceMs(kMinute);
  absl::StatusOr<RoundOutcome> again = Pair(req);
  ASSERT_OK(again.status());
  EXPECT_TRUE(again->replayed);
  ASSERT_EQ(again->games.size(), 2u);
  EXPECT_TRUE(again->games[0].replayed);
  EXPECT_EQ(again->games[0].version, 2);
  EXPECT_EQ(Game("open.r1.b1").version(), 2);
  absl::StatusOr<v1::EventView> event = GetEvent(store_, "open");
  ASSERT_OK(event.status());
  EXPECT_EQ(event->version(), 2);
  ASSERT_EQ(event->rounds_size(), 1);
  // The same number under another call; another round under the same command id.
  EXPECT_THAT(Pair(Round(1, {Pairing("eve", "fay")}, 0, "r1-bis")), HasErrorCode(kErrRoundExists));
  EXPECT_THAT(Pair(Round(2, {Pairing("eve", "fay")}, 0, "r1")),
              HasErrorCode(store::kErrCommandIdReused));
  EXPECT_EQ(Listed(), (std::vector<std::string>{"open.r1.b1", "open.r1.b2"}));
}

// Every pairing is checked before anything is written: one bad pairing, no game and no round.
TEST_F(EventRoundsTest, ABadPairingCreatesNothing) {
  ASSERT_OK(Create(Open()).status());
  const std::vector<std::vector<v1::RoundPairing>> bad = {
      {Pairing("ann", "bob", 1), Pairing("cid", "dan", 1)},  // board 1 twice
      {Pairing("ann", "bob"), Pairing("cid", "ann")},        // ann in two games
      {Pairing("ann", "bob"), Pairing("cid", "cid")},        // cid against himself
      {Pairing("ann", "bob"), Pairing("cid", "")},           // no black
  };
  for (const std::vector<v1::RoundPairing>& pairings : bad) {
    absl::StatusOr<RoundOutcome> r = Pair(Round(1, pairings, 0, "r1"));
    EXPECT_THAT(r, HasErrorCode(kErrBadPairing));
    EXPECT_NE(r.status().message().find("pairing 2"), std::string::npos) << r.status();
  }
  std::vector<v1::RoundPairing> reserved = {Pairing("ann", "bob"), Pairing("cid", "dan")};
  reserved[1].set_game_id("event:x");
  EXPECT_THAT(Pair(Round(1, reserved, 0, "r1")), HasErrorCode(kErrReservedGameId));
  // A game of that id exists already.
  v1::CreateGameRequest taken;
  taken.set_white_id("x");
  taken.set_black_id("y");
  taken.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  taken.set_time_control("5400");
  ASSERT_OK(authority_.Create("open.r1.b2", taken, Who("platform", "platform"), {}).status());
  absl::StatusOr<RoundOutcome> r =
      Pair(Round(1, {Pairing("ann", "bob"), Pairing("cid", "dan")}, 0, "r1"));
  EXPECT_THAT(r, HasErrorCode(store::kErrGameExists));
  EXPECT_NE(r.status().message().find("board 2"), std::string::npos) << r.status();
  EXPECT_THAT(Pair(Round(0, {Pairing("ann", "bob")}, 0, "r1")),
              HasErrorCode(base::kErrBadArgument));
  EXPECT_THAT(Pair(Round(1, {}, 0, "r1")), HasErrorCode(base::kErrBadArgument));
  EXPECT_THAT(Pair(Round(1, {Pairing("ann", "bob")}, 0, "")), HasErrorCode(base::kErrBadArgument));
  v1::CreateRoundRequest elsewhere = Round(1, {Pairing("ann", "bob")}, 0, "r1");
  elsewhere.set_event("nope");
  EXPECT_THAT(Pair(elsewhere), HasErrorCode(kErrEventNotFound));

  EXPECT_EQ(Listed(), (std::vector<std::string>{"open.r1.b2"}));
  absl::StatusOr<v1::EventView> event = GetEvent(store_, "open");
  ASSERT_OK(event.status());
  EXPECT_EQ(event->rounds_size(), 0);
}

// 6.7: "Jeder Spieler, der mehr als eine Stunde nach dem angesetzten Spielbeginn am Schachbrett
// eintrifft, verliert die Partie, es sei denn, das Turnierreglement sieht etwas anderes vor": the
// event's regulations set the default time (here 30 minutes; 2023 6.7a), counted from the round's
// scheduled start ("angesetzten Spielbeginn"), not from the instant the game was started; both
// absent, both lose (0-0).
TEST_F(EventRoundsTest, AnAbsentPlayerLosesByDefaultTheEventsDefaultTimeAfterTheRoundsStart) {
  ASSERT_OK(Create(Open()).status());
  const std::int64_t scheduled = kT0 + 20 * kMinute;
  ASSERT_OK(
      Pair(Round(1, {Pairing("ann", "bob"), Pairing("cid", "dan")}, scheduled, "r1")).status());
  // The games are started early; Black of board 1 and both of board 2 are absent (6.6).
  StartAbsent("open.r1.b1", {chess::Color::kBlack});
  StartAbsent("open.r1.b2", {chess::Color::kWhite, chess::Color::kBlack});
  // 30 minutes after the start, but not after the scheduled start: no default yet.
  time_.AdvanceMs(30 * kMinute + 1);
  ASSERT_OK(authority_.CheckDeadline("open.r1.b1").status());
  EXPECT_EQ(Game("open.r1.b1").status(), GameStatus::kOngoing);
  EXPECT_EQ(Game("open.r1.b1").default_deadline_ms(), scheduled + 30 * kMinute);
  // Past the round's scheduled start plus the default time.
  time_.AdvanceMs(20 * kMinute);
  ASSERT_OK(authority_.CheckDeadline("open.r1.b1").status());
  ASSERT_OK(authority_.CheckDeadline("open.r1.b2").status());
  const GameState& one = Game("open.r1.b1");
  EXPECT_EQ(one.outcome().result, laws::Result::kWhiteWins);
  EXPECT_EQ(one.outcome().article, "6.7");

  absl::StatusOr<v1::EventResultsReply> results = EventResults(authority_, "open", 0);
  ASSERT_OK(results.status());
  ASSERT_EQ(results->rounds_size(), 1);
  ASSERT_EQ(results->rounds(0).games_size(), 2);
  const v1::PairingResult& b1 = results->rounds(0).games(0);
  EXPECT_EQ(b1.board(), 1);
  EXPECT_EQ(b1.result(), "1-0");
  EXPECT_EQ(b1.white_points(), 1.0);
  EXPECT_EQ(b1.black_points(), 0.0);
  EXPECT_FALSE(b1.pending());
  const v1::PairingResult& b2 = results->rounds(0).games(1);
  EXPECT_EQ(b2.result(), "0-0");
  EXPECT_EQ(b2.white_points(), 0.0);
  EXPECT_EQ(b2.black_points(), 0.0);
  EXPECT_EQ(b2.article(), "6.7");
}

// 11.1: a win 1, a draw 1/2, a loss 0; a game in play, or created and not started, is pending.
TEST_F(EventRoundsTest, ResultsGiveBothPlayersPointsByRound) {
  v1::CreateEventRequest open = Open();
  open.mutable_ruleset()->mutable_regulations()->clear_no_draw_offers_before_move();
  ASSERT_OK(Create(open).status());
  ASSERT_OK(
      Pair(Round(1, {Pairing("ann", "bob"), Pairing("cid", "dan"), Pairing("eve", "fay")}, 0, "r1"))
          .status());
  for (const char* g : {"open.r1.b1", "open.r1.b2", "open.r1.b3"}) StartAbsent(g, {});
  Command resign;
  resign.kind = CommandKind::kResign;  // 5.1b
  resign.actor = Who("bob", "player");
  resign.side = chess::Color::kBlack;
  ASSERT_OK(authority_.Execute("open.r1.b1", resign, {}).status());
  Command offer;
  offer.kind = CommandKind::kOfferDraw;
  offer.actor = Who("cid", "player");
  offer.side = chess::Color::kWhite;
  ASSERT_OK(authority_.Execute("open.r1.b2", offer, {}).status());
  Command accept;
  accept.kind = CommandKind::kAcceptDraw;  // 5.2c
  accept.actor = Who("dan", "player");
  accept.side = chess::Color::kBlack;
  ASSERT_OK(authority_.Execute("open.r1.b2", accept, {}).status());
  ASSERT_OK(Pair(Round(2, {Pairing("bob", "ann")}, 0, "r2")).status());

  absl::StatusOr<v1::EventResultsReply> results = EventResults(authority_, "open", 0);
  ASSERT_OK(results.status());
  ASSERT_EQ(results->rounds_size(), 2);
  const v1::RoundResults& one = results->rounds(0);
  ASSERT_EQ(one.games_size(), 3);
  EXPECT_EQ(one.games(0).result(), "1-0");
  EXPECT_EQ(one.games(0).white_points(), 1.0);
  EXPECT_EQ(one.games(0).black_points(), 0.0);
  EXPECT_EQ(one.games(1).result(), "1/2-1/2");
  EXPECT_EQ(one.games(1).white_points(), 0.5);
  EXPECT_EQ(one.games(1).black_points(), 0.5);
  EXPECT_TRUE(one.games(2).pending());
  EXPECT_EQ(one.games(2).result(), "");
  EXPECT_TRUE(results->rounds(1).games(0).pending());  // created, not started
  // One round only.
  results = EventResults(authority_, "open", 2);
  ASSERT_OK(results.status());
  ASSERT_EQ(results->rounds_size(), 1);
  EXPECT_EQ(results->rounds(0).round(), 2);
  EXPECT_THAT(EventResults(authority_, "open", 3), HasErrorCode(base::kErrBadArgument));
}

TEST_F(EventRoundsTest, ThePgnHoldsTheGamesInRoundAndBoardOrder) {
  ASSERT_OK(Create(Open()).status());
  std::vector<v1::RoundPairing> pairings = {Pairing("cid", "dan", 2), Pairing("ann", "bob", 1)};
  ASSERT_OK(Pair(Round(1, pairings, 0, "r1")).status());
  ASSERT_OK(Pair(Round(2, {Pairing("bob", "cid")}, 0, "r2")).status());
  absl::StatusOr<std::string> pgn = EventPgn(authority_, "open", 0, {});
  ASSERT_OK(pgn.status());
  const size_t ann = pgn->find("[White \"ann name\"]");
  const size_t cid = pgn->find("[White \"cid name\"]");
  const size_t bob = pgn->find("[White \"bob name\"]");
  ASSERT_NE(ann, std::string::npos) << *pgn;
  ASSERT_NE(cid, std::string::npos);
  ASSERT_NE(bob, std::string::npos);
  EXPECT_LT(ann, cid);
  EXPECT_LT(cid, bob);
  absl::StatusOr<std::string> two = EventPgn(authority_, "open", 2, {});
  ASSERT_OK(two.status());
  EXPECT_EQ(two->find("ann name"), std::string::npos);
  EXPECT_NE(two->find("[Round \"2\"]"), std::string::npos) << *two;
}

}  // namespace
}  // namespace arbitration::testing
