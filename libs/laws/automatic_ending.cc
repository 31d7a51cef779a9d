#include "libs/laws/automatic_ending.h"

#include "absl/strings/str_cat.h"
#include "libs/analysis/static_proofs.h"

namespace laws {

std::optional<AutomaticEnding> EndingOf(const chess::Game& game, laws::Edition edition) {
  const chess::Position& pos = game.position();
  if (pos.IsCheckmate()) {
    return AutomaticEnding{Outcome::Win(~pos.side_to_move(), Termination::kCheckmate, "5.1a"), ""};
  }
  if (pos.IsStalemate()) return AutomaticEnding{Outcome::Draw(Termination::kStalemate, "5.2a"), ""};
  if (edition == laws::Edition::kFide2023) {
    if (game.IsFivefoldRepetition()) {
      return AutomaticEnding{Outcome::Draw(Termination::kFivefoldRepetition, "9.6.1"), ""};
    }
    if (game.IsSeventyFiveMoveRule()) {
      return AutomaticEnding{Outcome::Draw(Termination::kSeventyFiveMoves, "9.6.2"), ""};
    }
  }
  if (pos.IsInsufficientMaterial()) {
    return AutomaticEnding{Outcome::Draw(Termination::kDeadPosition, "5.2b"),
                           "material: neither side has enough material to mate"};
  }
  std::optional<analysis::StaticProof> white =
      analysis::ProveUnwinnableStatically(pos, chess::Color::kWhite);
  if (!white) return std::nullopt;
  std::optional<analysis::StaticProof> black =
      analysis::ProveUnwinnableStatically(pos, chess::Color::kBlack);
  if (!black) return std::nullopt;
  return AutomaticEnding{
      Outcome::Draw(Termination::kDeadPosition, "5.2b"),
      absl::StrCat("white: ", analysis::MethodName(white->method), ": ", white->reason,
                   "; black: ", analysis::MethodName(black->method), ": ", black->reason)};
}

}  // namespace laws
