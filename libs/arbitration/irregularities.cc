#include "libs/arbitration/irregularities.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/board_feed.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/events.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/laws/proto_convert.h"
#include "libs/laws/ruleset.h"

namespace arbitration {
namespace {

using chess::Color;
using laws::Outcome;
using laws::Termination;

constexpr std::int64_t kMinutesMs = 60'000;

std::string Minutes(std::int64_t ms) {
  if (ms % kMinutesMs == 0) return absl::StrCat(ms / kMinutesMs, " min");
  return absl::StrCat(ms / 1000.0, " s");
}

// Status checks (rulings.cc has the same for its commands).
absl::Status CheckStarted(const GameState& s) {
  if (s.status() == GameStatus::kCreated) {
    return Error(kErrGameNotStarted, "the game has not started (6.5)");
  }
  return absl::OkStatus();
}

absl::Status CheckNotOver(const GameState& s) {
  RETURN_IF_ERROR(CheckStarted(s));
  if (s.status() == GameStatus::kEnded) {
    return Error(kErrGameOver,
                 absl::StrCat("the game is over (", laws::ResultText(s.outcome().result), ", ",
                              s.outcome().article, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckInPlay(const GameState& s) {
  RETURN_IF_ERROR(CheckNotOver(s));
  if (s.status() == GameStatus::kAwaitingRuling) {
    return Error(kErrAwaitingRuling, "a claim awaits the arbiter's ruling; the clocks are stopped");
  }
  return absl::OkStatus();
}

absl::Status CheckNotPaused(const GameState& s) {
  if (s.paused()) {
    return Error(kErrGamePaused,
                 "the clocks are stopped (6.13): play resumes when the arbiter restarts them");
  }
  return absl::OkStatus();
}

absl::StatusOr<chess::Square> SquareArg(absl::string_view name, absl::string_view text) {
  std::optional<chess::Square> sq = chess::ParseSquare(text);
  if (!sq) {
    return Error(kErrBadArgument, absl::StrCat(name, ": a square such as e2, got \"", text, "\""));
  }
  return *sq;
}

chess::PieceType PromotionOf(absl::string_view text) {
  if (text == "q") return chess::PieceType::kQueen;
  if (text == "r") return chess::PieceType::kRook;
  if (text == "b") return chess::PieceType::kBishop;
  if (text == "n") return chess::PieceType::kKnight;
  return chess::PieceType::kNone;
}

// Whether some legal move of `pos` goes from `from` to `to` (with `promotion` when it promotes).
bool IsLegalFromTo(const chess::Position& pos, chess::Square from, chess::Square to,
                   chess::PieceType promotion) {
  for (chess::Move m : pos.LegalMoves()) {
    if (m.from() != from || m.to() != to) continue;
    if (!m.is_promotion() || m.promotion() == promotion) return true;
  }
  return false;
}

bool HasLegalCaptureOn(const chess::Position& pos, chess::Square on) {
  for (chess::Move m : pos.LegalMoves()) {
    if (m.to() == on) return true;
  }
  return false;
}

bool HasLegalMoveFrom(const chess::Position& pos, chess::Square from) {
  for (chess::Move m : pos.LegalMoves()) {
    if (m.from() == from) return true;
  }
  return false;
}

// The standing position at `ply` and the offender's and opponent's times the log recorded there
// (6.14): each side's time after his last move before it (the time control's start when none).
struct PlyView {
  chess::Position position;
  std::int64_t white_ms = 0;
  std::int64_t black_ms = 0;
};

absl::StatusOr<PlyView> ViewAt(const GameState& s, std::int64_t ply) {
  if (ply > s.standing_plies() || ply < 0) {
    return Error(kErrBadArgument, absl::StrCat("ply ", ply, ": the game has ", s.standing_plies(),
                                               " plies standing"));
  }
  if (ply < s.legal_base_ply()) {
    return Error(kErrIllegalMoveStands,
                 absl::StrCat("C3: the completed illegal move at ply ", s.legal_base_ply() - 1,
                              " stands (the opponent moved); no position before it is restored"));
  }
  PlyView v{s.position()};
  if (ply == s.standing_plies()) return v;
  ASSIGN_OR_RETURN(GameState::Standing record, s.StandingRecord());
  v.position = record.positions.at(static_cast<std::size_t>(ply));
  std::int64_t times[2] = {s.time_control().initial_ms(), s.time_control().initial_ms()};
  for (std::int64_t i = 0; i < ply; ++i) {
    const Color mover = record.positions[static_cast<std::size_t>(i)].side_to_move();
    times[chess::Index(mover)] = record.clock_ms[static_cast<std::size_t>(i)];
  }
  v.white_ms = times[0];
  v.black_ms = times[1];
  return v;
}

// 6.14 after a restoration to `ply`: the arbiter's setting, or the log's times when moves were
// taken back; none when the position stands as it is (7.3: on the offender's own time).
absl::Status SetClocksAfter(EventSink& sink, const PlyView& view, bool taken_back,
                            const IrregularArgs& args, absl::string_view reason) {
  v1::ArbitrationEvent e;
  v1::ClocksSet* c = e.mutable_clocks_set();
  c->set_article("6.14");
  if (args.white_ms && args.black_ms) {
    c->set_white_ms(*args.white_ms);
    c->set_black_ms(*args.black_ms);
    c->set_reason(absl::StrCat("the arbiter's setting: ", reason));
  } else if (taken_back) {
    c->set_white_ms(std::max<std::int64_t>(view.white_ms, 1));
    c->set_black_ms(std::max<std::int64_t>(view.black_ms, 1));
    c->set_reason("the times the log recorded at the restored position");
  } else {
    return absl::OkStatus();
  }
  return sink.Add(std::move(e));
}

// 7.4b / 2023 7.5.5: the offender's game is lost. 2023 7.5.5 "however drawn" if `winner` cannot
// mate him by any series of legal moves; 7.4b (2001, and 1997 / 2005 as 2001) knows no such
// exception: "erklärt der Schiedsrichter die Partie für ihn für verloren".
absl::Status EndForIllegalMove(EventSink& sink, Color winner,
                               const laws::IllegalMovePenalty& penalty, Analyst& analyst) {
  if (!penalty.drawn_if_opponent_cannot_mate) {
    return sink.Add(EndedEvent(Outcome::Win(winner, Termination::kIllegalMoves, penalty.article)));
  }
  AnalystAnswer answer = analyst.CanMate(sink.state().position(), winner);
  if (answer.verdict == analysis::Verdict::kUnwinnable) {
    return sink.Add(
        EndedEvent(Outcome::Draw(Termination::kIllegalMoves, penalty.article), answer.proof));
  }
  return sink.Add(EndedEvent(Outcome::Win(winner, Termination::kIllegalMoves, penalty.article),
                             answer.proof, answer.verdict == analysis::Verdict::kUndetermined));
}

// C3: the position an illegal move makes on the board: the piece goes from `from` to `to`,
// taking what stands there; a pawn on the last rank becomes `promotion`. nullopt when no legal
// position results (the mover's king left in check, kings touching, ...).
absl::StatusOr<std::optional<chess::Position>> PositionAfterIllegal(const chess::Position& pos,
                                                                    chess::Square from,
                                                                    chess::Square to,
                                                                    chess::PieceType promotion) {
  const Color mover = pos.side_to_move();
  const chess::Piece piece = pos.PieceOn(from);
  if (chess::IsNone(piece) || chess::ColorOf(piece) != mover) {
    return Error(kErrBadArgument, absl::StrCat("from: no piece of ", SideWord(mover), "'s on ",
                                               chess::SquareName(from)));
  }
  const chess::Piece target = pos.PieceOn(to);
  if (from == to || (!chess::IsNone(target) && chess::ColorOf(target) == mover)) {
    return Error(kErrBadArgument, "to: the square holds a piece of the mover's own");
  }
  chess::Setup setup = pos.ToSetup();
  chess::Piece placed = piece;
  const bool last_rank = chess::RelativeRank(mover, to) == 7;
  if (chess::TypeOf(piece) == chess::PieceType::kPawn && last_rank) {
    // 3.7e: the pawn is exchanged; the record needs to know for what.
    if (promotion == chess::PieceType::kNone) {
      return Error(kErrBadArgument, "promotion: a pawn on the last rank needs q, r, b or n");
    }
    placed = chess::MakePiece(mover, promotion);
  }
  setup.board[from] = chess::Piece::kNone;
  setup.board[to] = placed;
  // Castling rights die with a king or rook that moved or was taken on its square.
  static constexpr std::pair<chess::Square, chess::CastlingRights> kRightsOf[] = {
      {chess::kE1, chess::kWhiteKingSide | chess::kWhiteQueenSide},
      {chess::kE8, chess::kBlackKingSide | chess::kBlackQueenSide},
      {chess::kA1, chess::kWhiteQueenSide},
      {chess::kH1, chess::kWhiteKingSide},
      {chess::kA8, chess::kBlackQueenSide},
      {chess::kH8, chess::kBlackKingSide},
  };
  for (chess::Square sq : {from, to}) {
    for (const auto& [square, rights] : kRightsOf) {
      if (sq == square) setup.castling = setup.castling & ~rights;
    }
  }
  setup.ep_square = chess::kNoSquare;
  const bool zeroing = chess::TypeOf(piece) == chess::PieceType::kPawn || !chess::IsNone(target);
  setup.halfmove_clock = zeroing ? 0 : setup.halfmove_clock + 1;
  if (mover == Color::kBlack) ++setup.fullmove_number;
  setup.turn = ~mover;
  absl::StatusOr<chess::Position> after = chess::Position::FromSetup(setup);
  if (!after.ok()) return std::optional<chess::Position>();
  return std::optional<chess::Position>(*after);
}

// B5b (rapid, blitz; 2001, 2005): a player's claim under 7.2-7.5 is lost once he touched a piece.
// The illegal move was the offender's at `ply`: the claimant touched a piece if he has moved since
// (his move at ply + 1), or if he is to move and the board or the log recorded a touch this turn.
// (While the offender is still to move in the log, this turn's touches are counted as his.) Only a
// player's claim: the arbiter who finds the move himself corrects it (7.4a).
absl::Status CheckClaimRight(const GameState& s, Color claimant, std::int64_t ply, bool by_player) {
  const laws::IrregularityClaimRule rule = laws::IrregularityClaimRuleOf(s.ruleset());
  if (!rule.lost_on_touch || !by_player) return absl::OkStatus();
  if (s.standing_plies() - ply >= 2) {
    return Error(kErrClaimRightLost,
                 absl::StrCat(rule.article, ": ", SideWord(claimant),
                              " has moved since the illegal move (touching a piece); the right to "
                              "claim is lost"));
  }
  if (!s.unplayable() && s.to_move() == claimant && s.touches().TouchedThisTurn()) {
    return Error(kErrClaimRightLost,
                 absl::StrCat(rule.article, ": ", SideWord(claimant),
                              " touched a piece after the illegal move; the right to claim is "
                              "lost"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string SideWord(Color side) { return side == Color::kWhite ? "White" : "Black"; }

absl::Status EventSink::Add(v1::ArbitrationEvent event) {
  event.set_at_ms(now_ms_);
  *event.mutable_actor() = actor_;
  RETURN_IF_ERROR(state_.Apply(event));
  events_.push_back(std::move(event));
  return absl::OkStatus();
}

absl::Status DecideReportIllegalMove(EventSink& sink, std::optional<Color> side,
                                     const IrregularArgs& args, const std::string& reason,
                                     Analyst& analyst) {
  const GameState& s = sink.state();
  RETURN_IF_ERROR(CheckInPlay(s));
  const std::int64_t ply = args.ply.value_or(s.standing_plies());
  const laws::CompletedIllegalMoveRule c3 = laws::CompletedIllegalMoveOf(s.ruleset());
  if (c3.applies && ply < s.standing_plies()) {
    // C3: "Sobald der Gegner seinen eigenen Zug ausgeführt hat, kann ein regelwidriger Zug nicht
    // mehr berichtigt werden."
    return Error(kErrIllegalMoveStands,
                 absl::StrCat(c3.article, ": the opponent has moved since ply ", ply,
                              "; the illegal move stands"));
  }
  if (args.position_unknown && !args.ply) {
    return Error(kErrBadArgument,
                 "7.4a: the position before the illegal move cannot be determined: ply names the "
                 "last position that can be identified");
  }
  ASSIGN_OR_RETURN(PlyView view, ViewAt(s, ply));
  // 7.4a: "Falls die Stellung unmittelbar vor dem Regelverstoß nicht bestimmt werden kann, wird
  // die Partie aus der letzten bekannten Stellung vor dem Regelverstoß heraus weitergespielt":
  // the illegal move was made in a position after `ply` that nobody can set up, so the offender
  // is the one named (else the side to move there) and the move is not checked against it.
  const bool unknown = args.position_unknown;
  const Color offender = unknown && side ? *side : view.position.side_to_move();
  if (!unknown && side && *side != offender) {
    return Error(kErrBadArgument, absl::StrCat("at ply ", ply, " it was ", SideWord(offender),
                                               "'s move, not ", SideWord(*side), "'s"));
  }
  RETURN_IF_ERROR(CheckClaimRight(s, ~offender, ply, args.by_player));
  ASSIGN_OR_RETURN(chess::Square from, SquareArg("from", args.from));
  ASSIGN_OR_RETURN(chess::Square to, SquareArg("to", args.to));
  if (!unknown && chess::IsNone(view.position.PieceOn(from))) {
    return Error(kErrBadArgument,
                 absl::StrCat("from: no piece on ", chess::SquareName(from), " at ply ", ply));
  }
  if (!unknown && IsLegalFromTo(view.position, from, to, PromotionOf(args.promotion))) {
    return Error(kErrMoveWasLegal, absl::StrCat(chess::SquareName(from), "-", chess::SquareName(to),
                                                " is legal at ply ", ply));
  }
  // A C3 move that left no position, corrected here, was counted when it was made.
  const int count = s.illegal_moves(offender) + (s.unplayable() ? 0 : 1);
  const laws::IllegalMovePenalty penalty = laws::IllegalMovePenaltyOf(s.ruleset(), count);
  v1::ArbitrationEvent e;
  v1::IllegalMoveReported* r = e.mutable_illegal_move_reported();
  r->set_side(laws::ToProto(offender));
  r->set_ply(static_cast<std::int32_t>(ply));
  r->set_from(std::string(chess::SquareName(from)));
  r->set_to(std::string(chess::SquareName(to)));
  r->set_promotion(args.promotion);
  r->set_count(count);
  r->set_article("7.4a");
  r->set_fen(chess::ToFen(view.position));
  r->set_retracted_plies(static_cast<std::int32_t>(s.standing_plies() - ply));
  r->set_position_unknown(unknown);
  // 4.3 on the replacing move: the offender's piece of the attempted move must move if it can
  // (4.3a); otherwise the opponent's piece it went for, or an opponent's piece it moved, must be
  // captured if that can be done (4.3b, c). 4.5: nothing owed can be done, any move.
  const chess::Piece piece = view.position.PieceOn(from);
  const chess::Piece target = view.position.PieceOn(to);
  if (unknown && view.position.side_to_move() != offender) {
    // The last known position has the opponent on move: no replacing move of the offender's.
  } else if (!chess::IsNone(piece) && chess::ColorOf(piece) == offender &&
             HasLegalMoveFrom(view.position, from)) {
    r->set_must_move(std::string(chess::SquareName(from)));
  } else if (!chess::IsNone(piece) && chess::ColorOf(piece) != offender &&
             HasLegalCaptureOn(view.position, from)) {
    r->set_must_capture(std::string(chess::SquareName(from)));
  } else if (!chess::IsNone(target) && chess::ColorOf(target) != offender &&
             HasLegalCaptureOn(view.position, to)) {
    r->set_must_capture(std::string(chess::SquareName(to)));
  }
  r->set_reason(reason);
  r->set_ruling(penalty.loses
                    ? absl::StrCat("illegal move ", count, ": the game is lost (", penalty.article,
                                   penalty.drawn_if_opponent_cannot_mate
                                       ? ") unless the opponent cannot mate"
                                       : ")")
                    : absl::StrCat("illegal move ", count, ": ", SideWord(~offender), " +",
                                   Minutes(penalty.opponent_add_ms), " (", penalty.article, ")"));
  const bool taken_back = ply < s.standing_plies();
  RETURN_IF_ERROR(sink.Add(std::move(e)));
  RETURN_IF_ERROR(SetClocksAfter(sink, view, taken_back, args, reason));
  if (penalty.loses) {
    return EndForIllegalMove(sink, ~offender, penalty, analyst);
  }
  return sink.Add(AdjustedEvent(~offender, penalty.opponent_add_ms, penalty.article,
                                absl::StrCat("illegal move ", count, " of ", SideWord(offender))));
}

absl::Status DecideCompleteIllegalMove(EventSink& sink, Color side, const IrregularArgs& args) {
  const GameState& s = sink.state();
  RETURN_IF_ERROR(CheckInPlay(s));
  RETURN_IF_ERROR(CheckNotPaused(s));
  const laws::CompletedIllegalMoveRule c3 = laws::CompletedIllegalMoveOf(s.ruleset());
  if (!c3.applies) {
    return Error(kErrIllegalMoveNotComplete,
                 absl::StrCat("C3 applies in blitz under the 1997-2005 appendices; this game is ",
                              laws::SpeedCategoryName(s.ruleset().speed), " under ",
                              laws::EditionName(s.ruleset().edition),
                              ": the arbiter corrects an illegal move (ReportIllegalMove)"));
  }
  if (s.unplayable()) {
    return Error(kErrNoPlayablePosition,
                 "C3: the last illegal move left no position to play on; claim or the arbiter "
                 "corrects it");
  }
  if (side != s.to_move()) {
    return Error(kErrNotYourTurn, absl::StrCat("it is ", SideWord(s.to_move()), "'s move"));
  }
  ASSIGN_OR_RETURN(chess::Square from, SquareArg("from", args.from));
  ASSIGN_OR_RETURN(chess::Square to, SquareArg("to", args.to));
  const chess::PieceType promotion = PromotionOf(args.promotion);
  if (IsLegalFromTo(s.position(), from, to, promotion)) {
    return Error(kErrMoveWasLegal, absl::StrCat(chess::SquareName(from), "-", chess::SquareName(to),
                                                " is a legal move: submit it as a move"));
  }
  ASSIGN_OR_RETURN(std::optional<chess::Position> after,
                   PositionAfterIllegal(s.position(), from, to, promotion));
  const std::int64_t remaining = s.RemainingMs(side, sink.now_ms());
  chessclock::Clock trial = s.clock();
  RETURN_IF_ERROR(trial.Press(side, sink.now_ms()));
  v1::ArbitrationEvent e;
  v1::IllegalMoveCompleted* c = e.mutable_illegal_move_completed();
  c->set_side(laws::ToProto(side));
  c->set_from(std::string(chess::SquareName(from)));
  c->set_to(std::string(chess::SquareName(to)));
  c->set_promotion(args.promotion);
  if (after) c->set_fen(chess::ToFen(*after));
  c->set_count(s.illegal_moves(side) + 1);
  c->set_article(std::string(c3.article));
  c->set_clock_ms(trial.RemainingMs(side, sink.now_ms()));
  c->set_elapsed_ms(std::max<std::int64_t>(0, s.turn_start_remaining_ms() - remaining));
  return sink.Add(std::move(e));
}

absl::Status DecideIllegalMoveClaim(EventSink& sink, Color claimant, Analyst& analyst,
                                    v1::ClaimRuling* ruling) {
  const GameState& s = sink.state();
  RETURN_IF_ERROR(CheckInPlay(s));
  RETURN_IF_ERROR(CheckNotPaused(s));
  const laws::CompletedIllegalMoveRule c3 = laws::CompletedIllegalMoveOf(s.ruleset());
  // (After a move that left no position the board still shows the offender to move.)
  if (!c3.applies || s.completed_illegal() != ~claimant ||
      (!s.unplayable() && s.to_move() != claimant)) {
    return Error(kErrNoIllegalMoveToClaim,
                 "C3: no completed illegal move of the opponent's awaits your claim (the right "
                 "ends with your own move)");
  }
  RETURN_IF_ERROR(CheckClaimRight(s, claimant, s.standing_plies(), /*by_player=*/true));
  // C3: the win, "however" a draw when the claimant cannot mate the offender by any series of
  // legal moves (2001); 1997 C4: a win needs mating potential.
  const AnalystAnswer answer = c3.needs_mating_potential
                                   ? analyst.MatingPotential(s.position(), claimant)
                                   : analyst.CanMate(s.position(), claimant);
  const bool draw = answer.verdict == analysis::Verdict::kUnwinnable;
  v1::ArbitrationEvent claim =
      ClaimEvent(claimant, v1::CLAIM_KIND_ILLEGAL_MOVE, v1::CLAIM_RULING_CORRECT, c3.article);
  v1::ClaimMade* cm = claim.mutable_claim();
  cm->set_reason(draw ? "the opponent's illegal move is complete; the claimant cannot mate him: "
                        "drawn"
                      : "the opponent's illegal move is complete: the claimant wins");
  *ruling = v1::CLAIM_RULING_CORRECT;
  RETURN_IF_ERROR(sink.Add(std::move(claim)));
  if (draw) {
    return sink.Add(
        EndedEvent(Outcome::Draw(Termination::kIllegalMoves, c3.article), answer.proof));
  }
  return sink.Add(EndedEvent(Outcome::Win(claimant, Termination::kIllegalMoves, c3.article),
                             answer.proof, answer.verdict == analysis::Verdict::kUndetermined));
}

namespace {

// The electronic board's illegal move that stands now (7.4a: the clock pressed on it, the game
// paused for the arbiter), unless the arbiter has acted on it since.
std::optional<v1::BoardIrregularity> StandingBoardIrregularity(const GameState& s) {
  if (!s.paused()) return std::nullopt;
  for (std::int64_t i = s.version() - 1; i >= 0; --i) {
    const v1::ArbitrationEvent& e = s.event(i);
    switch (e.kind_case()) {
      case v1::ArbitrationEvent::kBoardIrregularity:
        return e.board_irregularity();
      case v1::ArbitrationEvent::kMove:
      case v1::ArbitrationEvent::kIllegalMoveReported:
      case v1::ArbitrationEvent::kIllegalMoveCompleted:
      case v1::ArbitrationEvent::kPositionRestored:
      case v1::ArbitrationEvent::kIrregularityRuled:
      case v1::ArbitrationEvent::kResumed:
      case v1::ArbitrationEvent::kRuled:
        return std::nullopt;
      default:
        break;
    }
  }
  return std::nullopt;
}

absl::Status NotInRecord(absl::string_view why) {
  return Error(kErrMoveNotInRecord, absl::StrCat("7.4a: ", why,
                                                 "; a claim names a move that "
                                                 "stands in the record"));
}

}  // namespace

absl::Status DecidePlayerIllegalMoveClaim(EventSink& sink, Color claimant,
                                          const IrregularArgs& args, const std::string& reason,
                                          Analyst& analyst, v1::ClaimRuling* ruling) {
  const GameState& s = sink.state();
  RETURN_IF_ERROR(CheckInPlay(s));
  const Color offender = ~claimant;
  ASSIGN_OR_RETURN(chess::Square from, SquareArg("from", args.from));
  ASSIGN_OR_RETURN(chess::Square to, SquareArg("to", args.to));
  const std::string named =
      absl::StrCat(chess::SquareName(from), "-", chess::SquareName(to), args.promotion);
  const std::optional<v1::BoardIrregularity> board = StandingBoardIrregularity(s);
  const bool board_offender = board && laws::ColorOf(board->side()) == offender;
  const std::int64_t ply =
      args.ply.value_or(board_offender ? s.standing_plies() : s.standing_plies() - 1);
  if (ply < 0 || ply > s.standing_plies()) {
    return NotInRecord(absl::StrCat("the record has ", s.standing_plies(), " plies standing, ",
                                    "no move at ply ", ply));
  }
  if (ply < s.standing_plies()) {
    ASSIGN_OR_RETURN(GameState::Standing record, s.StandingRecord());
    const std::size_t i = static_cast<std::size_t>(ply);
    if (record.positions[i].side_to_move() != offender) {
      return NotInRecord(
          absl::StrCat("the move at ply ", ply, " is ", SideWord(claimant), "'s own"));
    }
    RETURN_IF_ERROR(CheckClaimRight(s, claimant, ply, /*by_player=*/true));  // B5b
    if (record.illegal[i]) {
      // C3: the completed illegal move, claimed as C3 has it (before the claimant moves).
      return DecideIllegalMoveClaim(sink, claimant, analyst, ruling);
    }
    const chess::Move recorded = record.moves[i];
    if (recorded.from() != from || recorded.to() != to) {
      return NotInRecord(
          absl::StrCat("the move at ply ", ply, " is ", chess::ToUci(recorded), ", not ", named));
    }
    // The server played it only after finding it legal (3, 4.6): no illegal move was made there,
    // so there is nothing for the arbiter to find (7.4a) and the claim changes nothing.
    return Error(kErrMoveWasValidated,
                 absl::StrCat("7.4a: ", SideWord(offender), "'s move at ply ", ply, " (", named,
                              ") was validated by the server before it entered the record: it "
                              "is legal, no illegal move stands there"));
  }
  // The illegal move standing now: the electronic board's, as it shows it.
  if (!board_offender) {
    return NotInRecord(
        absl::StrCat("no illegal move of ", SideWord(offender), "'s stands on the board now"));
  }
  ASSIGN_OR_RETURN(Placement shown, ParsePlacement(board->placement()));
  const chess::Piece moved = s.position().PieceOn(from);
  const chess::Piece arrived = shown.squares[static_cast<std::size_t>(to)];
  if (chess::IsNone(moved) || chess::ColorOf(moved) != offender ||
      !chess::IsNone(shown.squares[static_cast<std::size_t>(from)]) || chess::IsNone(arrived) ||
      chess::ColorOf(arrived) != offender) {
    return NotInRecord(absl::StrCat("the board does not show ", named, " by ", SideWord(offender)));
  }
  RETURN_IF_ERROR(CheckClaimRight(s, claimant, ply, /*by_player=*/true));  // B5b
  if (IsLegalFromTo(s.position(), from, to, PromotionOf(args.promotion))) {
    return Error(kErrMoveWasLegal, absl::StrCat(named, " is legal at ply ", ply));
  }
  // "Falls nötig hält der Spieler oder sein Gegner die Uhren an und bittet den Schiedsrichter um
  // Hilfe" (7.3): the claimant stops the clocks (stopped already when the board paused the game)
  // and the arbiter finds, or does not (7.4a: "Wenn ... festgestellt wird").
  v1::ArbitrationEvent claim;
  v1::ClaimMade* cm = claim.mutable_claim();
  cm->set_side(laws::ToProto(claimant));
  cm->set_kind(v1::CLAIM_KIND_ILLEGAL_MOVE);
  cm->set_ruling(v1::CLAIM_RULING_PENDING);
  const laws::IrregularityClaimRule rule = laws::IrregularityClaimRuleOf(s.ruleset());
  cm->set_article(rule.lost_on_touch ? absl::StrCat("7.4a, ", rule.article) : "7.4a");
  cm->set_reason(reason.empty() ? "the clocks are stopped; the arbiter rules" : reason);
  cm->set_illegal_ply(static_cast<std::int32_t>(ply));
  cm->set_illegal_from(std::string(chess::SquareName(from)));
  cm->set_illegal_to(std::string(chess::SquareName(to)));
  cm->set_illegal_promotion(args.promotion);
  *ruling = v1::CLAIM_RULING_PENDING;
  if (!s.paused() && s.clock().running().has_value()) {
    v1::ArbitrationEvent stopped;
    stopped.mutable_clock_stopped();
    RETURN_IF_ERROR(sink.Add(std::move(stopped)));
  }
  return sink.Add(std::move(claim));
}

absl::Status DecideIllegalMoveRuling(EventSink& sink, v1::RulingDecision decision,
                                     const std::string& reason, Analyst& analyst) {
  const GameState& s = sink.state();
  if (!s.pending_claim() || s.pending_claim()->kind() != v1::CLAIM_KIND_ILLEGAL_MOVE) {
    return Error(kErrNoPendingClaim, "no claim of an illegal move awaits a ruling");
  }
  if (decision != v1::RULING_DECISION_UPHOLD && decision != v1::RULING_DECISION_REJECT) {
    return Error(kErrBadRuling, "7.4a: a claimed illegal move is upheld or rejected");
  }
  const v1::ClaimMade claim = *s.pending_claim();
  const Color claimant = laws::ColorOf(claim.side()).value_or(Color::kWhite);
  v1::ArbitrationEvent ruled;
  ruled.mutable_ruled()->set_decision(decision);
  ruled.mutable_ruled()->set_article("7.4a");
  ruled.mutable_ruled()->set_reason(reason);
  RETURN_IF_ERROR(sink.Add(std::move(ruled)));
  if (decision == v1::RULING_DECISION_UPHOLD) {
    IrregularArgs args;
    args.ply = claim.illegal_ply();
    args.from = claim.illegal_from();
    args.to = claim.illegal_to();
    args.promotion = claim.illegal_promotion();
    RETURN_IF_ERROR(DecideReportIllegalMove(
        sink, ~claimant, args,
        absl::StrCat(SideWord(claimant), "'s claim upheld", reason.empty() ? "" : ": ", reason),
        analyst));
  }
  const GameState& after = sink.state();
  if (after.status() == GameStatus::kEnded || after.paused() ||
      after.clock().status() != chessclock::ClockStatus::kPaused) {
    return absl::OkStatus();
  }
  v1::ArbitrationEvent restarted;
  restarted.mutable_clock_restarted();
  return sink.Add(std::move(restarted));
}

absl::Status DecideIrregularity(EventSink& sink, const std::string& article,
                                const IrregularArgs& args, const std::string& reason) {
  const GameState& s = sink.state();
  RETURN_IF_ERROR(CheckNotOver(s));
  const int white_moves = s.clock().moves(Color::kWhite);
  const int black_moves = s.clock().moves(Color::kBlack);
  auto ruled = [&](absl::string_view art, absl::string_view decision) {
    v1::ArbitrationEvent e;
    e.mutable_irregularity_ruled()->set_article(std::string(art));
    e.mutable_irregularity_ruled()->set_decision(std::string(decision));
    e.mutable_irregularity_ruled()->set_reason(reason);
    return e;
  };
  auto annul = [&](absl::string_view art) -> absl::Status {
    // 7.1a: "wird die Partie annulliert und eine neue gespielt": the platform creates the new
    // game; this record ends annulled.
    RETURN_IF_ERROR(sink.Add(ruled(art, "annulled")));
    Outcome o;
    o.result = laws::Result::kAnnulled;
    o.termination = Termination::kArbiterDecision;
    o.article = std::string(art);
    return sink.Add(EndedEvent(o));
  };
  if (article == "7.1a" || article == "7.1b") {
    // B4 (rapid, blitz 1997-2005): after three completed moves each, no longer claimable.
    const laws::SetupClaimRule rule = laws::SetupClaimRuleOf(s.ruleset());
    if (rule.moves > 0 && white_moves >= rule.moves && black_moves >= rule.moves) {
      return Error(kErrIrregularityTooLate,
                   absl::StrCat(rule.article, ": each player has completed ", rule.moves,
                                " moves; a wrong set-up or board can no longer be claimed"));
    }
    if (article == "7.1a") return annul("7.1a");
    // 7.1b: the game continues; the position is transferred to a correctly placed board.
    return sink.Add(ruled("7.1b", "continue"));
  }
  if (article == "7.2") {
    const laws::ColoursReversedRule rule = laws::ColoursReversedRuleOf(s.ruleset());
    if (rule.replay_before_moves > 0) {
      // 2023 7.3: under ten moves by both a new game; from then on it continues.
      const bool early =
          white_moves < rule.replay_before_moves || black_moves < rule.replay_before_moves;
      if (early) return annul(rule.article);
      if (args.replay) {
        return Error(kErrBadArgument,
                     absl::StrCat(rule.article, ": ten moves made by both; the game continues"));
      }
      return sink.Add(ruled(rule.article, "continue"));
    }
    // 7.2: it continues "unless the arbiter decides otherwise".
    if (args.replay) return annul(rule.article);
    return sink.Add(ruled(rule.article, "continue"));
  }
  if (article == "7.3" || article == "7.5") {
    RETURN_IF_ERROR(CheckInPlay(s));
    // 7.5 only: "Falls die Stellung unmittelbar vor dem Regelverstoß nicht ermittelt werden kann,
    // wird die Partie aus der letzten bekannten Stellung ... weitergespielt"; `ply` names it.
    if (args.position_unknown && (article != "7.5" || !args.ply)) {
      return Error(kErrBadArgument,
                   "position_unknown: 7.5 only, with ply naming the last position that can be "
                   "identified");
    }
    // 7.3: "Wenn ein Spieler eine oder mehrere Figuren verschiebt": the displacer is named.
    if (args.displaced_by && article != "7.3") {
      return Error(kErrBadArgument, "side: the player who displaced the pieces, under 7.3 only");
    }
    const std::int64_t ply = args.ply.value_or(s.standing_plies());
    ASSIGN_OR_RETURN(PlyView view, ViewAt(s, ply));
    v1::ArbitrationEvent e;
    v1::PositionRestored* p = e.mutable_position_restored();
    p->set_article(article);
    p->set_ply(static_cast<std::int32_t>(ply));
    p->set_fen(chess::ToFen(view.position));
    p->set_retracted_plies(static_cast<std::int32_t>(s.standing_plies() - ply));
    p->set_reason(reason);
    if (args.displaced_by) p->set_side(laws::ToProto(*args.displaced_by));
    p->set_position_unknown(args.position_unknown);
    const bool taken_back = ply < s.standing_plies();
    RETURN_IF_ERROR(sink.Add(std::move(e)));
    // 7.3: the offender restores it on his own time; 7.5: the clocks per 6.14.
    return SetClocksAfter(sink, view, taken_back, args, reason);
  }
  return Error(kErrBadArgument, "article: 7.1a, 7.1b, 7.2, 7.3 or 7.5");
}

absl::Status DecideStopClocks(EventSink& sink, Color side, const std::string& reason) {
  const GameState& s = sink.state();
  RETURN_IF_ERROR(CheckInPlay(s));
  RETURN_IF_ERROR(CheckNotPaused(s));
  v1::ArbitrationEvent e;
  e.mutable_player_stopped_clocks()->set_side(laws::ToProto(side));
  e.mutable_player_stopped_clocks()->set_reason(reason);
  return sink.Add(std::move(e));
}

absl::Status DecideRuleStop(EventSink& sink, const IrregularArgs& args, std::int64_t delta_ms,
                            const std::string& reason) {
  const GameState& s = sink.state();
  if (!s.stopped_by()) {
    return Error(kErrNoStopToRule, "6.13d: no player's stop of the clocks awaits a ruling");
  }
  const Color side = *s.stopped_by();
  if (args.valid && !args.penalty.empty()) {
    return Error(kErrBadArgument, "6.13d: a stop with a valid reason is not penalised");
  }
  if (!args.penalty.empty() && args.penalty != "13.4a") RETURN_IF_ERROR(CheckNotOver(s));
  v1::ArbitrationEvent e;
  e.mutable_stop_ruled()->set_side(laws::ToProto(side));
  e.mutable_stop_ruled()->set_valid(args.valid);
  e.mutable_stop_ruled()->set_reason(reason);
  RETURN_IF_ERROR(sink.Add(std::move(e)));
  const std::string why =
      absl::StrCat("6.13d: the clocks stopped without a valid reason: ", reason);
  if (args.penalty == "13.4a") {
    v1::ArbitrationEvent w;
    w.mutable_power_used()->set_power(v1::ARBITER_POWER_WARNING);
    w.mutable_power_used()->set_side(laws::ToProto(side));
    w.mutable_power_used()->set_article("13.4a");
    w.mutable_power_used()->set_reason(why);
    return sink.Add(std::move(w));
  }
  if (args.penalty == "13.4b") return sink.Add(AdjustedEvent(~side, delta_ms, "13.4b", why));
  if (args.penalty == "13.4c") return sink.Add(AdjustedEvent(side, -delta_ms, "13.4c", why));
  return absl::OkStatus();
}

absl::Status DecidePower(EventSink& sink, std::optional<Color> side, const IrregularArgs& args,
                         const std::string& reason) {
  const GameState& s = sink.state();
  v1::ArbitrationEvent e;
  v1::PowerUsed* p = e.mutable_power_used();
  p->set_power(args.power);
  if (side) p->set_side(laws::ToProto(*side));
  p->set_reason(reason);
  const laws::Points& points = s.ruleset().regulations.points;
  switch (args.power) {
    case v1::ARBITER_POWER_WARNING:
      RETURN_IF_ERROR(CheckStarted(s));
      p->set_article("13.4a");
      return sink.Add(std::move(e));
    case v1::ARBITER_POWER_LEAVE_PERMITTED:
      RETURN_IF_ERROR(CheckNotOver(s));
      p->set_article("12.4");
      return sink.Add(std::move(e));
    case v1::ARBITER_POWER_REDUCE_POINTS:
    case v1::ARBITER_POWER_INCREASE_POINTS:
      // Applied to the points of the result (11.1 or the regulations'), whenever it comes.
      RETURN_IF_ERROR(CheckStarted(s));
      p->set_article(args.power == v1::ARBITER_POWER_REDUCE_POINTS ? "13.4e" : "13.4f");
      p->set_points(*args.points);
      return sink.Add(std::move(e));
    case v1::ARBITER_POWER_LOSS:
    case v1::ARBITER_POWER_EXPULSION:
    case v1::ARBITER_POWER_PERSISTENT_REFUSAL: {
      const absl::string_view article = args.power == v1::ARBITER_POWER_LOSS        ? "13.4d"
                                        : args.power == v1::ARBITER_POWER_EXPULSION ? "13.4g"
                                                                                    : "12.7";
      if (args.power == v1::ARBITER_POWER_EXPULSION) {
        // 13.4g: expelled from the event; a game still in play is lost with it.
        RETURN_IF_ERROR(CheckStarted(s));
      } else {
        RETURN_IF_ERROR(CheckNotOver(s));
      }
      p->set_article(std::string(article));
      if (args.power == v1::ARBITER_POWER_PERSISTENT_REFUSAL) {
        p->set_points(args.points.value_or(points.win));  // 12.7: the arbiter sets it
      }
      const bool over = s.status() == GameStatus::kEnded;
      RETURN_IF_ERROR(sink.Add(std::move(e)));
      if (over) return absl::OkStatus();
      return sink.Add(EndedEvent(Outcome::Win(~*side, Termination::kArbiterDecision, article)));
    }
    case v1::ARBITER_POWER_BOTH_REFUSE:
      RETURN_IF_ERROR(CheckNotOver(s));
      p->set_article("12.8");
      p->clear_side();
      RETURN_IF_ERROR(sink.Add(std::move(e)));
      return sink.Add(EndedEvent(Outcome::BothLose(Termination::kArbiterDecision, "12.8")));
    default:
      break;
  }
  return Error(kErrBadArgument, "power: unknown");
}

absl::Status CheckPlayable(const GameState& game) {
  if (game.unplayable()) {
    return Error(kErrNoPlayablePosition,
                 "C3: the opponent's illegal move left no position to play on: claim the win, or "
                 "the arbiter corrects it (7.4a)");
  }
  return absl::OkStatus();
}

absl::Status CheckMoveAfterIrregularity(const GameState& game, chess::Move move) {
  if (std::optional<chess::Square> owed = game.must_move();
      owed && move.from() != *owed && HasLegalMoveFrom(game.position(), *owed)) {
    return Error(kErrTouchMoveOwed,
                 absl::StrCat("7.4a with 4.3: the piece on ", chess::SquareName(*owed),
                              " of the illegal move must make the replacing move"));
  }
  if (std::optional<chess::Square> owed = game.must_capture();
      owed && move.to() != *owed && HasLegalCaptureOn(game.position(), *owed)) {
    return Error(kErrTouchMoveOwed,
                 absl::StrCat("7.4a with 4.3b/c: the piece on ", chess::SquareName(*owed),
                              " touched in the illegal move must be captured"));
  }
  return absl::OkStatus();
}

absl::Status CheckClockSettingCorrectable(const GameState& game, absl::string_view article) {
  const laws::ClockSettingRule rule = laws::ClockSettingRuleOf(game.ruleset());
  if (rule.moves == 0 || article == "6.11" || game.status() == GameStatus::kAdjourned) {
    return absl::OkStatus();
  }
  if (game.clock().moves(Color::kWhite) >= rule.moves &&
      game.clock().moves(Color::kBlack) >= rule.moves) {
    // "Sobald jeder Spieler einmal drei Züge vollständig ausgeführt hat, kann eine falsche ...
    // Uhrzeigerstellung nicht mehr beanstandet werden": the clocks stand as they are.
    return Error(kErrClockSettingFinal,
                 absl::StrCat(rule.article, ": each player has completed ", rule.moves,
                              " moves; the clock setting can no longer be corrected (6.11 for a "
                              "replaced defective clock; after a restored position the restoring "
                              "ruling sets the clocks, 6.14)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateIrregularArgs(absl::string_view command, const IrregularArgs& args) {
  if (args.from.size() > 2 || args.to.size() > 2 || args.promotion.size() > 1) {
    return Error(kErrBadArgument, absl::StrCat(command, ": squares such as e2, promotion q r b n"));
  }
  if (!args.promotion.empty() && PromotionOf(args.promotion) == chess::PieceType::kNone) {
    return Error(kErrBadArgument, absl::StrCat(command, ": promotion q, r, b or n"));
  }
  if (args.ply && (*args.ply < 0 || *args.ply > 100'000)) {
    return Error(kErrBadArgument, absl::StrCat(command, ": ply must lie in [0, 100000]"));
  }
  if (args.white_ms.has_value() != args.black_ms.has_value()) {
    return Error(kErrBadArgument, absl::StrCat(command, ": set both clocks (6.14) or neither"));
  }
  if ((args.white_ms && *args.white_ms <= 0) || (args.black_ms && *args.black_ms <= 0)) {
    return Error(kErrBadArgument, absl::StrCat(command, ": both times must be above 0 ms"));
  }
  if (args.points && (*args.points < 0 || *args.points > 100)) {
    return Error(kErrBadArgument, absl::StrCat(command, ": points must lie in [0, 100]"));
  }
  return absl::OkStatus();
}

}  // namespace arbitration
