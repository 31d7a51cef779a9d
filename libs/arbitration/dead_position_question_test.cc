// 5.2b / 9.6 asked off the move's path: a pawn move makes a position whose deadness needs
// search-analysis (the analyst stands for the remote one: DeadPositionAtOnce gives no answer).
// The move is accepted without waiting for the analysis; the deadline index asks it; its answer
// is recorded once, and a dead answer ends the game as of that move: "Die Partie ist remis, sobald
// eine Stellung entstanden ist, in welcher keiner der Spieler den gegnerischen König mit
// irgendeiner Folge von regelgemäßen Zügen mattsetzen kann. ... Damit ist die Partie sofort
// beendet, vorausgesetzt, dass der Zug, der die Stellung herbeigeführt hat, regelgemäß war."
// (5.2b), so what the players did after it is void.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_replace.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/game_deadlines.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/ledger/time_source.h"
#include "libs/store/memory_game_store.h"

namespace arbitration::testing {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000;
// A pawn chain across the fifth rank: after h4-h5 no capture is possible ever again, neither king
// can cross the fifth rank or take a protected pawn, and the a-pawns can only step into each
// other (a3-a4 or ...a5-a4): dead. The in-process proofs do not settle it (a pawn can still step),
// so it is a question for search-analysis. Before h4-h5, h4xg5 could still open the board.
constexpr char kBeforeH5[] = "3k4/8/1p1p1p1p/pPpPpPp1/2P1P1PP/P7/8/3K4 w - - 0 1";
constexpr char kAfterH5[] = "3k4/8/1p1p1p1p/pPpPpPpP/2P1P1P1/P7/8/3K4 b - - 0 1";

// search-analysis, blocked until released: asked a dead-position question, it waits on the latch.
class BlockedAnalyst final : public Analyst {
 public:
  AnalystAnswer CanMate(const chess::Position&, chess::Color) override { return {}; }
  AnalystAnswer MatingPotential(const chess::Position&, chess::Color) override { return {}; }
  std::optional<AnalystAnswer> DeadPositionAtOnce(const chess::Position&) override {
    return std::nullopt;  // a question for search-analysis, as the remote analyst's
  }
  AnalystAnswer DeadPosition(const chess::Position& pos) override {
    asked_fen = chess::ToFen(pos);
    if (!entered.HasBeenNotified()) entered.Notify();
    release.WaitForNotification();
    return answer;
  }
  absl::Notification entered;
  absl::Notification release;
  AnalystAnswer answer;
  std::string asked_fen;
};

v1::Actor Platform() { return Who("platform", "platform"); }

class DeadPositionQuestion : public ::testing::Test {
 protected:
  DeadPositionQuestion()
      : store_({.num_deadline_shards = 4, .now_ms = [this] { return time_.NowMs(); }}),
        authority_(&store_, &time_, analyst_, {.owner = "a"}),
        deadlines_(&authority_, &time_, {.owner = "a", .sweep_grace = absl::ZeroDuration()}) {}

  void StartGame() {
    v1::CreateGameRequest create;
    create.set_game_id("g1");
    create.set_white_id("w");
    create.set_black_id("b");
    create.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
    create.set_time_control("G/90");
    create.set_start_fen(kBeforeH5);
    ASSERT_OK(authority_.Create("g1", create, Platform(), {}).status());
    Command start{.kind = CommandKind::kStart, .actor = Platform()};
    ASSERT_OK(authority_.Execute("g1", start, {}).status());
  }
  absl::StatusOr<CommandResult> Move(chess::Color side, const std::string& move,
                                     std::int64_t at_ms) {
    time_.SetMs(at_ms);
    Command c{.kind = CommandKind::kMove, .actor = Who(side == kW ? "w" : "b", "player")};
    c.side = side;
    c.move = move;
    return authority_.Execute("g1", c, {});
  }
  GameState Latest() {
    absl::StatusOr<CommandResult> r = authority_.Get("g1");
    EXPECT_OK(r.status());
    return *r->game;
  }

  ledger::FakeTime time_{kT0};
  store::MemoryGameStore store_;
  BlockedAnalyst analyst_;
  GameAuthority authority_;
  GameDeadlines deadlines_;
};

// The move is acknowledged while search-analysis is still blocked on its question; moves go on;
// the dead answer ends the game at h5 with the clocks as then, the later moves void.
TEST_F(DeadPositionQuestion, TheMoveIsAcceptedWithoutWaitingAndADeadAnswerEndsTheGameAsOfIt) {
  StartGame();
  absl::StatusOr<CommandResult> h5 = Move(kW, "h5", kT0 + 10'000);
  ASSERT_OK(h5.status());  // returned: nothing on the move's thread waited for the analysis
  EXPECT_FALSE(analyst_.entered.HasBeenNotified());
  const std::int64_t h5_version = h5->version;
  EXPECT_EQ(h5->game->status(), GameStatus::kOngoing);
  ASSERT_EQ(h5->game->dead_position_questions().size(), 1u);
  EXPECT_EQ(h5->game->events().back().move().dead_position_asked(), true);
  const std::int64_t white_ms = h5->game->RemainingMs(kW, kT0 + 10'000);
  const std::int64_t black_ms = h5->game->RemainingMs(kB, kT0 + 10'000);

  // The deadline index asks, on the scheduler's thread, and search-analysis blocks.
  analyst_.answer = {analysis::Verdict::kUnwinnable, "blocked pawns: no king crosses, no capture"};
  std::thread check([&] { EXPECT_EQ(*deadlines_.scheduler().RunOnce(), 1); });
  analyst_.entered.WaitForNotification();
  EXPECT_EQ(analyst_.asked_fen, kAfterH5);
  // Meanwhile the players go on, each move acknowledged while the analysis is blocked.
  ASSERT_OK(Move(kB, "Ke8", kT0 + 20'000).status());
  ASSERT_OK(Move(kW, "Ke1", kT0 + 30'000).status());
  EXPECT_FALSE(analyst_.release.HasBeenNotified());
  time_.SetMs(kT0 + 40'000);
  analyst_.release.Notify();
  check.join();

  const GameState g = Latest();
  EXPECT_EQ(g.status(), GameStatus::kEnded);
  EXPECT_EQ(g.outcome(), laws::Outcome::Draw(laws::Termination::kDeadPosition, "5.2b"));
  // As of h5: the position then, the two later moves retracted, the clocks as then.
  EXPECT_EQ(chess::ToFen(g.position()), kAfterH5);
  ASSERT_EQ(g.standing_plies(), 1);
  EXPECT_EQ(g.RemainingMs(kW, kT0 + 40'000), white_ms);
  EXPECT_EQ(g.RemainingMs(kB, kT0 + 40'000), black_ms);
  EXPECT_EQ(g.ended_at_ms(), kT0 + 10'000);
  const v1::ArbitrationEvent answered = g.events().back();
  ASSERT_TRUE(answered.has_dead_position_answered());
  EXPECT_EQ(answered.dead_position_answered().version(), h5_version);
  EXPECT_TRUE(answered.dead_position_answered().dead());
  EXPECT_EQ(answered.dead_position_answered().answered_by(), "analysis");
  EXPECT_EQ(answered.actor().role(), "server");
  EXPECT_TRUE(g.dead_position_questions().empty());
  EXPECT_FALSE(store_.GetDeadline("g1")->has_value());
  const std::string pgn = absl::StrReplaceAll(ExportPgn(g), {{"\n", " "}});  // the text wraps
  EXPECT_NE(pgn.find("analysis answers that the position after ply 1 was dead"), std::string::npos)
      << pgn;
  EXPECT_NE(pgn.find("1/2-1/2"), std::string::npos) << pgn;
  EXPECT_FALSE(g.retracted(0));  // h5 stands; Ke8 and Ke1 are void
  EXPECT_TRUE(g.retracted(1));
  EXPECT_TRUE(g.retracted(2));
  // Asked once: nothing is left to ask.
  time_.SetMs(kT0 + 100'000);
  EXPECT_EQ(*deadlines_.scheduler().RunOnce(), 0);
}

// An answer that the position is not dead (or undetermined: 5.2b declares it only with a proof)
// leaves the game as it went on.
TEST_F(DeadPositionQuestion, AnAliveAnswerLeavesTheGameAsItWentOn) {
  StartGame();
  ASSERT_OK(Move(kW, "h5", kT0 + 10'000).status());
  analyst_.answer = {analysis::Verdict::kUndetermined, "node limit"};
  analyst_.release.Notify();
  ASSERT_OK(Move(kB, "Ke8", kT0 + 20'000).status());
  EXPECT_EQ(*deadlines_.scheduler().RunOnce(), 1);
  const GameState g = Latest();
  EXPECT_EQ(g.status(), GameStatus::kOngoing);
  EXPECT_EQ(g.standing_plies(), 2);
  EXPECT_TRUE(g.dead_position_questions().empty());
  ASSERT_OK(Move(kW, "Ke1", kT0 + 30'000).status());
}

// search-analysis down: asked again with backoff; a resignation meanwhile is void once the
// answer says the position was dead when it arose.
TEST_F(DeadPositionQuestion, AResignationAfterTheDeadPositionAroseIsVoid) {
  StartGame();
  ASSERT_OK(Move(kW, "h5", kT0 + 10'000).status());
  analyst_.answer = {analysis::Verdict::kUndetermined, "search-analysis did not answer",
                     /*unanswered=*/true};
  analyst_.release.Notify();
  EXPECT_EQ(*deadlines_.scheduler().RunOnce(), 0);  // unanswered: due again 1 s later
  time_.SetMs(kT0 + 10'500);
  EXPECT_EQ(*deadlines_.scheduler().RunOnce(), 0);  // not due: not asked
  Command resign{.kind = CommandKind::kResign, .actor = Who("b", "player"), .side = kB};
  ASSERT_OK(authority_.Execute("g1", resign, {}).status());
  ASSERT_EQ(Latest().outcome().result, laws::Result::kWhiteWins);
  analyst_.answer = {analysis::Verdict::kUnwinnable, "blocked pawns"};
  time_.SetMs(kT0 + 11'000);
  EXPECT_EQ(*deadlines_.scheduler().RunOnce(), 1);
  const GameState g = Latest();
  EXPECT_EQ(g.outcome(), laws::Outcome::Draw(laws::Termination::kDeadPosition, "5.2b"));
}

// The arbiter's result before the answer stands; nothing is asked after it.
TEST_F(DeadPositionQuestion, TheArbitersResultBeforeTheAnswerStands) {
  StartGame();
  ASSERT_OK(Move(kW, "h5", kT0 + 10'000).status());
  Command set{.kind = CommandKind::kSetResult, .actor = Who("arbiter", "arbiter")};
  set.outcome = laws::Outcome::Draw(laws::Termination::kDeadPosition, "5.2b");
  set.reason = "the pawns are blocked";
  ASSERT_OK(authority_.Execute("g1", set, {}).status());
  EXPECT_FALSE(store_.GetDeadline("g1")->has_value());
  EXPECT_EQ(*deadlines_.scheduler().RunOnce(), 0);
  EXPECT_FALSE(analyst_.entered.HasBeenNotified());
  EXPECT_EQ(Latest().outcome(), set.outcome);
}

}  // namespace
}  // namespace arbitration::testing
