// By article and edition: irregularities (Article 7, Appendix B4, C3), a player who
// stops the clocks (6.13b, d) and the arbiter's powers (12.4, 12.7, 12.8, 13.4). Each case gives
// the position, the clocks and the expected ruling.
#include "libs/arbitration/irregularities.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/pgn.h"

namespace arbitration::testing {
namespace {

using ::testing::HasSubstr;

// A game driven through Decide, as the service and `game simulate` drive it (the edition, time
// control, position and the regulations' extra time of 7.5.5 given).
class Table : public StartedTable {
 public:
  using StartedTable::StartedTable;

  // 7.4a: the arbiter reports an illegal move at `ply` (nullopt: now).
  absl::Status Report(std::string from, std::string to, std::int64_t at_ms,
                      std::optional<std::int64_t> ply = std::nullopt,
                      std::optional<Color> side = std::nullopt) {
    return Do(IllegalMoveReport(side, std::move(from), std::move(to), ply, "seen by the arbiter"),
              at_ms);
  }
  // C3: `side` makes an illegal move and presses the clock.
  absl::Status Complete(Color side, std::string from, std::string to, std::int64_t at_ms) {
    return Do(CompletedIllegalMove(side, std::move(from), std::move(to)), at_ms);
  }
  // 7.4a, B5: `claimant` (a player) claims the opponent's move from-to at `ply` was illegal.
  absl::Status PlayerClaim(Color claimant, std::string from, std::string to, std::int64_t at_ms,
                           std::optional<std::int64_t> ply = std::nullopt) {
    return Do(IllegalMoveClaim(claimant, std::move(from), std::move(to), ply), at_ms);
  }
  absl::Status ClaimIllegal(Color side, std::int64_t at_ms) {
    return Do({.kind = CommandKind::kClaim, .side = side, .claim = v1::CLAIM_KIND_ILLEGAL_MOVE},
              at_ms);
  }
  absl::Status Irregularity(std::string article, std::int64_t at_ms, bool replay = false,
                            std::optional<std::int64_t> ply = std::nullopt) {
    Command c{.kind = CommandKind::kRuleIrregularity, .reason = "found by the arbiter"};
    c.article = std::move(article);
    c.irregular.replay = replay;
    c.irregular.ply = ply;
    return Do(c, at_ms);
  }
  absl::Status Power(v1::ArbiterPower power, std::optional<Color> side, std::int64_t at_ms,
                     std::optional<double> points = std::nullopt) {
    Command c{.kind = CommandKind::kUsePower, .side = side, .reason = "the arbiter's decision"};
    c.irregular.power = power;
    c.irregular.points = points;
    return Do(c, at_ms);
  }

  v1::ArbitrationEvent last() const { return game_->event(game_->version() - 1); }
  std::vector<std::string> StandingSans() const {
    std::vector<std::string> out;
    for (std::int64_t i = 0; i < game_->plies(); ++i) {
      if (!game_->retracted(i)) out.emplace_back(game_->san(i));
    }
    return out;
  }
  // The record replays to the same state, and its PGN reads back and replays by the Laws.
  void ExpectRecordHolds() const {
    absl::StatusOr<GameState> replayed = GameState::Replay(game_->events());
    ASSERT_OK(replayed.status());
    EXPECT_EQ(chess::ToFen(replayed->position()), chess::ToFen(game_->position()));
    EXPECT_EQ(replayed->standing_plies(), game_->standing_plies());
    EXPECT_EQ(replayed->Points(), game_->Points());
    absl::StatusOr<std::vector<chess::PgnGame>> pgn = chess::ParsePgn(ExportPgn(*game_));
    ASSERT_OK(pgn.status());
    ASSERT_EQ(pgn->size(), 1u);
    EXPECT_OK(chess::ReplayGame(&(*pgn)[0])) << ExportPgn(*game_);
  }
};

// --- 7.4 illegal moves found ---------------------------------------------------------------------

// 2001 standard (7.4b): White's first and second illegal moves give Black +2 min each; the
// third loses. 4.3: the king of the attempted move must make the replacing move (7.4a).
TEST(Article7_4, Standard2001TwoMinutesTwiceThenTheThirdLoses) {
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/90"});
  std::int64_t at = t.Play({"e4", "e5"}, 1000);
  const std::int64_t black_before = t.ms(kB, at);
  ASSERT_OK(t.Report("e1", "e3", at));  // a king's jump: White to move, nothing retracted
  EXPECT_EQ(t.ms(kB, at), black_before + 120'000);
  EXPECT_EQ(t.game().illegal_moves(kW), 1);
  ASSERT_TRUE(t.game().must_move().has_value());
  EXPECT_EQ(chess::SquareName(*t.game().must_move()), "e1");
  EXPECT_THAT(t.Move(kW, "Nf3", at + 1000), HasErrorCode("ERR_TOUCH_MOVE_OWED"));
  ASSERT_OK(t.Move(kW, "Ke2", at + 1000));
  at = t.Play({"Nc6"}, at + 2000);
  ASSERT_OK(t.Report("e2", "e5", at));  // second: +2 min again
  EXPECT_EQ(t.game().illegal_moves(kW), 2);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  ASSERT_OK(t.Report("d1", "d8", at + 1000));  // third: lost
  EXPECT_EQ(t.result(), Result::kBlackWins);
  EXPECT_EQ(t.game().outcome().termination, Termination::kIllegalMoves);
  EXPECT_EQ(t.game().outcome().article, "7.4b");
  ASSERT_EQ(t.game().illegal_ledger().size(), 3u);
  EXPECT_EQ(t.game().illegal_ledger()[2].move(), "d1-d8");
  t.ExpectRecordHolds();
  EXPECT_THAT(t.Comments(), HasSubstr("illegal moves: White 3, Black 0"));
}

// 2023 standard (7.5.5): the first gives the opponent two minutes, the second loses.
TEST(Article7_4, Standard2023TheSecondLoses) {
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "5400+30"});
  std::int64_t at = t.Play({"e4"}, 1000);
  const std::int64_t white_before = t.ms(kW, at);
  ASSERT_OK(t.Report("e7", "e4", at));  // Black's pawn captures straight ahead
  EXPECT_EQ(t.ms(kW, at), white_before + 120'000);
  at = t.Play({"e5", "Nf3"}, at + 1000);
  ASSERT_OK(t.Report("d8", "d1", at));
  EXPECT_EQ(t.result(), Result::kWhiteWins);
  EXPECT_EQ(t.game().outcome().article, "7.5.5 (2023)");
}

// 7.4a ("Wenn während der Partie festgestellt wird"): only the arbiter finds. A player's claim
// names a move in the record; every move here came through the server, which played it only
// after finding it legal, so no illegal move stands: each claim is refused and changes nothing
// (2023 standard: it would have given White two minutes and bound Black to his knight).
TEST(Article7_4, APlayersClaimOfAValidatedMoveChangesNothing) {
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "5400+30"});
  std::int64_t at = t.Play({"e4", "Nf6"}, 1000);
  const std::int64_t version = t.game().version();
  const std::int64_t white = t.ms(kW, at);
  const std::string fen = chess::ToFen(t.game().position());
  // Black's move, named as recorded (at ply 1, or his last move when no ply is named).
  EXPECT_THAT(t.PlayerClaim(kW, "g8", "f6", at, 1), HasErrorCode("ERR_MOVE_WAS_VALIDATED"));
  EXPECT_THAT(t.PlayerClaim(kW, "g8", "f6", at), HasErrorCode("ERR_MOVE_WAS_VALIDATED"));
  // A move the record does not hold: other squares, a ply beyond it, one's own move.
  EXPECT_THAT(t.PlayerClaim(kW, "g8", "g6", at), HasErrorCode("ERR_MOVE_NOT_IN_RECORD"));
  EXPECT_THAT(t.PlayerClaim(kW, "g8", "f6", at, 7), HasErrorCode("ERR_MOVE_NOT_IN_RECORD"));
  EXPECT_THAT(t.PlayerClaim(kW, "e2", "e4", at, 0), HasErrorCode("ERR_MOVE_NOT_IN_RECORD"));
  EXPECT_THAT(t.PlayerClaim(kW, "zz", "f6", at), HasErrorCode("ERR_BAD_ARGUMENT"));
  // A player's report is no finding.
  Command report{.kind = CommandKind::kReportIllegalMove, .side = kB};
  report.actor.set_role("player");
  report.irregular.from = "g8";
  report.irregular.to = "g6";
  EXPECT_THAT(t.Do(report, at), HasErrorCode("ERR_CLAIM_NOT_ALLOWED"));
  EXPECT_EQ(t.game().version(), version);
  EXPECT_EQ(t.ms(kW, at), white);
  EXPECT_EQ(chess::ToFen(t.game().position()), fen);
  EXPECT_EQ(t.game().illegal_moves(kB), 0);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
}

// Before any move nothing stands in the record to claim.
TEST(Article7_4, APlayersClaimBeforeAnyMove) {
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "900+10"});
  EXPECT_THAT(t.PlayerClaim(kB, "e2", "e5", 1000), HasErrorCode("ERR_MOVE_NOT_IN_RECORD"));
  EXPECT_EQ(t.game().version(), 2);
}

// 2023 rapid: the amount for the first is the regulations' (here one minute).
TEST(Article7_4, Rapid2023TheRegulationsSetTheTime) {
  Table t({.edition = v1::EDITION_FIDE_2023,
           .time_control = "900+10",
           .illegal_move_extra_ms = 60'000});
  EXPECT_EQ(t.game().ruleset().speed, laws::SpeedCategory::kRapid);
  const std::int64_t black_before = t.ms(kB, 1000);
  ASSERT_OK(t.Report("e1", "e2", 1000));  // own pawn on e2
  EXPECT_EQ(t.ms(kB, 1000), black_before + 60'000);
}

// 7.4b / 7.5.5: the offender's opponent has a lone king and cannot mate: drawn, not lost.
TEST(Article7_4, DrawnInsteadWhenTheOpponentCannotMate) {
  Table t({.edition = v1::EDITION_FIDE_2023,
           .time_control = "5400",
           .fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"});
  ASSERT_OK(t.Report("a1", "b2", 1000));
  ASSERT_OK(t.Move(kW, "Ra2", 2000));  // 4.3: the rook
  ASSERT_OK(t.Move(kB, "Kd7", 3000));
  ASSERT_OK(t.Report("e1", "e3", 4000));
  EXPECT_EQ(t.result(), Result::kDraw);
  EXPECT_EQ(t.game().outcome().termination, Termination::kIllegalMoves);
  const v1::ArbitrationEvent& ended = t.last();
  ASSERT_TRUE(ended.has_ended());
  EXPECT_FALSE(ended.ended().proof().empty());
}

// 7.4b (2001; 2005 as 2001): "nach dem dritten regelwidrigen Zug desselben Spielers erklärt der
// Schiedsrichter die Partie für ihn für verloren": no exception for an opponent who cannot mate
// (that is 2023's 7.5.5). Black has a bare king against White's rook; White's third illegal move
// loses all the same.
TEST(Article7_4, ThirdIllegalMoveLosesEvenAgainstABareKing2001) {
  for (v1::Edition edition : {v1::EDITION_FIDE_2001, v1::EDITION_FIDE_2005}) {
    Table t({.edition = edition, .time_control = "G/90", .fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"});
    ASSERT_OK(t.Report("a1", "b2", 1000));
    ASSERT_OK(t.Move(kW, "Ra2", 2000));  // 4.3: the rook
    ASSERT_OK(t.Move(kB, "Kd7", 3000));
    ASSERT_OK(t.Report("e1", "e3", 4000));
    ASSERT_OK(t.Move(kW, "Ke2", 5000));  // 4.3: the king
    ASSERT_OK(t.Move(kB, "Kd6", 6000));
    ASSERT_OK(t.Report("e2", "e4", 7000));  // the third
    EXPECT_EQ(t.result(), Result::kBlackWins) << v1::Edition_Name(edition);
    EXPECT_EQ(t.game().outcome().termination, Termination::kIllegalMoves);
    EXPECT_EQ(t.game().outcome().article,
              edition == v1::EDITION_FIDE_2001 ? "7.4b" : "7.4b (as 2001)");
    t.ExpectRecordHolds();
  }
}

// 7.4a: "Falls die Stellung unmittelbar vor dem Regelverstoß nicht bestimmt werden kann, wird die
// Partie aus der letzten bekannten Stellung vor dem Regelverstoß heraus weitergespielt". 2001
// G/90, 1.e4 e5 2.Nf3 Nc6: White's illegal knight move f3-d5 was made somewhere after 1...e5, in a
// position nobody can set up; the arbiter names the last known one (ply 2) and play resumes
// there, the penalty as 7.4b has it.
TEST(Article7_4, PositionUnknownResumesFromTheLastKnown) {
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/90"});
  t.Play({"e4", "e5", "Nf3", "Nc6"}, 1000);
  Command c{.kind = CommandKind::kReportIllegalMove, .side = kW, .reason = "found late"};
  c.irregular.from = "f3";
  c.irregular.to = "d5";
  c.irregular.ply = 2;
  // Checked against ply 2, where no knight stands on f3: refused without the arbiter's word.
  EXPECT_THAT(t.Do(c, 10'000), HasErrorCode("ERR_BAD_ARGUMENT"));
  c.irregular.position_unknown = true;
  c.irregular.ply.reset();
  EXPECT_THAT(t.Do(c, 10'000), HasErrorCode("ERR_BAD_ARGUMENT"));  // the last known is named
  c.irregular.ply = 2;
  const std::int64_t black = t.ms(kB, 10'000);
  ASSERT_OK(t.Do(c, 10'000));
  std::optional<v1::ArbitrationEvent> reported;
  for (std::int64_t i = 0; i < t.game().version(); ++i) {
    if (t.game().event(i).has_illegal_move_reported()) reported = t.game().event(i);
  }
  ASSERT_TRUE(reported.has_value());
  EXPECT_TRUE(reported->illegal_move_reported().position_unknown());
  EXPECT_EQ(reported->illegal_move_reported().retracted_plies(), 2);
  EXPECT_EQ(chess::ToFen(t.game().position()),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
  EXPECT_EQ(t.game().illegal_moves(kW), 1);
  EXPECT_GE(t.ms(kB, 10'000), black);  // 6.14, then +2 minutes (7.4b)
  EXPECT_THAT(ExportPgn(t.game()), HasSubstr("cannot be determined"));
  t.ExpectRecordHolds();
}

// 7.3: "Wenn ein Spieler eine oder mehrere Figuren verschiebt": the displacer is named, and he
// need not be the player on move (Black knocked over pieces while White thinks).
TEST(Article7_3, TheDisplacerIsNamedWhoeverIsOnMove) {
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/90"});
  t.Play({"e4", "e5"}, 1000);
  ASSERT_EQ(t.game().to_move(), kW);
  Command c{.kind = CommandKind::kRuleIrregularity, .reason = "Black's sleeve"};
  c.article = "7.3";
  c.irregular.displaced_by = kB;
  ASSERT_OK(t.Do(c, 5000));
  const v1::ArbitrationEvent& restored = t.last();
  ASSERT_TRUE(restored.has_position_restored());
  EXPECT_EQ(restored.position_restored().side(), v1::COLOR_BLACK);
  EXPECT_FALSE(restored.position_restored().position_unknown());
  EXPECT_THAT(ExportPgn(t.game()), HasSubstr("Black displaced"));
  // 7.3 has no "cannot be determined" clause; 7.5 has, and names no displacer.
  c.irregular.position_unknown = true;
  c.irregular.ply = 1;
  EXPECT_THAT(t.Do(c, 6000), HasErrorCode("ERR_BAD_ARGUMENT"));
  c.article = "7.5";
  EXPECT_THAT(t.Do(c, 6000), HasErrorCode("ERR_BAD_ARGUMENT"));
  c.irregular.displaced_by.reset();
  ASSERT_OK(t.Do(c, 6000));
  EXPECT_TRUE(t.last().position_restored().position_unknown() ||
              t.game().event(t.game().version() - 2).position_restored().position_unknown());
  t.ExpectRecordHolds();
}

// 7.4a: found later: the position before it restored from the log, the moves after it taken
// back, the clocks to the times the log recorded there (6.14), 4.3 on the replacing move.
TEST(Article7_4, FoundLaterThePositionAndClocksComeFromTheLog) {
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/90"});
  ASSERT_OK(t.Move(kW, "e4", 10'000));
  ASSERT_OK(t.Move(kB, "e5", 30'000));
  const std::int64_t white_after_e4 = t.ms(kW, 30'000);
  const std::int64_t black_after_e5 = t.ms(kB, 30'000);
  t.Play({"Nf3", "Nc6"}, 60'000);
  EXPECT_THAT(t.Report("e2", "e4", 70'000, 0), HasErrorCode("ERR_MOVE_WAS_LEGAL"));
  EXPECT_THAT(t.Report("f1", "b6", 70'000, 2, kB), HasErrorCode("ERR_BAD_ARGUMENT"));
  ASSERT_OK(t.Report("f1", "b6", 70'000, 2));  // White's second move was Bf1-b6
  EXPECT_EQ(chess::ToFen(t.game().position()),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
  EXPECT_EQ(t.ms(kW, 70'000), white_after_e4);
  EXPECT_EQ(t.ms(kB, 70'000), black_after_e5 + 120'000);  // 7.4b after the 6.14 setting
  EXPECT_EQ(t.game().clock().moves(kW), 1);
  EXPECT_EQ(t.game().clock().running(), kW);
  EXPECT_THAT(t.Move(kW, "Nf3", 71'000), HasErrorCode("ERR_TOUCH_MOVE_OWED"));
  ASSERT_OK(t.Move(kW, "Bc4", 71'000));
  EXPECT_EQ(t.StandingSans(), (std::vector<std::string>{"e4", "e5", "Bc4"}));
  absl::StatusOr<chess::Game> whole = t.game().FullGame();
  ASSERT_OK(whole.status());
  EXPECT_EQ(whole->moves().size(), 3u);
  t.ExpectRecordHolds();
  EXPECT_THAT(t.Comments(), HasSubstr("taken back: Nf3 Nc6"));
}

// 7.4a with 4.3b/c: White's knight on e2, pinned, "took" the pawn on d4. The knight cannot
// move, so the pawn it went for must be captured (the other knight can); 4.3b the same when
// White moved Black's pawn itself.
TEST(Article7_4, TheTouchedOpponentsPieceMustBeCaptured) {
  const std::string fen = "4r1k1/8/8/8/3p4/8/2N1N3/4K3 w - - 0 1";
  for (const auto& [from, to] : {std::pair{"e2", "d4"}, std::pair{"d4", "d3"}}) {
    Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/90", .fen = fen});
    ASSERT_OK(t.Report(from, to, 1000)) << from;
    EXPECT_FALSE(t.game().must_move().has_value());
    ASSERT_TRUE(t.game().must_capture().has_value());
    EXPECT_EQ(chess::SquareName(*t.game().must_capture()), "d4");
    EXPECT_THAT(t.Move(kW, "Kd1", 2000), HasErrorCode("ERR_TOUCH_MOVE_OWED"));
    ASSERT_OK(t.Move(kW, "c2d4", 2000));
    t.ExpectRecordHolds();
  }
}

// 6.14: the arbiter's own clock setting wins over the log's.
TEST(Article7_4, TheArbitersClockSetting) {
  Table t;
  t.Play({"e4", "e5", "Nf3"}, 1000);
  Command c{.kind = CommandKind::kReportIllegalMove, .reason = "reported by Black"};
  c.irregular.from = "g1";
  c.irregular.to = "g3";
  c.irregular.ply = 2;
  c.irregular.white_ms = 5'000'000;
  c.irregular.black_ms = 5'100'000;
  ASSERT_OK(t.Do(c, 10'000));
  EXPECT_EQ(t.ms(kW, 10'000), 5'000'000);
  EXPECT_EQ(t.ms(kB, 10'000), 5'100'000 + 120'000);
}

// 6.13a then 7.4a: the arbiter stops the clocks, sorts it out (moves taken back, the log's times,
// 7.4b), and restarts them: the clocks stand still meanwhile.
TEST(Article7_4, DuringAnInterruption) {
  Table t;
  std::int64_t at = t.Play({"e4", "e5", "Nf3", "Nc6"}, 1000);
  ASSERT_OK(t.Do({.kind = CommandKind::kPause, .reason = "an illegal move reported"}, at));
  ASSERT_OK(t.Report("f1", "b6", at + 60'000, 2));
  EXPECT_TRUE(t.game().paused());
  const std::int64_t white = t.ms(kW, at + 60'000);
  EXPECT_EQ(t.ms(kW, at + 120'000), white);  // still stopped
  ASSERT_OK(t.Do({.kind = CommandKind::kResume}, at + 120'000));
  EXPECT_EQ(t.ms(kW, at + 121'000), white - 1'000);
  t.ExpectRecordHolds();
}

// 7.3: pieces displaced by a player are put back on his own time: nothing taken back, the clocks
// untouched (unless the arbiter sets them).
TEST(Article7_3, OnTheOffendersOwnTime) {
  Table t;
  std::int64_t at = t.Play({"e4", "e5"}, 1000);
  const std::int64_t white = t.ms(kW, at + 5000);
  ASSERT_OK(t.Irregularity("7.3", at + 5000));
  EXPECT_EQ(t.ms(kW, at + 5000), white);
  EXPECT_EQ(t.game().clock().running(), kW);
  EXPECT_TRUE(t.last().has_position_restored());
}

// --- C3: blitz under the 1997-2005 appendices
// -----------------------------------------------------

// 2001 blitz: the illegal move is complete once the clock is pressed; the opponent claims the
// win before moving.
TEST(AppendixC3, Blitz2001TheOpponentClaimsTheWin) {
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/5"});
  ASSERT_EQ(t.game().ruleset().speed, laws::SpeedCategory::kBlitz);
  std::int64_t at = t.Play({"e4", "e5"}, 1000);
  EXPECT_THAT(t.Complete(kW, "e2", "e4", at), HasErrorCode("ERR_BAD_ARGUMENT"));  // no piece
  EXPECT_THAT(t.Complete(kW, "g1", "f3", at), HasErrorCode("ERR_MOVE_WAS_LEGAL"));
  ASSERT_OK(t.Complete(kW, "e1", "e3", at));
  EXPECT_EQ(t.game().to_move(), kB);
  EXPECT_EQ(t.game().clock().running(), kB);
  EXPECT_EQ(t.game().completed_illegal(), kW);
  EXPECT_THAT(t.ClaimIllegal(kW, at + 500), HasErrorCode("ERR_NO_ILLEGAL_MOVE_TO_CLAIM"));
  ASSERT_OK(t.ClaimIllegal(kB, at + 1000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_EQ(t.result(), Result::kBlackWins);
  EXPECT_EQ(t.game().outcome().termination, Termination::kIllegalMoves);
  EXPECT_EQ(t.game().outcome().article, "C3");
  t.ExpectRecordHolds();
}

// C3: the opponent moves instead: the illegal move stands and play goes on from the position it
// made; the claim and the correction are gone.
TEST(AppendixC3, OnceTheOpponentMovesTheIllegalMoveStands) {
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/5"});
  std::int64_t at = t.Play({"e4", "e5"}, 1000);
  ASSERT_OK(t.Complete(kW, "e1", "e3", at));
  ASSERT_OK(t.Move(kB, "Nc6", at + 1000));
  EXPECT_FALSE(t.game().completed_illegal().has_value());
  EXPECT_THAT(t.ClaimIllegal(kB, at + 1500), HasErrorCode("ERR_NO_ILLEGAL_MOVE_TO_CLAIM"));
  EXPECT_THAT(t.Report("e1", "e3", at + 1500, 2), HasErrorCode("ERR_ILLEGAL_MOVE_STANDS"));
  ASSERT_OK(t.Move(kW, "Kd3", at + 2000));  // the king on e3 plays on
  ASSERT_OK(t.Move(kB, "Nf6", at + 3000));
  EXPECT_EQ(t.game().standing_plies(), 6);
  EXPECT_EQ(t.game().illegal_moves(kW), 1);
  absl::StatusOr<chess::Game> whole = t.game().FullGame();
  ASSERT_OK(whole.status());
  EXPECT_EQ(whole->moves().size(), 3u);  // from the position the illegal move made
  t.ExpectRecordHolds();
  const std::string pgn = ExportPgn(t.game());
  EXPECT_THAT(pgn,
              HasSubstr("[FEN \"rnbqkbnr/pppp1ppp/8/4p3/4P3/4K3/PPPP1PPP/RNBQ1BNR b kq - 1 2\"]"));
  EXPECT_THAT(t.Comments(), HasSubstr("the moves before the illegal move: e4 e5"));
}

// C3 (2001): the claimant cannot mate the offender by any series of legal moves: a draw.
TEST(AppendixC3, Blitz2001DrawWhenTheClaimantCannotMate) {
  Table t({.edition = v1::EDITION_FIDE_2001,
           .time_control = "G/5",
           .fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"});
  ASSERT_OK(t.Complete(kW, "a1", "b2", 1000));
  ASSERT_OK(t.ClaimIllegal(kB, 2000));
  EXPECT_EQ(t.result(), Result::kDraw);
  EXPECT_EQ(t.game().outcome().termination, Termination::kIllegalMoves);
}

// 1997 C3 with C4: to win a player needs mating potential; two knights against a lone king do
// not have it (C4's own example), while 2001 asks only for some series of legal moves.
TEST(AppendixC3, Blitz1997NeedsMatingPotential) {
  const std::string fen = "4k3/8/8/8/8/8/8/4K1nn w - - 0 1";
  Table t97({.edition = v1::EDITION_FIDE_1997, .time_control = "G/5", .fen = fen});
  ASSERT_OK(t97.Complete(kW, "e1", "e3", 1000));
  ASSERT_OK(t97.ClaimIllegal(kB, 2000));
  EXPECT_EQ(t97.result(), Result::kDraw);
  EXPECT_EQ(t97.game().outcome().article, "C3 (1997)");
  Table t01({.edition = v1::EDITION_FIDE_2001, .time_control = "G/5", .fen = fen});
  ASSERT_OK(t01.Complete(kW, "e1", "e3", 1000));
  ASSERT_OK(t01.ClaimIllegal(kB, 2000));
  EXPECT_EQ(t01.result(), Result::kBlackWins);
}

// C3: an illegal move that leaves the mover's king in check leaves no position to play on.
TEST(AppendixC3, NoPlayablePosition) {
  Table t({.edition = v1::EDITION_FIDE_2005,
           .time_control = "G/5",
           .fen = "4k3/4r3/8/8/8/8/8/R3K3 w - - 0 1"});
  ASSERT_OK(t.Complete(kW, "a1", "a2", 1000));
  EXPECT_TRUE(t.game().unplayable());
  EXPECT_THAT(t.Move(kB, "Kd8", 2000), HasErrorCode("ERR_NO_PLAYABLE_POSITION"));
  ASSERT_OK(t.ClaimIllegal(kB, 2000));
  EXPECT_EQ(t.result(), Result::kBlackWins);
  EXPECT_EQ(t.game().outcome().article, "C3 (as 2001)");
  t.ExpectRecordHolds();
  // Without the claim, the arbiter corrects it (7.4a): counted once, White's clock runs again;
  // the rook cannot move (the king must), so no piece is owed (4.5).
  Table u({.edition = v1::EDITION_FIDE_2005,
           .time_control = "G/5",
           .fen = "4k3/4r3/8/8/8/8/8/R3K3 w - - 0 1"});
  ASSERT_OK(u.Complete(kW, "a1", "a2", 1000));
  ASSERT_OK(u.Report("a1", "a2", 3000));
  EXPECT_FALSE(u.game().unplayable());
  EXPECT_EQ(u.game().illegal_moves(kW), 1);
  EXPECT_EQ(u.game().to_move(), kW);
  EXPECT_EQ(u.game().clock().running(), kW);
  EXPECT_EQ(u.game().clock().moves(kW), 0);
  EXPECT_FALSE(u.game().must_move().has_value());
  ASSERT_OK(u.Move(kW, "Kd1", 4000));
  u.ExpectRecordHolds();
}

// C3 is blitz under 1997-2005 only: standard 2001 and blitz 2023 correct the move (7.4a).
TEST(AppendixC3, NotInStandardOr2023) {
  Table standard({.edition = v1::EDITION_FIDE_2001, .time_control = "G/90"});
  EXPECT_THAT(standard.Complete(kW, "e1", "e3", 1000),
              HasErrorCode("ERR_ILLEGAL_MOVE_NOT_COMPLETE"));
  Table blitz({.edition = v1::EDITION_FIDE_2023, .time_control = "180+2"});
  EXPECT_THAT(blitz.Complete(kW, "e1", "e3", 1000), HasErrorCode("ERR_ILLEGAL_MOVE_NOT_COMPLETE"));
}

// --- 7.1, 7.2, 7.3, 7.5, B4
// -----------------------------------------------------------------------

// 7.1a: a wrong initial position annuls the game; B4 (rapid): not after three moves each.
TEST(Article7_1, AnnulledAndB4InRapid) {
  Table standard;
  standard.Play({"e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "d3"}, 1000);
  ASSERT_OK(standard.Irregularity("7.1a", 10'000));
  EXPECT_EQ(standard.result(), Result::kAnnulled);
  EXPECT_EQ(standard.game().outcome().article, "7.1a");

  Table rapid({.edition = v1::EDITION_FIDE_2001, .time_control = "G/30"});
  std::int64_t at = rapid.Play({"e4", "e5", "Nf3", "Nc6", "Bc4"}, 1000);
  ASSERT_OK(rapid.Irregularity("7.1b", at));  // two moves of Black's: still claimable
  EXPECT_EQ(rapid.game().status(), GameStatus::kOngoing);
  at = rapid.Play({"Bc5"}, at);
  EXPECT_THAT(rapid.Irregularity("7.1a", at), HasErrorCode("ERR_IRREGULARITY_TOO_LATE"));
}

// 7.2: colours reversed: 2001 the game continues unless the arbiter decides otherwise; 2023
// 7.3: under ten moves by both, a new game.
TEST(Article7_2, ColoursReversedPerEdition) {
  Table t2001;
  t2001.Play({"e4", "e5"}, 1000);
  ASSERT_OK(t2001.Irregularity("7.2", 5000));
  EXPECT_EQ(t2001.game().status(), GameStatus::kOngoing);
  ASSERT_OK(t2001.Irregularity("7.2", 6000, /*replay=*/true));
  EXPECT_EQ(t2001.result(), Result::kAnnulled);

  Table t2023({.edition = v1::EDITION_FIDE_2023, .time_control = "5400+30"});
  t2023.Play({"e4", "e5"}, 1000);
  ASSERT_OK(t2023.Irregularity("7.2", 5000));
  EXPECT_EQ(t2023.result(), Result::kAnnulled);
  EXPECT_EQ(t2023.game().outcome().article, "7.3 (2023)");
}

// 7.5: displaced pieces found: the position before the irregularity, the clocks per 6.14.
TEST(Article7_5, DisplacedPiecesRestored) {
  Table t;
  t.Play({"d4", "d5", "c4", "e6"}, 1000);
  ASSERT_OK(t.Irregularity("7.5", 10'000, false, 2));
  EXPECT_EQ(chess::ToFen(t.game().position()),
            "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2");
  EXPECT_EQ(t.game().standing_plies(), 2);
  ASSERT_TRUE(t.last().has_clocks_set());
  EXPECT_EQ(t.last().clocks_set().article(), "6.14");
  ASSERT_OK(t.Move(kW, "Nf3", 11'000));  // no touched piece owed after 7.5
  t.ExpectRecordHolds();
  EXPECT_THAT(t.Irregularity("7.4", 12'000), HasErrorCode("ERR_BAD_ARGUMENT"));
}

// --- 6.13b, d
// -------------------------------------------------------------------------------------

TEST(Article6_13, APlayerStopsTheClocksAndThePenalty) {
  Table t;
  std::int64_t at = t.Play({"e4", "e5"}, 1000);
  Command stop{.kind = CommandKind::kStopClocks, .side = kW, .reason = "opponent's phone rings"};
  ASSERT_OK(t.Do(stop, at));
  EXPECT_TRUE(t.game().paused());
  EXPECT_EQ(t.game().stopped_by(), kW);
  EXPECT_THAT(t.Move(kW, "Nf3", at + 1000), HasErrorCode("ERR_GAME_PAUSED"));
  const std::int64_t black = t.ms(kB, at);
  Command rule{.kind = CommandKind::kRuleStop, .reason = "no valid reason", .delta_ms = 60'000};
  rule.irregular.penalty = "13.4b";
  ASSERT_OK(t.Do(rule, at + 5000));
  EXPECT_EQ(t.ms(kB, at + 5000), black + 60'000);
  EXPECT_THAT(t.Do(rule, at + 6000), HasErrorCode("ERR_NO_STOP_TO_RULE"));
  ASSERT_OK(t.Do({.kind = CommandKind::kResume}, at + 7000));
  ASSERT_OK(t.Move(kW, "Nf3", at + 8000));
  // A valid reason: no penalty, and none may be given.
  Command stop2{.kind = CommandKind::kStopClocks, .side = kB, .reason = "no queen to promote"};
  ASSERT_OK(t.Do(stop2, at + 9000));
  Command valid{.kind = CommandKind::kRuleStop, .reason = "valid", .delta_ms = 60'000};
  valid.irregular.valid = true;
  valid.irregular.penalty = "13.4b";
  EXPECT_THAT(t.Do(valid, at + 9500), HasErrorCode("ERR_BAD_ARGUMENT"));
  valid.irregular.penalty.clear();
  valid.delta_ms = 0;
  ASSERT_OK(t.Do(valid, at + 9500));
  EXPECT_THAT(t.Comments(), HasSubstr("6.13d: the arbiter rules that Black had a valid"));
}

// --- 12, 13.4
// -------------------------------------------------------------------------------------

TEST(Article13_4, WarningLossAndPoints) {
  Table t;
  t.Play({"e4", "e5"}, 1000);
  ASSERT_OK(t.Power(v1::ARBITER_POWER_WARNING, kW, 5000));
  ASSERT_OK(t.Power(v1::ARBITER_POWER_LEAVE_PERMITTED, kB, 5500));  // 12.4
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  EXPECT_THAT(t.Power(v1::ARBITER_POWER_REDUCE_POINTS, kW, 5600), HasErrorCode("ERR_BAD_ARGUMENT"));
  ASSERT_OK(t.Power(v1::ARBITER_POWER_LOSS, kW, 6000));  // 13.4d
  EXPECT_EQ(t.result(), Result::kBlackWins);
  EXPECT_EQ(t.game().outcome().article, "13.4d");
  EXPECT_EQ(t.game().Points(), (std::pair<double, double>{0.0, 1.0}));
  ASSERT_OK(t.Power(v1::ARBITER_POWER_REDUCE_POINTS, kB, 7000, 0.5));    // 13.4e
  ASSERT_OK(t.Power(v1::ARBITER_POWER_INCREASE_POINTS, kW, 8000, 2.0));  // 13.4f: at most 1
  EXPECT_EQ(t.game().Points(), (std::pair<double, double>{1.0, 0.5}));
  EXPECT_THAT(t.Power(v1::ARBITER_POWER_LOSS, kB, 9000), HasErrorCode("ERR_GAME_OVER"));
  t.ExpectRecordHolds();
  const std::string pgn = t.Comments();
  EXPECT_THAT(pgn, HasSubstr("13.4a: the arbiter warns, White"));
  EXPECT_THAT(pgn, HasSubstr("12.4: the arbiter permits to leave the playing venue, Black"));
}

TEST(Article12, PersistentRefusalBothAndExpulsion) {
  Table t127;
  ASSERT_OK(t127.Power(v1::ARBITER_POWER_PERSISTENT_REFUSAL, kW, 1000, 0.5));  // 12.7
  EXPECT_EQ(t127.result(), Result::kBlackWins);
  EXPECT_EQ(t127.game().Points(), (std::pair<double, double>{0.0, 0.5}));
  Table t128;
  ASSERT_OK(t128.Power(v1::ARBITER_POWER_BOTH_REFUSE, std::nullopt, 1000));  // 12.8
  EXPECT_EQ(t128.result(), Result::kDoubleForfeit);
  EXPECT_EQ(t128.game().Points(), (std::pair<double, double>{0.0, 0.0}));
  Table t134g;
  ASSERT_OK(t134g.Power(v1::ARBITER_POWER_EXPULSION, kB, 1000));  // 13.4g
  EXPECT_EQ(t134g.result(), Result::kWhiteWins);
  EXPECT_EQ(t134g.game().outcome().article, "13.4g");
  t134g.ExpectRecordHolds();
}

// Article 7 rows of the ruleset table, per edition.
TEST(Laws, IllegalMovePenaltyTable) {
  laws::Ruleset r2001{laws::Edition::kFide2001, laws::SpeedCategory::kStandard, {}};
  EXPECT_EQ(laws::IllegalMovePenaltyOf(r2001, 2).opponent_add_ms, 120'000);
  EXPECT_TRUE(laws::IllegalMovePenaltyOf(r2001, 3).loses);
  laws::Ruleset r1997{laws::Edition::kFide1997, laws::SpeedCategory::kStandard, {}};
  EXPECT_EQ(laws::IllegalMovePenaltyOf(r1997, 1).article, "7.4b (as 2001)");
  laws::Ruleset r2023{laws::Edition::kFide2023, laws::SpeedCategory::kBlitz, {}};
  EXPECT_TRUE(laws::IllegalMovePenaltyOf(r2023, 2).loses);
  EXPECT_FALSE(laws::CompletedIllegalMoveOf(r2023).applies);
  laws::Ruleset b2005{laws::Edition::kFide2005, laws::SpeedCategory::kBlitz, {}};
  EXPECT_TRUE(laws::CompletedIllegalMoveOf(b2005).applies);
  EXPECT_EQ(laws::SetupClaimRuleOf(b2005).moves, 3);
}

}  // namespace
}  // namespace arbitration::testing
