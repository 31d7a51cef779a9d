#include "libs/arbitration/touch_move.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "libs/arbitration/errors.h"
#include "libs/base/error.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {
namespace {

using chess::Color;
using chess::Move;
using chess::Piece;
using chess::PieceType;
using chess::Square;

absl::string_view PieceName(PieceType t) {
  switch (t) {
    case PieceType::kPawn:
      return "pawn";
    case PieceType::kKnight:
      return "knight";
    case PieceType::kBishop:
      return "bishop";
    case PieceType::kRook:
      return "rook";
    case PieceType::kQueen:
      return "queen";
    case PieceType::kKing:
      return "king";
    default:
      return "piece";
  }
}

std::string Describe(const Touch& t) {
  return absl::StrCat(PieceName(chess::TypeOf(t.piece)), " ", SquareText(t.square));
}

// The square of the piece `m` captures, if any (en passant: beside the destination).
std::optional<Square> CapturedSquare(const chess::Position& p, Move m) {
  if (m.kind() == Move::kEnPassant) {
    return chess::MakeSquare(chess::FileOf(m.to()), chess::RankOf(m.from()));
  }
  if (m.kind() == Move::kCastling) return std::nullopt;
  if (!chess::IsNone(p.PieceOn(m.to()))) return m.to();
  return std::nullopt;
}

// The rook square a castling move uses (standard chess: the a- or h-file).
Square CastlingRook(Move m) {
  return chess::MakeSquare(chess::FileOf(m.to()) == 6 ? 7 : 0, chess::RankOf(m.from()));
}

std::vector<Move> MovesOf(const std::vector<Move>& legal, Square from) {
  std::vector<Move> out;
  for (Move m : legal) {
    if (m.from() == from) out.push_back(m);
  }
  return out;
}

std::vector<Move> CapturesOf(const chess::Position& p, const std::vector<Move>& legal,
                             Square target, std::optional<Square> with = std::nullopt) {
  std::vector<Move> out;
  for (Move m : legal) {
    if (with && m.from() != *with) continue;
    if (CapturedSquare(p, m) == target) out.push_back(m);
  }
  return out;
}

Obligation Owed(std::vector<Move> allowed, absl::string_view article, std::string reason) {
  Obligation o;
  o.kind = Obligation::Kind::kOwed;
  o.allowed = std::move(allowed);
  o.article = std::string(article);
  o.reason = std::move(reason);
  return o;
}

}  // namespace

// One row per edition and speed. The seeds: 2001 B5a/B5b and 4.6, 1997 B5 (the Laws of the time
// apply otherwise, B2). 2023 (beyond the seeds): rapid and blitz under adequate supervision follow
// the Competition Rules (A.3, B.3), so the arbiter acts himself there too; 4.8 is the claim rule.
TouchMoveRules TouchMoveRulesOf(const laws::Ruleset& ruleset) {
  const bool fast = ruleset.speed != laws::SpeedCategory::kStandard;
  switch (ruleset.edition) {
    case laws::Edition::kFide1997:
      return {fast, fast ? "B5" : "4.3", "4.6", "4.2", "7.4a"};
    case laws::Edition::kFide2001:
    case laws::Edition::kFide2005:
      return {fast, fast ? "B5a" : "4.3", "4.6", "4.2", "7.4a"};
    case laws::Edition::kFide2023:
      return {false, "4.3", "4.8", "4.2.1", "7.5.1", /*decimal_paragraphs=*/true, "4.4.4"};
  }
  return {};
}

std::string TouchMoveRules::Article(absl::string_view seed_article) const {
  const char last = seed_article.empty() ? '\0' : seed_article.back();
  if (!decimal_paragraphs || last < 'a' || last > 'c') return std::string(seed_article);
  return absl::StrCat(seed_article.substr(0, seed_article.size() - 1), ".", last - 'a' + 1);
}

bool Obligation::Allows(Move m) const {
  return kind != Kind::kOwed || std::find(allowed.begin(), allowed.end(), m) != allowed.end();
}

std::vector<std::string> Obligation::AllowedUci() const {
  std::vector<std::string> out;
  for (Move m : allowed) out.push_back(chess::ToUci(m));
  std::sort(out.begin(), out.end());
  return out;
}

std::string FenWithoutCounters(const chess::Position& position) {
  std::string fen = chess::ToFen(position);
  // The last two fields (halfmove clock, move number) do not make the position.
  for (int i = 0; i < 2; ++i) fen = fen.substr(0, fen.rfind(' '));
  return fen;
}

std::string SquareText(Square s) { return std::string(chess::SquareName(s)); }
std::string PieceText(Piece p) { return std::string(1, chess::FenChar(p)); }

Obligation ObligationOf(const chess::Position& position, absl::Span<const Touch> touches) {
  const Color side = position.side_to_move();
  // The deliberate touches, each piece once (4.2: adjustments announced first do not count).
  std::vector<Touch> order;
  for (const Touch& t : touches) {
    if (t.adjusting || t.promotion || chess::IsNone(t.piece)) continue;
    if (position.PieceOn(t.square) != t.piece) continue;  // no longer there: not this position's
    const bool seen = std::any_of(order.begin(), order.end(),
                                  [&](const Touch& o) { return o.square == t.square; });
    if (!seen) order.push_back(t);
  }
  if (order.empty()) return {};
  const std::vector<Move> legal = position.LegalMoves();
  std::vector<Touch> own, enemy;
  for (const Touch& t : order) (chess::ColorOf(t.piece) == side ? own : enemy).push_back(t);

  // 4.4a / 4.4c: the king touched first, then one of his rooks: castle on that side if legal;
  // otherwise another king move (castling on the other side included); no king move: 4.5.
  if (!own.empty() && chess::TypeOf(own[0].piece) == PieceType::kKing) {
    for (size_t i = 1; i < own.size(); ++i) {
      if (chess::TypeOf(own[i].piece) != PieceType::kRook) continue;
      if (chess::RankOf(own[i].square) != chess::RankOf(own[0].square)) continue;
      std::vector<Move> castle, king;
      for (Move m : MovesOf(legal, own[0].square)) {
        if (m.kind() == Move::kCastling && CastlingRook(m) == own[i].square) {
          castle.push_back(m);
        } else {
          king.push_back(m);
        }
      }
      if (!castle.empty()) {
        return Owed(castle, "4.4a",
                    absl::StrCat("king and rook ", SquareText(own[i].square),
                                 " touched: castle on that side"));
      }
      if (!king.empty()) {
        return Owed(king, "4.4c",
                    "castling on that side is illegal: another move of the king is owed");
      }
      Obligation free;
      free.kind = Obligation::Kind::kFree;
      free.article = "4.4c";
      free.reason = "castling is illegal and the king cannot move: any legal move";
      return free;
    }
  }
  // 4.4b: a rook touched before the king may not castle on this move.
  auto without_castling_of = [&](std::vector<Move> moves, Square king_square) {
    const bool rook_first = std::any_of(own.begin(), own.end(), [&](const Touch& t) {
      return chess::TypeOf(t.piece) == PieceType::kRook;
    });
    if (!rook_first) return moves;
    std::vector<Move> out;
    for (Move m : moves) {
      if (m.kind() == Move::kCastling && m.from() == king_square) {
        const bool touched_before = std::any_of(
            own.begin(), own.end(), [&](const Touch& t) { return t.square == CastlingRook(m); });
        if (touched_before) continue;
      }
      out.push_back(m);
    }
    return out;
  };
  // The moves a touched piece allows: its own moves, or the captures of an enemy piece.
  auto moves_for = [&](const Touch& t) {
    if (chess::ColorOf(t.piece) == side) {
      std::vector<Move> moves = MovesOf(legal, t.square);
      if (chess::TypeOf(t.piece) == PieceType::kKing) {
        moves = without_castling_of(std::move(moves), t.square);
      }
      return moves;
    }
    return CapturesOf(position, legal, t.square);
  };

  if (!own.empty() && !enemy.empty()) {
    // 4.3c: capture the touched enemy piece with the touched own piece.
    std::vector<Move> capture = CapturesOf(position, legal, enemy[0].square, own[0].square);
    if (!capture.empty()) {
      return Owed(capture, "4.3c",
                  absl::StrCat("the ", Describe(enemy[0]), " must be captured with the ",
                               Describe(own[0])));
    }
    // Otherwise the first touched piece that can be moved or captured (the order of the touches
    // is the board's; the own piece first where they came together).
    for (const Touch& t : order) {
      std::vector<Move> moves = moves_for(t);
      if (moves.empty()) continue;
      return Owed(moves, "4.3c",
                  absl::StrCat("the ", Describe(t), " must be ",
                               chess::ColorOf(t.piece) == side ? "moved" : "captured"));
    }
  } else {
    const bool mine = !own.empty();
    for (const Touch& t : mine ? own : enemy) {
      std::vector<Move> moves = moves_for(t);
      if (moves.empty()) continue;
      const bool rook_then_king = chess::TypeOf(t.piece) == PieceType::kRook &&
                                  std::any_of(own.begin(), own.end(), [](const Touch& o) {
                                    return chess::TypeOf(o.piece) == PieceType::kKing;
                                  });
      return Owed(moves, mine ? (rook_then_king ? "4.4b" : "4.3a") : "4.3b",
                  absl::StrCat("the ", Describe(t), " must be ", mine ? "moved" : "captured"));
    }
  }
  // 4.5: none of the touched pieces can be moved or captured.
  Obligation free;
  free.kind = Obligation::Kind::kFree;
  free.article = "4.5";
  free.reason = "no touched piece can be moved or captured: any legal move";
  return free;
}

std::optional<Obligation> PromotionChoice(const chess::Position& position,
                                          absl::Span<const Touch> touches) {
  for (const Touch& t : touches) {
    if (!t.promotion || chess::ColorOf(t.piece) != position.side_to_move()) continue;
    std::vector<Move> allowed;
    for (Move m : position.LegalMoves()) {
      if (m.is_promotion() && m.to() == t.square && m.promotion() == chess::TypeOf(t.piece)) {
        allowed.push_back(m);
      }
    }
    if (allowed.empty()) continue;
    return Owed(std::move(allowed), "4.4.4",
                absl::StrCat("the ", Describe(t),
                             " touched the promotion square first: the promotion is to a ",
                             PieceName(chess::TypeOf(t.piece))));
  }
  return std::nullopt;
}

namespace {

bool NothingTouchedOrOwed(const TouchLog& log) {
  return log.touches().empty() && log.owed_uci().empty() && log.restore_owed_uci().empty();
}

// The moves owed this turn (empty: none): after a touch-move violation ruled after the move, once
// the arbiter has restored the position before it (7.4a), the restoration's; else the ruling's.
const std::vector<std::string>& OwedUci(const TouchLog& log, const chess::Position& position) {
  const bool restored =
      !log.restore_owed_uci().empty() && FenWithoutCounters(position) == log.restore_fen();
  return restored ? log.restore_owed_uci() : log.owed_uci();
}

}  // namespace

std::optional<OwedMove> CurrentObligation(const TouchLog& log, const chess::Position& position,
                                          const laws::Ruleset& ruleset) {
  if (NothingTouchedOrOwed(log)) return std::nullopt;
  const std::vector<std::string>& owed_uci = OwedUci(log, position);
  if (!owed_uci.empty()) {
    OwedMove out;
    out.enforced = true;
    out.obligation.kind = Obligation::Kind::kOwed;
    for (const std::string& owed : owed_uci) {
      if (absl::StatusOr<Move> m = chess::ParseUci(position, owed); m.ok()) {
        out.obligation.allowed.push_back(*m);
      }
    }
    out.obligation.article = "4.3";
    out.obligation.reason = "the touch-move ruling";
    return out;
  }
  const TouchMoveRules rules = TouchMoveRulesOf(ruleset);
  OwedMove out;
  out.enforced = !rules.on_request_only;
  if (!rules.promotion_final_article.empty()) {
    if (std::optional<Obligation> p = PromotionChoice(position, log.touches())) {
      out.obligation = *std::move(p);
      out.obligation.article = std::string(rules.promotion_final_article);
      return out;
    }
  }
  out.obligation = ObligationOf(position, log.touches());
  if (out.obligation.kind == Obligation::Kind::kNone) return std::nullopt;
  out.obligation.article = rules.Article(out.obligation.article);
  return out;
}

bool TouchLog::TouchedThisTurn() const {
  return std::any_of(touches_.begin(), touches_.end(), [](const Touch& t) { return !t.adjusting; });
}

namespace {

absl::Status CorruptTouch(absl::string_view why) { return base::Error(kErrCorruptLog, why); }

}  // namespace

absl::Span<const TouchLog::EventRule> TouchLog::EventRows() {
  // The board as a report shows it; 4.2: with `ends_adjustment`, an adjustment ends when the
  // board shows the position again.
  static constexpr auto kShown = [](TouchLog& log, const std::string& placement,
                                    bool ends_adjustment) {
    log.placement_ = placement;
    if (ends_adjustment && log.placement_.empty()) log.adjusting_ = false;
    return absl::OkStatus();
  };
  static const std::vector<EventRule>* const rows = new std::vector<EventRule>{
      {v1::ArbitrationEvent::kPieceTouched,
       [](TouchLog& log, const v1::ArbitrationEvent& event, Color to_move) -> absl::Status {
         const v1::PieceTouched& t = event.piece_touched();
         std::optional<Square> square = chess::ParseSquare(t.square());
         const Piece piece =
             t.piece().size() == 1 ? chess::PieceFromFenChar(t.piece()[0]) : Piece::kNone;
         if (!square || chess::IsNone(piece))
           return CorruptTouch("a touch without square or piece");
         log.touches_.push_back({*square, piece, t.adjusting(), t.promotion()});
         log.placement_ = t.placement();
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kPieceReleased,
       [](TouchLog& log, const v1::ArbitrationEvent& event, Color) {
         return kShown(log, event.piece_released().placement(), true);
       }},
      {v1::ArbitrationEvent::kAdjustAnnounced,
       [](TouchLog& log, const v1::ArbitrationEvent&, Color) -> absl::Status {
         log.adjusting_ = true;
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kBoardIrregularity,
       [](TouchLog& log, const v1::ArbitrationEvent& event, Color) {
         return kShown(log, event.board_irregularity().placement(), false);
       }},
      {v1::ArbitrationEvent::kBoardResultSignal,
       [](TouchLog& log, const v1::ArbitrationEvent& event, Color) {
         return kShown(log, event.board_result_signal().placement(), false);
       }},
      {v1::ArbitrationEvent::kBoardFrame,
       [](TouchLog& log, const v1::ArbitrationEvent& event, Color) {
         return kShown(log, event.board_frame().placement(), true);
       }},
      {v1::ArbitrationEvent::kTouchMoveRuled,
       [](TouchLog& log, const v1::ArbitrationEvent& event, Color to_move) -> absl::Status {
         const v1::TouchMoveRuled& r = event.touch_move_ruled();
         if (r.owed() && laws::ColorOf(r.offender()) == to_move) {
           log.owed_uci_.assign(r.owed_uci().begin(), r.owed_uci().end());
         }
         if (laws::ColorOf(r.offender()) != to_move) {
           log.last_turn_ruled_ = true;
           if (r.violation() && !r.before_fen().empty()) {
             log.restore_owed_uci_.assign(r.owed_uci().begin(), r.owed_uci().end());
             log.restore_fen_ = r.before_fen();
           }
         }
         return absl::OkStatus();
       }},
  };
  return *rows;
}

absl::Status TouchLog::Apply(const v1::ArbitrationEvent& event, Color to_move) {
  for (const EventRule& row : EventRows()) {
    if (row.kind == event.kind_case()) return row.apply(*this, event, to_move);
  }
  return CorruptTouch("not a touch-move event");
}

void TouchLog::OnMove(const chess::Position& before, Move move) {
  std::shared_ptr<Turn> turn;
  if (!touches_.empty()) {
    turn = std::make_shared<Turn>();
    turn->side = before.side_to_move();
    turn->before = before;
    turn->touches = std::move(touches_);
    turn->move = move;
  }
  EndTurn();
  last_turn_ = std::move(turn);  // the previous turn, for a claim after the move (none untouched)
}

void TouchLog::EndTurn() {
  last_turn_ruled_ = false;
  owed_uci_.clear();
  restore_owed_uci_.clear();
  restore_fen_.clear();
  adjusting_ = false;
  placement_.clear();
  touches_.clear();
  last_turn_.reset();
}

std::optional<Obligation> BrokenBy(const TouchLog& log, const chess::Position& position,
                                   const laws::Ruleset& ruleset, Move move) {
  if (NothingTouchedOrOwed(log)) return std::nullopt;
  // 7.4a after a touch-move violation: the position before it restored, the touched piece owed.
  const std::vector<std::string>& owed_uci = OwedUci(log, position);
  if (!owed_uci.empty()) {
    const std::string uci = chess::ToUci(move);
    if (std::find(owed_uci.begin(), owed_uci.end(), uci) != owed_uci.end()) return std::nullopt;
    Obligation o;
    o.kind = Obligation::Kind::kOwed;
    for (const std::string& owed : owed_uci) {
      if (absl::StatusOr<Move> m = chess::ParseUci(position, owed); m.ok()) o.allowed.push_back(*m);
    }
    o.article = "4.3";
    o.reason =
        absl::StrCat("the touch-move ruling: one of ", absl::StrJoin(owed_uci, ", "), " is owed");
    return o;
  }
  const TouchMoveRules rules = TouchMoveRulesOf(ruleset);
  if (rules.on_request_only) return std::nullopt;
  if (!rules.promotion_final_article.empty()) {
    // 2023 4.4.4: the piece that touched the promotion square is the promotion's.
    std::optional<Obligation> p = PromotionChoice(position, log.touches());
    if (p && !p->Allows(move)) {
      p->article = std::string(rules.promotion_final_article);
      return p;
    }
  }
  Obligation o = ObligationOf(position, log.touches());
  if (o.Allows(move)) return std::nullopt;
  o.article = rules.Article(o.article);
  return o;
}

absl::Status CheckTouchMove(const TouchLog& log, const chess::Position& position,
                            const laws::Ruleset& ruleset, Move move) {
  std::optional<Obligation> broken = BrokenBy(log, position, ruleset, move);
  if (!broken) return absl::OkStatus();
  return base::Error(kErrTouchMoveOwed,
                     absl::StrCat(broken->article, ": ", broken->reason, " (one of ",
                                  absl::StrJoin(broken->AllowedUci(), ", "), ")"));
}

v1::ArbitrationEvent ViolationRuled(Color offender, const Obligation& obligation, Move tried) {
  v1::ArbitrationEvent e;
  v1::TouchMoveRuled* r = e.mutable_touch_move_ruled();
  r->set_offender(laws::ToProto(offender));
  r->set_violation(true);
  r->set_owed(true);
  for (std::string& uci : obligation.AllowedUci()) r->add_owed_uci(std::move(uci));
  if (!tried.is_null()) r->set_move_uci(chess::ToUci(tried));
  r->set_article(obligation.article);
  r->set_reason(obligation.reason);
  return e;
}

absl::StatusOr<std::vector<v1::ArbitrationEvent>> TouchMoveClaim(const TouchLog& log,
                                                                 const chess::Position& position,
                                                                 const laws::Ruleset& ruleset,
                                                                 Color claimant) {
  const TouchMoveRules rules = TouchMoveRulesOf(ruleset);
  std::vector<v1::ArbitrationEvent> out;
  v1::ArbitrationEvent e;
  v1::TouchMoveRuled* r = e.mutable_touch_move_ruled();
  r->set_offender(laws::ToProto(~claimant));
  r->set_claimant(laws::ToProto(claimant));
  if (position.side_to_move() != claimant) {
    // The opponent is to move and has touched pieces: he must move (or capture) them.
    const Obligation o = ObligationOf(position, log.touches());
    if (o.kind == Obligation::Kind::kOwed) {
      r->set_owed(true);
      for (std::string& uci : o.AllowedUci()) r->add_owed_uci(std::move(uci));
      r->set_article(rules.Article(o.article));
      r->set_reason(absl::StrCat(o.reason, " (", rules.ruling_article, ")"));
    } else {
      r->set_article(o.kind == Obligation::Kind::kFree ? rules.Article(o.article) : "4.3");
      r->set_reason(o.kind == Obligation::Kind::kFree ? o.reason
                                                      : "no piece touched: nothing is owed");
    }
    out.push_back(std::move(e));
    return out;
  }
  // After the opponent's move. 4.6 (B5b; 2023 4.8): lost once the claimant touched a piece.
  if (log.TouchedThisTurn()) {
    return base::Error(kErrClaimRightLost,
                       absl::StrCat(rules.claim_lost_article,
                                    ": the claimant touched a piece after the opponent's move; "
                                    "the right to claim is lost"));
  }
  if (log.last_turn_ruled()) {
    return base::Error(kErrClaimNotAllowed, "the opponent's move was ruled on already");
  }
  const TouchLog::Turn* turn = log.last_turn();
  if (turn == nullptr || turn->side != ~claimant) {
    r->set_article("4.3");
    r->set_reason("the opponent touched no piece before his move: no violation");
    out.push_back(std::move(e));
    return out;
  }
  const Obligation o = ObligationOf(turn->before, turn->touches);
  r->set_move_uci(chess::ToUci(turn->move));
  r->set_article(o.kind == Obligation::Kind::kNone ? "4.3" : rules.Article(o.article));
  if (o.Allows(turn->move)) {
    r->set_reason(
        o.kind == Obligation::Kind::kOwed
            ? absl::StrCat("the move satisfies ", rules.Article(o.article), ": no violation")
            : absl::StrCat(o.reason, ": no violation"));
    out.push_back(std::move(e));
    return out;
  }
  // The violation stood on the board: the arbiter restores the position before it (7.4a, 6.14),
  // and the offender must then play one of the owed moves. The clocks stop for him.
  r->set_violation(true);
  for (std::string& uci : o.AllowedUci()) r->add_owed_uci(std::move(uci));
  r->set_before_fen(FenWithoutCounters(turn->before));
  r->set_reason(absl::StrCat(o.reason, " (", rules.ruling_article,
                             "): the arbiter restores the position before the move"));
  out.push_back(std::move(e));
  v1::ArbitrationEvent pause;
  pause.mutable_paused()->set_article(rules.Article(o.article));
  pause.mutable_paused()->set_reason(absl::StrCat(
      "touch-move violation by ", claimant == Color::kBlack ? "White" : "Black", ": ", o.reason));
  out.push_back(std::move(pause));
  return out;
}

}  // namespace arbitration
