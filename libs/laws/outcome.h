// How a game ends, in the Laws' own terms: the result, the way it ended (the termination) and the
// article that decided it. A flag is never a result by itself (6.10): the game's rulings make an
// Outcome from it. Proto conversions live in proto_convert.h.
//
//   Outcome o = Outcome::Win(chess::Color::kWhite, Termination::kCheckmate, "5.1a");
//   ResultText(o.result) == "1-0";  TerminationName(o.termination) == "checkmate"
#ifndef ARBITER_LIBS_LAWS_OUTCOME_H_
#define ARBITER_LIBS_LAWS_OUTCOME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "libs/chess/types.h"

namespace laws {

enum class Result : std::uint8_t {
  kOngoing,        // "*"
  kWhiteWins,      // "1-0"
  kBlackWins,      // "0-1"
  kDraw,           // "1/2-1/2"
  kDoubleForfeit,  // "0-0": both lose (6.7 both absent, 12.8)
  kAnnulled,       // 7.1a, A11: a new game is played
};
// "*", "1-0", "0-1", "1/2-1/2", "0-0", "annulled".
absl::string_view ResultText(Result result);

// The ways a game ends; the names are the proto's Termination in lower case without its prefix
// (the JSON contract of `arbiterctl game simulate`).
enum class Termination : std::uint8_t {
  kNone,
  kCheckmate,              // 5.1a
  kResignation,            // 5.1b
  kTimeForfeit,            // 6.9 / 6.10, B7
  kStalemate,              // 5.2a
  kDeadPosition,           // 5.2b, 9.6
  kAgreement,              // 5.2c, 9.1
  kThreefoldRepetition,    // 5.2d, 9.2
  kFiftyMoves,             // 5.2e, 9.3
  kFivefoldRepetition,     // 2023 9.6.1
  kSeventyFiveMoves,       // 2023 9.6.2
  kTimeoutVsInsufficient,  // 6.10: the flag fell, the opponent cannot mate
  kBothFlags,              // 6.12b (2005), 10.3, B8
  kIllegalMoves,           // 7.4b
  kDefault,                // 6.7
  kArbiterDecision,        // 10.2, 12.7, 13.4d, D1
  kQuickplayFinishClaim,   // 10.2a, D1
  kSealedMoveInvalid,      // A8
};
// "checkmate", "resignation", ..., "" for kNone.
absl::string_view TerminationName(Termination termination);

struct Outcome {
  Result result = Result::kOngoing;
  Termination termination = Termination::kNone;
  std::string article;

  static Outcome Win(chess::Color winner, Termination termination, absl::string_view article);
  static Outcome Draw(Termination termination, absl::string_view article);
  static Outcome BothLose(Termination termination, absl::string_view article);

  bool over() const { return result != Result::kOngoing; }
  // The single winner, if any.
  std::optional<chess::Color> winner() const;
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

// 11.1: what each result scores, unless the event's regulations announce other points.
struct Points {
  double win = 1.0;
  double draw = 0.5;
  double loss = 0.0;
};
// {white, black}; zero for both while ongoing or annulled.
std::pair<double, double> Score(Result result, const Points& points);

}  // namespace laws

#endif  // ARBITER_LIBS_LAWS_OUTCOME_H_
