// Touch-move (Article 4): which move a player owes after touching pieces, and the touches of a game
// as its event log records them (the board feed's PieceTouched / PieceReleased, "j'adoube",
// touch-move rulings). Pure: positions and touches in, obligations out.
//
//   Obligation o = ObligationOf(position, touches);           // 4.3-4.5
//   if (!o.Allows(move)) ...                                  // a touch-move violation
//
// The editions' differences (who rules when, which article) are one row per edition and speed in
// TouchMoveRulesOf.
#ifndef ARBITER_LIBS_ARBITRATION_TOUCH_MOVE_H_
#define ARBITER_LIBS_ARBITRATION_TOUCH_MOVE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/chess/position.h"
#include "libs/laws/ruleset.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

namespace v1 = arbiter::v1;

// Article 4 as the ruleset has it.
struct TouchMoveRules {
  // B5a (2001), B5 (1997): in rapid and blitz the arbiter rules on Article 4 only at a player's
  // request; otherwise (standard play, an arbiter present) he acts himself.
  bool on_request_only = false;
  absl::string_view ruling_article;  // "B5a", "B5", "4.3" ...
  // 4.6 (2001; 2023 4.8): the claimant loses the right to claim once he touched a piece.
  absl::string_view claim_lost_article;
  absl::string_view adjust_article;   // 4.2 (2023 4.2.1)
  absl::string_view illegal_article;  // the illegal move the board shows: 7.4a (2023 7.5.1)
  // 2023 numbers the paragraphs (4.3.1 for 2001's 4.3a, 4.4.2 for 4.4b, ...).
  bool decimal_paragraphs = false;
  // 2023 4.4.4: the promotion's piece is final once it has touched the promotion square; "" in
  // the seeds' editions (their 4.7 binds a piece released on a square, not the choice of piece).
  absl::string_view promotion_final_article;

  // The edition's number of an article of 4.3 / 4.4 given by the seeds' (2001) number.
  std::string Article(absl::string_view seed_article) const;
};
TouchMoveRules TouchMoveRulesOf(const laws::Ruleset& ruleset);

// A piece touched on the board by the player to move.
struct Touch {
  chess::Square square = chess::Square(0);
  chess::Piece piece = chess::Piece::kNone;
  bool adjusting = false;  // 4.2: after "j'adoube": no obligation
  // 2023 4.4.4: the new piece of a promotion put on the promotion square (not a piece of the
  // position: 4.3 does not apply to it).
  bool promotion = false;
};

// What the touches oblige the player to move to do.
struct Obligation {
  enum class Kind { kNone, kFree, kOwed };
  Kind kind = Kind::kNone;           // kNone: nothing touched; kFree: 4.5 / 4.4c, any legal move
  std::vector<chess::Move> allowed;  // kOwed: the moves that satisfy 4.3 / 4.4
  std::string article;               // "4.3a", "4.3b", "4.3c", "4.4a", "4.4b", "4.4c", "4.5"
  std::string reason;                // "the knight g1 must be moved" ...

  bool Allows(chess::Move m) const;
  std::vector<std::string> AllowedUci() const;
};

// 4.3-4.5 for the player to move in `position`, from his touches in order (adjustments skipped;
// a piece touched twice counts once, at its first touch).
Obligation ObligationOf(const chess::Position& position, absl::Span<const Touch> touches);

// 2023 4.4.4: the first promotion piece the player to move put on its square fixes the promotion:
// the legal promotions to that square with that piece. nullopt: none touched (or none legal).
std::optional<Obligation> PromotionChoice(const chess::Position& position,
                                          absl::Span<const Touch> touches);

// The FEN without its move counters (the position a touch-move ruling names).
std::string FenWithoutCounters(const chess::Position& position);

// "g1" / FEN letters, as the events record them.
std::string SquareText(chess::Square s);
std::string PieceText(chess::Piece p);

// The touches of a game, from its log (GameState keeps one). Copying costs a vector of the current
// turn's touches (usually empty) and a shared pointer.
class TouchLog {
 public:
  // The player's previous turn, when he touched pieces: for a claim after his move.
  struct Turn {
    chess::Color side = chess::Color::kWhite;
    chess::Position before = chess::Position::Initial();
    std::vector<Touch> touches;
    chess::Move move;
  };

  // One row per event of the touch log (PieceTouched ... BoardFrame): how it changes the log;
  // `to_move` is the player on move. GameState's table takes its board events from these rows.
  struct EventRule {
    v1::ArbitrationEvent::KindCase kind;
    absl::Status (*apply)(TouchLog& t, const v1::ArbitrationEvent& event, chess::Color to_move);
  };
  static absl::Span<const EventRule> EventRows();
  // Applies one of EventRows' events; INTERNAL ERR_CORRUPT_LOG for any other.
  absl::Status Apply(const v1::ArbitrationEvent& event, chess::Color to_move);
  // A move was made from `before`: the turn's touches become the previous turn's.
  void OnMove(const chess::Position& before, chess::Move move);
  // The turn ended without a legal move (C3: an illegal move completed by the clock): its touches
  // end with it and leave no previous turn to rule on.
  void EndTurn();

  // This turn's touches (by the player to move), in order.
  const std::vector<Touch>& touches() const { return touches_; }
  // A touch not under "j'adoube" this turn (4.6: the player to move has touched a piece).
  bool TouchedThisTurn() const;
  // 4.2: "j'adoube" announced and the board not yet back in the position.
  bool adjusting() const { return adjusting_; }
  // The board as last reported; "" = as the position stands.
  const std::string& placement() const { return placement_; }
  const Turn* last_turn() const { return last_turn_.get(); }
  // Moves owed after a touch-move ruling this turn (enforced); empty = none.
  const std::vector<std::string>& owed_uci() const { return owed_uci_; }
  // Whether a touch-move claim was ruled on the previous turn's move already.
  bool last_turn_ruled() const { return last_turn_ruled_; }
  // A violation ruled after the move: the moves owed once the arbiter has restored the position
  // before it (`restore_fen`, FEN without the move counters).
  const std::vector<std::string>& restore_owed_uci() const { return restore_owed_uci_; }
  const std::string& restore_fen() const { return restore_fen_; }

 private:
  std::vector<Touch> touches_;
  bool adjusting_ = false;
  std::string placement_;
  std::shared_ptr<const Turn> last_turn_;
  std::vector<std::string> owed_uci_;
  bool last_turn_ruled_ = false;
  std::vector<std::string> restore_owed_uci_;
  std::string restore_fen_;
};

// The events of a touch-move claim by `claimant` (4.3-4.5, B5a): while the opponent is to move,
// on his touches so far (he must move the touched piece: owed and enforced); after the opponent's
// move, on that move (a violation stops the clocks for the arbiter, who restores the position,
// 7.4a / 6.14). FAILED_PRECONDITION ERR_CLAIM_RIGHT_LOST when the claimant touched a piece first
// (4.6, B5b; 2023 4.8).
absl::StatusOr<std::vector<v1::ArbitrationEvent>> TouchMoveClaim(const TouchLog& log,
                                                                 const chess::Position& position,
                                                                 const laws::Ruleset& ruleset,
                                                                 chess::Color claimant);

// The obligation `move` breaks, if any: a touch-move ruling's owed moves (in every game), or the
// touches' obligation where the arbiter acts himself (standard play; in rapid and blitz B5a
// leaves it to a claim). Nothing to do, and nearly free, when no piece was touched.
std::optional<Obligation> BrokenBy(const TouchLog& log, const chess::Position& position,
                                   const laws::Ruleset& ruleset, chess::Move move);
// FAILED_PRECONDITION ERR_TOUCH_MOVE_OWED when BrokenBy finds an obligation.
absl::Status CheckTouchMove(const TouchLog& log, const chess::Position& position,
                            const laws::Ruleset& ruleset, chess::Move move);

// What GameView shows for the player to move: a ruling's owed moves (enforced), else his touches'
// obligation (4.3-4.5, 2023 4.4.4) under the edition's numbers, enforced where the arbiter acts
// himself (not in rapid and blitz under B5a). nullopt, nearly free, when nothing is touched or
// owed.
struct OwedMove {
  Obligation obligation;
  bool enforced = false;
};
std::optional<OwedMove> CurrentObligation(const TouchLog& log, const chess::Position& position,
                                          const laws::Ruleset& ruleset);

// The ruling recorded when a move breaks `obligation` (the arbiter acting himself, standard play;
// or the board showing it): the move is refused and the owed moves enforced.
v1::ArbitrationEvent ViolationRuled(chess::Color offender, const Obligation& obligation,
                                    chess::Move tried);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_TOUCH_MOVE_H_
