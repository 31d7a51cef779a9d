// Claim rights by article and edition: B5b (a player's claim under 7.2-7.5 lost once he touched
// a piece: the C3 ILLEGAL_MOVE claim and a player's claim of an illegal move, 7.4a), B4's clock
// setting (SetClocks refused once each player completed three moves), and 2023 4.4.4 (the promotion
// piece final once it touched the promotion square) from an electronic board. Each case gives the
// position, the clocks and the expected ruling.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/board_feed.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/arbitration/touch_move.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/pgn.h"

namespace arbitration::testing {
namespace {

using ::testing::HasSubstr;

struct Options {
  v1::Edition edition = v1::EDITION_FIDE_2001;
  std::string time_control = "G/25";  // rapid (B1); "G/5" blitz (C1), "G/90" standard
  std::string fen;
};

// A game driven through Decide, as the service and `game simulate` drive it.
class Table : public StartedTable {
 public:
  explicit Table(const Options& o = {})
      : StartedTable({.edition = o.edition, .time_control = o.time_control, .fen = o.fen}) {}
  // The board's reports (a relay service), one a millisecond apart.
  absl::Status Feed(const std::vector<std::string>& reports, std::int64_t at_ms) {
    return Do(BoardFeedOf(reports, at_ms), FeedEndMs(reports, at_ms));
  }
  // The player to move lifts the piece on `square` and puts it back (4.3: touched).
  absl::Status TouchAndRelease(absl::string_view square, std::int64_t at_ms) {
    Board b(game_->position());
    const char piece = chess::FenChar(game_->position().PieceOn(*chess::ParseSquare(square)));
    return Feed({b.Lift(square), b.Put(square, piece)}, at_ms);
  }
  // 7.4a: `offender`'s illegal move at `ply`, reported by `role` ("player": the opponent's claim).
  absl::Status Report(Color offender, std::string from, std::string to, std::int64_t ply,
                      absl::string_view role, std::int64_t at_ms) {
    return Do(IllegalMoveReport(offender, std::move(from), std::move(to), ply, "reported", role),
              at_ms);
  }
  // 7.4a, B5: `claimant` claims that the opponent's move at `ply` (from-to) was illegal.
  absl::Status Claim(Color claimant, std::string from, std::string to, std::int64_t ply,
                     std::int64_t at_ms) {
    return Do(IllegalMoveClaim(claimant, std::move(from), std::move(to), ply), at_ms);
  }
  absl::Status Complete(Color side, std::string from, std::string to, std::int64_t at_ms) {
    return Do(CompletedIllegalMove(side, std::move(from), std::move(to)), at_ms);
  }
  absl::Status ClaimIllegal(Color side, std::int64_t at_ms) {
    return Do(IllegalMoveClaimOf(side), at_ms);
  }
  absl::Status SetClocks(std::int64_t white_ms, std::int64_t black_ms, std::string article,
                         std::int64_t at_ms) {
    Command c{.kind = CommandKind::kSetClocks, .reason = "the clock was set to 15 minutes"};
    c.actor.set_role("arbiter");
    c.clocks.set_white_ms(white_ms);
    c.clocks.set_black_ms(black_ms);
    c.article = std::move(article);
    return Do(c, at_ms);
  }
};

// --- 9.4: the right to claim under 9.2 / 9.3 ------------------------------------------------

// 2023 9.4: "If a player touches a piece as in Article 4.3, he loses the right to claim under
// Articles 9.2 or 9.3 on that move." 2023 G/90 standard from the start: 1.Nf3 Nf6 2.Ng1 Ng8
// 3.Nf3 Nf6 4.Ng1; Black is to play Ng8 (the third time), but first touches his knight on f6 on
// the board: the claim is refused and changes nothing.
TEST(Article9_4_2023, ATouchedPieceCostsTheDrawClaim) {
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "5400"});
  const std::int64_t at = t.Play({"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"}, 1000);
  ASSERT_OK(t.TouchAndRelease("f6", at));
  const std::int64_t version = t.game().version();
  EXPECT_THAT(t.Do({.kind = CommandKind::kClaim,
                    .side = kB,
                    .move = "Ng8",
                    .claim = v1::CLAIM_KIND_THREEFOLD},
                   at + 1000),
              HasErrorCode("ERR_CLAIM_RIGHT_LOST"));
  EXPECT_EQ(t.game().version(), version);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
}

// 2001 9.4: "Wenn ein Spieler einen Zug macht, ohne ... remis beansprucht zu haben, verliert er
// für diesen Zug das Recht dazu": only the move costs it. The same touch, the claim is correct.
TEST(Article9_4_2001, OnlyTheMoveCostsTheDrawClaim) {
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/90"});
  const std::int64_t at = t.Play({"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"}, 1000);
  ASSERT_OK(t.TouchAndRelease("f6", at));
  ASSERT_OK(t.Do(
      {.kind = CommandKind::kClaim, .side = kB, .move = "Ng8", .claim = v1::CLAIM_KIND_THREEFOLD},
      at + 1000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_EQ(t.result(), Result::kDraw);
}

// --- B5b with C3: the blitz claim on a completed illegal move
// -------------------------------------

// 2001 blitz (G/5), 1.e4 e5, White's knight g1-g4 completed by the clock (C3). Black touches his
// knight b8 before claiming: B5b (through C2) has taken his right; the game goes on.
TEST(B5b2001, IllegalMoveClaimLostOnceTheClaimantTouchedAPiece) {
  Table t({.time_control = "G/5"});
  std::int64_t at = t.Play({"e4", "e5"}, 1'000);
  ASSERT_OK(t.Complete(kW, "g1", "g4", at));
  ASSERT_OK(t.TouchAndRelease("b8", at + 1'000));
  EXPECT_THAT(t.ClaimIllegal(kB, at + 2'000), HasErrorCode("ERR_CLAIM_RIGHT_LOST"));
  EXPECT_THAT(t.ClaimIllegal(kB, at + 2'000).message(), HasSubstr("B5b"));
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
}

// The same without the touch: C3 gives Black the win.
TEST(B5b2001, IllegalMoveClaimBeforeAnyTouchWins) {
  Table t({.time_control = "G/5"});
  std::int64_t at = t.Play({"e4", "e5"}, 1'000);
  ASSERT_OK(t.Complete(kW, "g1", "g4", at));
  ASSERT_OK(t.ClaimIllegal(kB, at + 1'000));
  EXPECT_EQ(t.result(), Result::kBlackWins);
}

// The offender's own touches before his illegal move are his turn's: they end with the move the
// clock completed (C3) and do not cost the claimant his right.
TEST(B5b2001, TheOffendersTouchesAreNotTheClaimants) {
  Table t({.time_control = "G/5"});
  std::int64_t at = t.Play({"e4", "e5"}, 1'000);
  ASSERT_OK(t.TouchAndRelease("g1", at));
  ASSERT_TRUE(t.game().touches().TouchedThisTurn());
  ASSERT_OK(t.Complete(kW, "g1", "g4", at + 1'000));
  EXPECT_FALSE(t.game().touches().TouchedThisTurn());
  ASSERT_OK(t.ClaimIllegal(kB, at + 2'000));
  EXPECT_EQ(t.result(), Result::kBlackWins);
}

// 2005 (Article 7 and the appendices as 2001): the same loss, cited as 2001's.
TEST(B5b2005, IllegalMoveClaimLostAsIn2001) {
  Table t({.edition = v1::EDITION_FIDE_2005, .time_control = "G/5"});
  std::int64_t at = t.Play({"e4", "e5"}, 1'000);
  ASSERT_OK(t.Complete(kW, "g1", "g4", at));
  ASSERT_OK(t.TouchAndRelease("b8", at + 1'000));
  absl::Status st = t.ClaimIllegal(kB, at + 2'000);
  EXPECT_THAT(st, HasErrorCode("ERR_CLAIM_RIGHT_LOST"));
  EXPECT_THAT(st.message(), HasSubstr("B5b (as 2001)"));
}

// 1997 (seed 004): B5 has no clause b); C3 lets the claim stand until Black moves.
TEST(B5b1997, NoLossOfTheRightByATouch) {
  Table t({.edition = v1::EDITION_FIDE_1997, .time_control = "G/5"});
  std::int64_t at = t.Play({"e4", "e5"}, 1'000);
  ASSERT_OK(t.Complete(kW, "g1", "g4", at));
  ASSERT_OK(t.TouchAndRelease("b8", at + 1'000));
  ASSERT_OK(t.ClaimIllegal(kB, at + 2'000));
  EXPECT_EQ(t.result(), Result::kBlackWins);
}

// --- B5b with 7.4a: a player's claim of the opponent's illegal move
// -------------------------------

// 2001 rapid (G/25): 1.e4 e5 2.Nf3, every move validated by the server. Black, to move, touches
// his knight b8 and then claims that 2.Nf3 was illegal: lost (B5b: "Der Spieler verliert ... das
// Recht, einen Antrag zu stellen gemäß der Artikel 7.2 bis 7.5 ..., sobald er eine Figur berührt
// hat"). A player's report is never a finding: refused as such; the arbiter's own finding (he saw
// the knight go to g4 on the board) is still corrected (7.4a) with 7.4b's two minutes.
TEST(B5b2001, PlayersClaimLostOnceHeTouchedAPiece) {
  Table t;
  std::int64_t at = t.Play({"e4", "e5", "Nf3"}, 1'000);
  ASSERT_OK(t.TouchAndRelease("b8", at));
  absl::Status st = t.Claim(kB, "g1", "f3", 2, at + 1'000);
  EXPECT_THAT(st, HasErrorCode("ERR_CLAIM_RIGHT_LOST"));
  EXPECT_THAT(st.message(), HasSubstr("B5b"));
  EXPECT_THAT(t.Report(kW, "g1", "g4", 2, "player", at + 1'000),
              HasErrorCode("ERR_CLAIM_NOT_ALLOWED"));
  EXPECT_EQ(t.game().illegal_moves(kW), 0);
  ASSERT_OK(t.Report(kW, "g1", "g4", 2, "arbiter", at + 1'000));
  EXPECT_EQ(t.game().illegal_moves(kW), 1);
  EXPECT_EQ(t.game().standing_plies(), 2);
}

// Before a touch the claim is answered by the record: 2.Nf3 was validated (legal), nothing
// changes; once Black has moved since (his move touched a piece) the right is lost (B5b).
TEST(B5b2001, PlayersClaimBeforeATouchAndAfterHisMove) {
  Table before;
  std::int64_t at = before.Play({"e4", "e5", "Nf3"}, 1'000);
  const std::int64_t version = before.game().version();
  EXPECT_THAT(before.Claim(kB, "g1", "f3", 2, at + 1'000), HasErrorCode("ERR_MOVE_WAS_VALIDATED"));
  EXPECT_EQ(before.game().version(), version);
  EXPECT_EQ(before.game().illegal_moves(kW), 0);
  EXPECT_EQ(before.ms(kB, at + 1'000), 1'500'000 - 1'000 - 2'000);  // his own clock ran on

  Table after;
  at = after.Play({"e4", "e5", "Nf3", "Nc6"}, 1'000);
  EXPECT_THAT(after.Claim(kB, "g1", "f3", 2, at), HasErrorCode("ERR_CLAIM_RIGHT_LOST"));
}

// Standard play (G/90) has no B5b; 2023 rapid neither (4.8 covers Article 4 only): after a touch
// the claim is still answered by the record (validated).
TEST(B5b, NotInStandardPlayNorUnder2023) {
  for (const Options& o : {Options{.time_control = "G/90"},
                           Options{.edition = v1::EDITION_FIDE_2023, .time_control = "G/25"}}) {
    Table t(o);
    std::int64_t at = t.Play({"e4", "e5", "Nf3"}, 1'000);
    ASSERT_OK(t.TouchAndRelease("b8", at));
    EXPECT_THAT(t.Claim(kB, "g1", "f3", 2, at + 1'000), HasErrorCode("ERR_MOVE_WAS_VALIDATED"))
        << o.time_control;
    EXPECT_EQ(t.game().illegal_moves(kW), 0);
  }
}

// --- B4: the clock setting ----------------------------------------------------------------------

// 2001 rapid (G/25): while either player has completed fewer than three moves the arbiter corrects
// the setting; once each has completed three, B4 refuses it (6.11, a replaced defective clock,
// still sets the new clock).
TEST(B4_2001, ClockSettingCorrectedOnlyBeforeThreeMovesEach) {
  Table t;
  std::int64_t at = t.Play({"e4", "e5", "Nf3", "Nc6", "Bc4"}, 1'000);  // White 3, Black 2
  ASSERT_OK(t.SetClocks(900'000, 900'000, "", at));
  EXPECT_EQ(t.ms(kW, at), 900'000);
  at = t.Play({"Bc5"}, at + 1'000);  // three each
  absl::Status st = t.SetClocks(800'000, 800'000, "", at);
  EXPECT_THAT(st, HasErrorCode("ERR_CLOCK_SETTING_FINAL"));
  EXPECT_THAT(st.message(), HasSubstr("B4:"));
  EXPECT_THAT(t.SetClocks(800'000, 800'000, "6.14", at), HasErrorCode("ERR_CLOCK_SETTING_FINAL"));
  ASSERT_OK(t.SetClocks(800'000, 700'000, "6.11", at));
  EXPECT_EQ(t.ms(kB, at), 700'000);
}

// Per edition: 1997 blitz and 2005 rapid refuse after three moves each (cited by edition); standard
// play and 2023 rapid do not.
TEST(B4, ClockSettingPerEdition) {
  struct Case {
    Options options;
    bool refused;
    std::string article;
  };
  const std::vector<Case> cases = {
      {{.edition = v1::EDITION_FIDE_1997, .time_control = "G/5"}, true, "B4 (1997)"},
      {{.edition = v1::EDITION_FIDE_2005, .time_control = "G/25"}, true, "B4 (as 2001)"},
      {{.edition = v1::EDITION_FIDE_2001, .time_control = "G/90"}, false, ""},
      {{.edition = v1::EDITION_FIDE_2023, .time_control = "G/25"}, false, ""},
  };
  for (const Case& c : cases) {
    Table t(c.options);
    const std::int64_t at = t.Play({"e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"}, 1'000);
    absl::Status st = t.SetClocks(200'000, 200'000, "", at);
    if (c.refused) {
      EXPECT_THAT(st, HasErrorCode("ERR_CLOCK_SETTING_FINAL")) << c.options.time_control;
      EXPECT_THAT(st.message(), HasSubstr(c.article));
    } else {
      EXPECT_OK(st) << c.options.time_control;
      EXPECT_EQ(t.ms(kW, at), 200'000);
    }
  }
}

// --- 2023 4.4.4: the promotion's piece, final once it touched the promotion square ---------------

constexpr char kPawnOnE7[] = "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1";

// 2023 (the arbiter acts himself): White puts a queen on e8 with the pawn still on e7 (4.6.2:
// either order), takes it back and puts a knight there, then lifts the pawn. The queen touched e8
// first: the knight promotion is refused and ruled (4.4.4), the queen owed; the queen then
// completes it.
TEST(Article4_4_4_2023, ThePieceThatTouchedTheSquareIsFinal) {
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "G/90", .fen = kPawnOnE7});
  Board b(t.game().position());
  ASSERT_OK(t.Feed({b.Put("e8", 'Q')}, 1'000));
  std::optional<OwedMove> owed =
      CurrentObligation(t.game().touches(), t.game().position(), t.game().ruleset());
  ASSERT_TRUE(owed.has_value());
  EXPECT_EQ(owed->obligation.article, "4.4.4");
  EXPECT_THAT(owed->obligation.AllowedUci(), ::testing::ElementsAre("e7e8q"));
  EXPECT_TRUE(owed->enforced);
  ASSERT_OK(t.Feed({b.Lift("e8"), b.Put("e8", 'N'), b.Lift("e7")}, 2'000));
  EXPECT_EQ(t.game().plies(), 0);  // not made
  v1::ArbitrationEvent ruled;
  for (std::int64_t i = 0; i < t.game().version(); ++i) {
    if (t.game().event(i).has_touch_move_ruled()) ruled = t.game().event(i);
  }
  ASSERT_TRUE(ruled.has_touch_move_ruled());
  EXPECT_EQ(ruled.touch_move_ruled().article(), "4.4.4");
  EXPECT_EQ(ruled.touch_move_ruled().move_uci(), "e7e8n");
  ASSERT_OK(t.Feed({b.Lift("e8"), b.Put("e8", 'Q')}, 3'000));
  ASSERT_EQ(t.game().plies(), 1);
  EXPECT_EQ(t.game().san(0), "e8=Q");
  EXPECT_THAT(t.Comments(), HasSubstr("4.4.4: White puts Q on e8 to promote"));
  // The log replays to the same game (the promotion touches read back).
  absl::StatusOr<GameState> replayed = GameState::Replay(t.game().events());
  ASSERT_OK(replayed.status());
  EXPECT_EQ(replayed->san(0), "e8=Q");
  EXPECT_EQ(replayed->version(), t.game().version());
}

// The seeds' editions have no such rule (2001 4.7 binds a piece released on a square, not the
// choice of piece): the same board makes the knight promotion, and no promotion touch is recorded.
TEST(Article4_4_4_2023, NotInThe2001Laws) {
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/90", .fen = kPawnOnE7});
  Board b(t.game().position());
  ASSERT_OK(t.Feed({b.Put("e8", 'Q')}, 1'000));
  EXPECT_FALSE(
      CurrentObligation(t.game().touches(), t.game().position(), t.game().ruleset()).has_value());
  ASSERT_OK(t.Feed({b.Lift("e8"), b.Put("e8", 'N'), b.Lift("e7")}, 2'000));
  ASSERT_EQ(t.game().plies(), 1);
  EXPECT_EQ(t.game().san(0), "e8=N+");
}

// The board's view: a queen moved to the last rank is not a promotion piece (no more queens than
// the position has); a new queen on a square no promotion reaches is not one either.
TEST(Article4_4_4_2023, OnlyANewPieceOnAPromotionSquare) {
  const chess::Position p = *chess::ParseFen("7k/3QP3/8/8/8/8/8/4K3 w - - 0 1");
  Board moved(p);
  moved.Lift("d7");
  absl::StatusOr<Placement> next = ParsePlacement(moved.Put("e8", 'Q'));
  ASSERT_OK(next.status());
  for (const Observation& o : Observe(p, PlacementOf(p), *next, false, true)) {
    EXPECT_NE(o.kind, Observation::Kind::kPromotionPiece);
  }
  Board added(p);
  next = ParsePlacement(added.Put("a8", 'Q'));  // no pawn reaches a8
  ASSERT_OK(next.status());
  for (const Observation& o : Observe(p, PlacementOf(p), *next, false, true)) {
    EXPECT_NE(o.kind, Observation::Kind::kPromotionPiece);
  }
}

// --- What GameView shows: the obligation per edition and speed
// ------------------------------------

// The initial position, White touches his knight g1: 4.3a owed (g1f3, g1h3); enforced in standard
// play, only on claim in 2001 rapid (B5a); 2023 numbers it 4.3.1. Nothing touched: nothing shown.
TEST(GameViewObligation, PerEditionAndSpeed) {
  struct Case {
    Options options;
    std::string article;
    bool enforced;
  };
  const std::vector<Case> cases = {
      {{.edition = v1::EDITION_FIDE_2001, .time_control = "G/90"}, "4.3a", true},
      {{.edition = v1::EDITION_FIDE_2001, .time_control = "G/25"}, "4.3a", false},
      {{.edition = v1::EDITION_FIDE_2023, .time_control = "G/5"}, "4.3.1", true},
  };
  for (const Case& c : cases) {
    Table t(c.options);
    EXPECT_FALSE(
        CurrentObligation(t.game().touches(), t.game().position(), t.game().ruleset()).has_value());
    ASSERT_OK(t.TouchAndRelease("g1", 1'000));
    std::optional<OwedMove> owed =
        CurrentObligation(t.game().touches(), t.game().position(), t.game().ruleset());
    ASSERT_TRUE(owed.has_value());
    EXPECT_EQ(owed->obligation.article, c.article);
    EXPECT_EQ(owed->enforced, c.enforced);
    EXPECT_THAT(owed->obligation.AllowedUci(), ::testing::ElementsAre("g1f3", "g1h3"));
  }
}

}  // namespace
}  // namespace arbitration::testing
