// An electronic board's feed by article (4.2-4.7, 7.4a, B5 per edition): the placements the board
// reports, what they show, and what the game records from them through the rulings.
#include "libs/arbitration/board_feed.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/arbitration/touch_move.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/chess/testing/fen.h"

namespace arbitration::testing {
namespace {

using ::testing::ElementsAre;
using Kind = Observation::Kind;

using chess::testing::Fen;

// What each report shows, the position standing still (no move applied between reports).
std::vector<std::vector<Observation>> ObserveAll(const chess::Position& p,
                                                 const std::vector<std::string>& reports) {
  std::vector<std::vector<Observation>> out;
  Placement previous = PlacementOf(p);
  for (const std::string& r : reports) {
    absl::StatusOr<Placement> next = ParsePlacement(r);
    EXPECT_OK(next.status()) << r;
    out.push_back(Observe(p, previous, *next, false));
    previous = *next;
  }
  return out;
}

std::vector<Kind> Kinds(const std::vector<Observation>& obs) {
  std::vector<Kind> out;
  for (const Observation& o : obs) out.push_back(o.kind);
  return out;
}

constexpr char kRuyLopez[] = "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4";

TEST(Placement, ParsesFenAndRefusesMalformed) {
  absl::StatusOr<Placement> p_or = ParsePlacement("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
  ASSERT_OK(p_or.status());
  const Placement& p = *p_or;
  EXPECT_EQ(p, PlacementOf(chess::Position::Initial()));
  EXPECT_OK(ParsePlacement(chess::ToFen(chess::Position::Initial())).status());  // a whole FEN
  EXPECT_THAT(ParsePlacement("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP"),
              HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_THAT(ParsePlacement("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
              HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_THAT(ParsePlacement("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
              HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_EQ(PlacementText(p), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
}

// 4.3: a piece lifted is touched; put back on its square it is released, and no move is made.
TEST(Article4_3, LiftAndPutBackIsATouch) {
  const chess::Position p = chess::Position::Initial();
  Board b(p);
  auto obs = ObserveAll(p, {b.Lift("g1"), b.Put("g1", 'N')});
  EXPECT_THAT(Kinds(obs[0]), ElementsAre(Kind::kTouched));
  EXPECT_EQ(chess::SquareName(obs[0][0].square), "g1");
  EXPECT_EQ(chess::FenChar(obs[0][0].piece), 'N');
  EXPECT_THAT(Kinds(obs[1]), ElementsAre(Kind::kReleased));
}

// 4.7: the move is made when the piece is released on its new square.
TEST(Article4_7, LiftAndPutOnANewSquareIsAMove) {
  const chess::Position p = chess::Position::Initial();
  Board b(p);
  auto obs = ObserveAll(p, b.Slide("e2", "e4"));
  EXPECT_THAT(Kinds(obs[0]), ElementsAre(Kind::kTouched));
  ASSERT_THAT(Kinds(obs[1]), ElementsAre(Kind::kMove));
  EXPECT_EQ(chess::ToUci(obs[1][0].move), "e2e4");
}

// 2023 4.7.1 / 2001 4.7: a capture is made once the captured piece is off the board and the
// capturing piece released on its square, whichever was lifted first.
TEST(Article4_7, CaptureInEitherOrder) {
  const chess::Position p = Fen(kRuyLopez);
  {
    Board b(p);
    auto obs = ObserveAll(p, {b.Lift("b5"), b.Lift("c6"), b.Put("c6", 'B')});
    EXPECT_THAT(Kinds(obs[0]), ElementsAre(Kind::kTouched));
    EXPECT_THAT(Kinds(obs[1]), ElementsAre(Kind::kTouched));  // the knight: an enemy piece
    ASSERT_THAT(Kinds(obs[2]), ElementsAre(Kind::kMove));
    EXPECT_EQ(chess::ToUci(obs[2][0].move), "b5c6");
  }
  {
    Board b(p);
    auto obs = ObserveAll(p, {b.Lift("c6"), b.Lift("b5"), b.Put("c6", 'B')});
    ASSERT_THAT(Kinds(obs[2]), ElementsAre(Kind::kMove));
    EXPECT_EQ(chess::ToUci(obs[2][0].move), "b5c6");
  }
}

// 4.3c: own and enemy piece lifted in one report: the own piece counts as touched first.
TEST(Article4_3c, OneReportOwnPieceFirst) {
  const chess::Position p = Fen(kRuyLopez);
  Board b(p);
  b.Lift("c6");
  auto obs = ObserveAll(p, {b.Lift("b5")});
  ASSERT_THAT(Kinds(obs[0]), ElementsAre(Kind::kTouched, Kind::kTouched));
  EXPECT_EQ(chess::SquareName(obs[0][0].square), "b5");
  EXPECT_EQ(chess::SquareName(obs[0][1].square), "c6");
}

// 3.8 / 4.4 / 2023 4.7.2: castling is made once the rook is released beside the king; with the rook
// first, the rook released on f1 is a legal rook move, made (4.7).
TEST(Article4_4, CastlingKingFirstRookFirst) {
  const chess::Position p = Fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  {
    Board b(p);
    auto obs = ObserveAll(p, {b.Lift("e1"), b.Put("g1", 'K'), b.Lift("h1"), b.Put("f1", 'R')});
    EXPECT_THAT(Kinds(obs[1]), ElementsAre());  // the king on g1: not a move yet
    ASSERT_THAT(Kinds(obs[3]), ElementsAre(Kind::kMove));
    EXPECT_EQ(chess::ToUci(obs[3][0].move), "e1g1");
  }
  {
    Board b(p);
    auto obs = ObserveAll(p, {b.Lift("h1"), b.Put("f1", 'R')});
    ASSERT_THAT(Kinds(obs[1]), ElementsAre(Kind::kMove));
    EXPECT_EQ(chess::ToUci(obs[1][0].move), "h1f1");
  }
}

// 3.7d: en passant is made once the captured pawn (beside the destination) is off the board.
TEST(Article4_7, EnPassant) {
  const chess::Position p = Fen("rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
  Board b(p);
  auto obs = ObserveAll(p, {b.Lift("e5"), b.Put("d6", 'P'), b.Lift("d5")});
  EXPECT_THAT(Kinds(obs[1]), ElementsAre());
  ASSERT_THAT(Kinds(obs[2]), ElementsAre(Kind::kTouched, Kind::kMove));
  EXPECT_EQ(chess::ToUci(obs[2][1].move), "e5d6");
}

// 3.7e / 2023 4.7.3: promotion is made when the new piece stands on the square, the pawn removed.
TEST(Article4_7, PromotionWhenTheNewPieceIsOnTheSquare) {
  const chess::Position p = Fen("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1");
  Board b(p);
  auto obs = ObserveAll(p, {b.Lift("e7"), b.Put("e8", 'P'), b.Lift("e8"), b.Put("e8", 'N')});
  EXPECT_THAT(Kinds(obs[1]), ElementsAre());  // the pawn on e8: not a move
  ASSERT_THAT(Kinds(obs[3]), ElementsAre(Kind::kMove));
  EXPECT_EQ(chess::ToUci(obs[3][0].move), "e7e8n");
}

TEST(BoardFeed, ResultSignalAndIllegalMoveStood) {
  const chess::Position p = Fen("8/8/8/3k4/8/8/8/4K3 w - - 0 1");
  Board b(p);
  b.Lift("e1");
  b.Lift("d5");
  b.Put("d5", 'K');
  const std::string signal = b.Put("e4", 'k');  // both on light squares: 1-0
  auto obs = ObserveAll(p, {signal});
  ASSERT_THAT(Kinds(obs[0]), ElementsAre(Kind::kResultSignal));
  EXPECT_EQ(obs[0][0].result, laws::Result::kWhiteWins);
  Board dark(p);
  dark.Lift("e1");
  dark.Lift("d5");
  dark.Put("d4", 'K');
  EXPECT_EQ(ObserveAll(p, {dark.Put("e5", 'k')})[0][0].result, laws::Result::kBlackWins);
  // The king e1 to e3: no legal move; reported with the clock pressed, the illegal move stood.
  Board illegal(p);
  illegal.Lift("e1");
  absl::StatusOr<Placement> next_or = ParsePlacement(illegal.Put("e3", 'K'));
  ASSERT_OK(next_or.status());
  const Placement& next = *next_or;
  EXPECT_THAT(Kinds(Observe(p, PlacementOf(p), next, true)),
              ElementsAre(Kind::kTouched, Kind::kIllegalStood));
  EXPECT_THAT(Kinds(Observe(p, PlacementOf(p), next, false)), ElementsAre(Kind::kTouched));
}

// --- The feed through the rulings ---------------------------------------------------------------

class Table : public StartedTable {
 public:
  explicit Table(const TableOptions& o = {})
      : StartedTable(o), board_(std::make_unique<Board>(game_->position())) {}
  // Reports of the board at `at_ms`, one a millisecond apart.
  absl::Status Feed(const std::vector<std::string>& reports, std::int64_t at_ms,
                    bool pressed = false, bool adjust = false) {
    return Do(BoardFeedOf(reports, at_ms, pressed, adjust), FeedEndMs(reports, at_ms));
  }
  absl::Status Claim(Color side, std::int64_t at_ms) {
    return Do({.kind = CommandKind::kClaim, .side = side, .claim = v1::CLAIM_KIND_TOUCH_MOVE},
              at_ms);
  }
  // 7.4a, B5: `claimant` claims the opponent's illegal move from-to standing now.
  absl::Status ClaimIllegal(Color claimant, std::string from, std::string to, std::int64_t at_ms) {
    return Do(IllegalMoveClaim(claimant, std::move(from), std::move(to)), at_ms);
  }
  absl::Status Rule(v1::RulingDecision decision, std::int64_t at_ms) {
    Command c{.kind = CommandKind::kRule, .decision = decision, .reason = "seen on the board"};
    c.actor.set_role("arbiter");
    return Do(c, at_ms);
  }
  Board& board() { return *board_; }
  // The last event of the kind `has`.
  std::optional<v1::ArbitrationEvent> Last(bool (v1::ArbitrationEvent::*has)() const) const {
    for (std::int64_t i = game_->version() - 1; i >= 0; --i) {
      if ((game_->event(i).*has)()) return game_->event(i);
    }
    return std::nullopt;
  }

 private:
  std::unique_ptr<Board> board_;
};

// The reports of several slides, one after the other.
std::vector<std::string> Slides(Board& board,
                                const std::vector<std::pair<std::string, std::string>>& moves) {
  std::vector<std::string> out;
  for (const auto& [from, to] : moves) {
    for (std::string& r : board.Slide(from, to)) out.push_back(std::move(r));
  }
  return out;
}

TEST(FeedGame, MovesFromTheBoardAreMadeWithTheClock) {
  Table t;
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 10'000));
  ASSERT_EQ(t.game().plies(), 1);
  EXPECT_EQ(t.game().san(0), "e4");
  EXPECT_EQ(t.game().to_move(), kB);
  // The press at the board's instant: White used 10 s of 90 minutes.
  EXPECT_EQ(t.game().RemainingMs(kW, 20'000), 5'400'000 - 10'001);
  ASSERT_TRUE(t.Last(&v1::ArbitrationEvent::has_piece_touched));
  EXPECT_EQ(t.Last(&v1::ArbitrationEvent::has_piece_touched)->piece_touched().square(), "e2");
  ASSERT_OK(t.Feed(t.board().Slide("e7", "e5"), 20'000));
  EXPECT_EQ(t.game().plies(), 2);
  // A report that changes nothing records nothing.
  const std::int64_t version = t.game().version();
  ASSERT_OK(t.Feed({PlacementText(t.board().placement())}, 30'000));
  EXPECT_EQ(t.game().version(), version);
}

// 2023 4.7.3 / 3.7e: promotion from the board, through the rulings (a knight: K+N v K is dead,
// 5.2b, and the game ends at once); en passant and a capture in the other order likewise.
TEST(FeedGame, PromotionEnPassantAndCaptureFromTheBoard) {
  Table q({.fen = "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"});
  ASSERT_OK(q.Feed({q.board().Lift("e7"), q.board().Put("e8", 'Q')}, 1'000));
  ASSERT_EQ(q.game().plies(), 1);
  EXPECT_EQ(q.game().san(0), "e8=Q");
  Table n({.fen = "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"});
  ASSERT_OK(n.Feed({n.board().Lift("e7"), n.board().Put("e8", 'N')}, 1'000));
  EXPECT_EQ(n.game().san(0), "e8=N+");
  EXPECT_EQ(n.game().status(), GameStatus::kEnded);
  EXPECT_EQ(n.game().outcome().termination, laws::Termination::kDeadPosition);
  Table ep({.fen = "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"});
  ASSERT_OK(
      ep.Feed({ep.board().Lift("d5"), ep.board().Lift("e5"), ep.board().Put("d6", 'P')}, 1'000));
  ASSERT_EQ(ep.game().plies(), 1);
  EXPECT_EQ(ep.game().san(0), "exd6");
  // The touches were the enemy pawn, then the own pawn: 4.3c, satisfied.
  EXPECT_EQ(ep.game().touches().last_turn()->touches.size(), 2u);
}

// Standard play, an arbiter present: he acts himself (4.3a). The pawn move after touching the
// knight is not made; the knight is owed, by the board and by SubmitMove alike.
TEST(FeedGame, StandardTheArbiterEnforcesTouchMove) {
  Table t;
  ASSERT_OK(t.Feed({t.board().Lift("g1"), t.board().Put("g1", 'N')}, 1'000));
  EXPECT_EQ(t.game().plies(), 0);
  EXPECT_THAT(t.Do({.kind = CommandKind::kMove, .side = kW, .move = "e4"}, 2'000),
              HasErrorCode("ERR_TOUCH_MOVE_OWED"));
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 3'000));
  EXPECT_EQ(t.game().plies(), 0);
  std::optional<v1::ArbitrationEvent> ruled = t.Last(&v1::ArbitrationEvent::has_touch_move_ruled);
  ASSERT_TRUE(ruled);
  EXPECT_TRUE(ruled->touch_move_ruled().violation());
  EXPECT_EQ(ruled->touch_move_ruled().article(), "4.3a");
  EXPECT_EQ(ruled->touch_move_ruled().move_uci(), "e2e4");
  EXPECT_THAT(ruled->touch_move_ruled().owed_uci(), ElementsAre("g1f3", "g1h3"));
  EXPECT_EQ(ruled->touch_move_ruled().claimant(), v1::COLOR_UNSPECIFIED);  // the arbiter himself
  // The pawn back, the knight out: made.
  ASSERT_OK(t.Feed(Slides(t.board(), {{"e4", "e2"}, {"g1", "f3"}}), 4'000));
  ASSERT_EQ(t.game().plies(), 1);
  EXPECT_EQ(t.game().san(0), "Nf3");
}

// 2023 (any speed with adequate supervision): the arbiter acts himself; 4.3.1 is 2001's 4.3a.
TEST(FeedGame, Edition2023NumbersTheParagraphs) {
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "G/5"});
  ASSERT_OK(t.Feed({t.board().Lift("g1"), t.board().Put("g1", 'N')}, 1'000));
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 2'000));
  EXPECT_EQ(t.game().plies(), 0);
  EXPECT_EQ(t.Last(&v1::ArbitrationEvent::has_touch_move_ruled)->touch_move_ruled().article(),
            "4.3.1");
}

// 4.4b: the rook touched before the king; castling is not made (the rook is owed).
TEST(FeedGame, StandardCastlingRookFirstIsRefused) {
  Table t({.fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"});
  Board& b = t.board();
  ASSERT_OK(t.Feed({b.Lift("h1"), b.Put("h1", 'R'), b.Lift("e1"), b.Put("g1", 'K'), b.Lift("h1"),
                    b.Put("f1", 'R')},
                   1'000));
  EXPECT_EQ(t.game().plies(), 0);
  std::optional<v1::ArbitrationEvent> ruled = t.Last(&v1::ArbitrationEvent::has_touch_move_ruled);
  ASSERT_TRUE(ruled);
  EXPECT_EQ(ruled->touch_move_ruled().article(), "4.4b");
  EXPECT_EQ(ruled->touch_move_ruled().move_uci(), "e1g1");
  // King first: castled (4.4a).
  Table k({.fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"});
  Board& kb = k.board();
  ASSERT_OK(k.Feed({kb.Lift("e1"), kb.Put("g1", 'K'), kb.Lift("h1"), kb.Put("f1", 'R')}, 1'000));
  ASSERT_EQ(k.game().plies(), 1);
  EXPECT_EQ(k.game().san(0), "O-O");
}

// 4.2: "j'adoube" announced first: the knight adjusted owes nothing.
TEST(FeedGame, JAdoubeAnnouncedFirst) {
  Table t;
  ASSERT_OK(t.Feed({t.board().Lift("g1"), t.board().Put("g1", 'N')}, 1'000, false,
                   /*adjust=*/true));
  ASSERT_TRUE(t.Last(&v1::ArbitrationEvent::has_adjust_announced));
  EXPECT_EQ(t.Last(&v1::ArbitrationEvent::has_adjust_announced)->adjust_announced().article(),
            "4.2");
  EXPECT_TRUE(t.Last(&v1::ArbitrationEvent::has_piece_touched)->piece_touched().adjusting());
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 2'000));
  EXPECT_EQ(t.game().plies(), 1);
}

// 4.5: the bishop c1 touched cannot move: any move.
TEST(FeedGame, TouchedPieceWithoutALegalMoveFreesThePlayer) {
  Table t;
  ASSERT_OK(t.Feed({t.board().Lift("c1"), t.board().Put("c1", 'B')}, 1'000));
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 2'000));
  EXPECT_EQ(t.game().plies(), 1);
}

// B5a (2001 rapid): the arbiter rules on Article 4 only at the opponent's request. The move stands
// until Black claims; the violation stops the clocks for the arbiter.
TEST(FeedGame, RapidTheClaimAfterTheMove) {
  Table t({.time_control = "G/25"});
  ASSERT_OK(t.Feed({t.board().Lift("g1"), t.board().Put("g1", 'N')}, 1'000));
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 2'000));
  ASSERT_EQ(t.game().plies(), 1);
  ASSERT_OK(t.Claim(kB, 5'000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_CORRECT);
  std::optional<v1::ArbitrationEvent> ruled = t.Last(&v1::ArbitrationEvent::has_touch_move_ruled);
  ASSERT_TRUE(ruled);
  EXPECT_TRUE(ruled->touch_move_ruled().violation());
  EXPECT_EQ(ruled->touch_move_ruled().claimant(), v1::COLOR_BLACK);
  EXPECT_TRUE(t.game().paused());
  // Ruled once.
  Command resume{.kind = CommandKind::kResume};
  ASSERT_OK(t.Do(resume, 6'000));
  EXPECT_THAT(t.Claim(kB, 7'000), HasErrorCode("ERR_CLAIM_NOT_ALLOWED"));
}

// After the violation the arbiter restores the position before the move (7.5 / 7.4a, 6.14) and
// restarts the clocks: the touched knight is owed, the pawn move refused.
TEST(FeedGame, RapidTheRestoredPositionOwesTheTouchedPiece) {
  Table t({.time_control = "G/25"});
  ASSERT_OK(t.Feed({t.board().Lift("g1"), t.board().Put("g1", 'N')}, 1'000));
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 2'000));
  ASSERT_OK(t.Claim(kB, 5'000));
  ASSERT_TRUE(t.game().paused());
  EXPECT_EQ(t.Last(&v1::ArbitrationEvent::has_touch_move_ruled)->touch_move_ruled().before_fen(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
  Command restore{.kind = CommandKind::kRuleIrregularity, .reason = "touch-move: 4.3a"};
  restore.article = "7.5";
  restore.irregular.ply = 0;
  ASSERT_OK(t.Do(restore, 6'000));
  ASSERT_EQ(t.game().to_move(), kW);
  ASSERT_OK(t.Do({.kind = CommandKind::kResume}, 7'000));
  EXPECT_THAT(t.Do({.kind = CommandKind::kMove, .side = kW, .move = "e4"}, 8'000),
              HasErrorCode("ERR_TOUCH_MOVE_OWED"));
  ASSERT_OK(t.Do({.kind = CommandKind::kMove, .side = kW, .move = "Nf3"}, 9'000));
}

// The record: touches, the claim and the ruling as comments citing the article.
TEST(FeedGame, PgnCommentsCiteTheArticle) {
  Table t({.time_control = "G/25"});
  ASSERT_OK(t.Feed({t.board().Lift("g1"), t.board().Put("g1", 'N')}, 1'000));
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 2'000));
  ASSERT_OK(t.Claim(kB, 5'000));
  const std::string pgn = ExportPgn(t.game());
  EXPECT_THAT(pgn, ::testing::HasSubstr("4.3: White touches N g1"));
  EXPECT_THAT(pgn,
              ::testing::HasSubstr("4.3a: Black claims touch-move; the arbiter rules: violation"));
}

// B5b / 4.6: Black touched a piece after White's move: the right to claim is lost.
TEST(FeedGame, BlitzClaimRefusedOnceTheClaimantTouchedAPiece) {
  Table t({.time_control = "G/5"});
  ASSERT_OK(t.Feed({t.board().Lift("g1"), t.board().Put("g1", 'N')}, 1'000));
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 2'000));
  ASSERT_OK(t.Feed({t.board().Lift("e7")}, 3'000));
  EXPECT_THAT(t.Claim(kB, 4'000), HasErrorCode("ERR_CLAIM_RIGHT_LOST"));
  EXPECT_FALSE(t.game().paused());
}

// B5a: the claim while the offender is still to move: the touched piece is owed from then on.
TEST(FeedGame, BlitzClaimBeforeTheMoveMakesThePieceOwed) {
  Table t({.time_control = "G/5"});
  ASSERT_OK(t.Feed({t.board().Lift("g1"), t.board().Put("g1", 'N')}, 1'000));
  ASSERT_OK(t.Claim(kB, 1'500));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_CORRECT);
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 2'000));
  EXPECT_EQ(t.game().plies(), 0);  // refused: the knight is owed
  ASSERT_OK(t.Feed(Slides(t.board(), {{"e4", "e2"}, {"g1", "h3"}}), 3'000));
  ASSERT_EQ(t.game().plies(), 1);
  EXPECT_EQ(t.game().san(0), "Nh3");
  // No touches before Black's claim now: nothing owed, the claim is incorrect.
  ASSERT_OK(t.Claim(kB, 4'000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_INCORRECT);
}

// 7.4a: an illegal move stood (the clock pressed): recorded and the clocks stopped.
TEST(FeedGame, IllegalMoveStoodStopsTheClocks) {
  Table t;
  ASSERT_OK(t.Feed(t.board().Slide("f1", "f3"), 1'000, /*pressed=*/true));
  EXPECT_EQ(t.game().plies(), 0);
  EXPECT_TRUE(t.game().paused());
  std::optional<v1::ArbitrationEvent> irregular =
      t.Last(&v1::ArbitrationEvent::has_board_irregularity);
  ASSERT_TRUE(irregular);
  EXPECT_EQ(irregular->board_irregularity().article(), "7.4a");
  EXPECT_EQ(irregular->board_irregularity().side(), v1::COLOR_WHITE);
  // 2023: 7.5.1.
  Table t23({.edition = v1::EDITION_FIDE_2023});
  ASSERT_OK(t23.Feed(t23.board().Slide("f1", "f3"), 1'000, true));
  EXPECT_EQ(t23.Last(&v1::ArbitrationEvent::has_board_irregularity)->board_irregularity().article(),
            "7.5.1");
}

// 7.4a with the player's claim (2001 standard): the board's knight g1-g3 stood (the clock
// pressed). Black claims it; a claim finds nothing by itself: the game awaits the arbiter, who
// upholds it (the 7.4a finding: 7.4b's two minutes for Black, 4.3 on the knight).
TEST(FeedGame, APlayersClaimOfTheBoardsIllegalMoveIsUpheldByTheArbiter) {
  Table t;
  ASSERT_OK(t.Feed(t.board().Slide("g1", "g3"), 1'000, /*pressed=*/true));
  ASSERT_TRUE(t.game().paused());
  const std::int64_t black = t.ms(kB, 2'000);
  const std::int64_t version = t.game().version();
  // Other squares than the board shows, or White claiming his own move: not in the record.
  EXPECT_THAT(t.ClaimIllegal(kB, "g1", "h3", 2'000), HasErrorCode("ERR_MOVE_NOT_IN_RECORD"));
  EXPECT_THAT(t.ClaimIllegal(kW, "g1", "g3", 2'000), HasErrorCode("ERR_MOVE_NOT_IN_RECORD"));
  EXPECT_EQ(t.game().version(), version);
  ASSERT_OK(t.ClaimIllegal(kB, "g1", "g3", 2'000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_PENDING);
  EXPECT_EQ(t.game().status(), GameStatus::kAwaitingRuling);
  EXPECT_EQ(t.game().illegal_moves(kW), 0);
  EXPECT_FALSE(t.game().draw_offer().has_value());  // not a 9.1c claim
  EXPECT_THAT(t.ClaimIllegal(kB, "g1", "g3", 2'500), HasErrorCode("ERR_AWAITING_RULING"));
  EXPECT_THAT(t.Rule(v1::RULING_DECISION_DRAW, 3'000), HasErrorCode("ERR_BAD_RULING"));
  ASSERT_OK(t.Rule(v1::RULING_DECISION_UPHOLD, 3'000));
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  EXPECT_EQ(t.game().illegal_moves(kW), 1);
  EXPECT_EQ(t.ms(kB, 3'000), black + 120'000);  // 7.4b
  EXPECT_TRUE(t.game().paused());               // the board stopped the clocks: 6.13a
  ASSERT_OK(t.Do({.kind = CommandKind::kResume}, 4'000));
  EXPECT_THAT(t.Do({.kind = CommandKind::kMove, .side = kW, .move = "e4"}, 5'000),
              HasErrorCode("ERR_TOUCH_MOVE_OWED"));  // 4.3: the knight
  ASSERT_OK(t.Do({.kind = CommandKind::kMove, .side = kW, .move = "Nf3"}, 5'000));
  // The record says who claimed what and how the arbiter ruled; the claim is no draw offer.
  const std::string comments = t.Comments();
  EXPECT_THAT(comments, ::testing::HasSubstr("Black claims that the opponent's move g1-g3 was "
                                             "illegal"));
  EXPECT_THAT(comments, ::testing::HasSubstr("the arbiter finds the claimed illegal move"));
  EXPECT_THAT(comments, ::testing::Not(::testing::HasSubstr("(=)")));
}

// The arbiter rejects the claim: nothing is found, no time is given, the clocks stay stopped
// until he restarts them.
TEST(FeedGame, APlayersClaimOfTheBoardsIllegalMoveRejected) {
  Table t;
  ASSERT_OK(t.Feed(t.board().Slide("g1", "g3"), 1'000, /*pressed=*/true));
  const std::int64_t black = t.ms(kB, 2'000);
  ASSERT_OK(t.ClaimIllegal(kB, "g1", "g3", 2'000));
  ASSERT_OK(t.Rule(v1::RULING_DECISION_REJECT, 3'000));
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  EXPECT_EQ(t.game().illegal_moves(kW), 0);
  EXPECT_EQ(t.ms(kB, 3'000), black);
  EXPECT_TRUE(t.game().paused());
  std::optional<v1::ArbitrationEvent> ruled = t.Last(&v1::ArbitrationEvent::has_ruled);
  ASSERT_TRUE(ruled);
  EXPECT_EQ(ruled->ruled().article(), "7.4a");
  EXPECT_EQ(ruled->ruled().decision(), v1::RULING_DECISION_REJECT);
}

TEST(FeedGame, TheResultSignalIsRecordedNotRuled) {
  Table t({.fen = "8/8/8/3k4/8/8/8/R3K3 w - - 0 1"});
  Board& b = t.board();
  ASSERT_OK(t.Feed({b.Lift("e1"), b.Lift("d5"), b.Put("d5", 'K'), b.Put("e4", 'k')}, 1'000));
  std::optional<v1::ArbitrationEvent> signal =
      t.Last(&v1::ArbitrationEvent::has_board_result_signal);
  ASSERT_TRUE(signal);
  EXPECT_EQ(signal->board_result_signal().result(), v1::RESULT_WHITE_WINS);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
}

// 9.1: the offer is rejected by touching a piece to move it; not by an adjustment (4.2).
TEST(FeedGame, TouchingAPieceRejectsTheDrawOffer) {
  Table t;
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 1'000));
  ASSERT_OK(t.Do({.kind = CommandKind::kOfferDraw, .side = kW}, 2'000));
  ASSERT_EQ(t.game().draw_offer(), kW);
  ASSERT_OK(t.Feed({t.board().Lift("g8"), t.board().Put("g8", 'n')}, 3'000, false,
                   /*adjust=*/true));
  EXPECT_EQ(t.game().draw_offer(), kW);
  ASSERT_OK(t.Feed({t.board().Lift("e7")}, 4'000));
  EXPECT_EQ(t.game().draw_offer(), std::nullopt);
  ASSERT_TRUE(t.Last(&v1::ArbitrationEvent::has_draw_answered));
  EXPECT_FALSE(t.Last(&v1::ArbitrationEvent::has_draw_answered)->draw_answered().accepted());
}

// After a resignation the arbiter puts the kings on the centre squares: recorded; the result
// stands as it is.
TEST(FeedGame, TheResultSignalAfterTheEnd) {
  Table t({.fen = "8/8/8/3k4/8/8/8/R3K3 w - - 0 1"});
  ASSERT_OK(t.Do({.kind = CommandKind::kResign, .side = kB}, 1'000));
  Board& b = t.board();
  const std::int64_t version = t.game().version();
  ASSERT_OK(t.Feed({b.Lift("a1"), b.Lift("e1"), b.Lift("d5")}, 2'000));
  EXPECT_EQ(t.game().version(), version);  // nothing but the signal is recorded
  ASSERT_OK(t.Feed({b.Put("d4", 'K'), b.Put("d5", 'k')}, 3'000));
  std::optional<v1::ArbitrationEvent> signal =
      t.Last(&v1::ArbitrationEvent::has_board_result_signal);
  ASSERT_TRUE(signal);
  EXPECT_EQ(signal->board_result_signal().result(), v1::RESULT_DRAW);
  EXPECT_EQ(t.game().outcome().result, laws::Result::kWhiteWins);
}

TEST(FeedGame, MalformedFeedIsRefused) {
  Table t;
  EXPECT_THAT(t.Feed({"not a board"}, 1'000), HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_THAT(t.Do({.kind = CommandKind::kBoardFeed}, 1'000), HasErrorCode("ERR_BAD_ARGUMENT"));
}

TEST(FeedGame, ReplayGivesTheSameState) {
  Table t({.time_control = "G/25"});
  ASSERT_OK(t.Feed({t.board().Lift("g1"), t.board().Put("g1", 'N')}, 1'000));
  ASSERT_OK(t.Feed(t.board().Slide("e2", "e4"), 2'000));
  ASSERT_OK(t.Feed({t.board().Lift("e7")}, 3'000));
  absl::StatusOr<GameState> replayed_or = GameState::Replay(t.game().events());
  ASSERT_OK(replayed_or.status());
  const GameState& replayed = *replayed_or;
  EXPECT_EQ(replayed.touches().touches().size(), 1u);
  EXPECT_TRUE(replayed.touches().TouchedThisTurn());
  ASSERT_NE(replayed.touches().last_turn(), nullptr);
  EXPECT_EQ(replayed.touches().placement(), t.game().touches().placement());
}

}  // namespace
}  // namespace arbitration::testing
