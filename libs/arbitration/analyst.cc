#include "libs/arbitration/analyst.h"

#include "absl/strings/str_cat.h"
#include "libs/chess/notation.h"

namespace arbitration {
namespace {

AnalystAnswer FromResult(const analysis::UnwinnabilityResult& r) {
  AnalystAnswer a;
  a.verdict = r.verdict;
  if (r.verdict == analysis::Verdict::kWinnable) {
    std::string line;
    for (const chess::Move& m : r.line)
      absl::StrAppend(&line, line.empty() ? "" : " ", chess::ToUci(m));
    a.proof = absl::StrCat(analysis::MethodName(r.method), ": ", line.empty() ? r.reason : line);
  } else {
    a.proof = absl::StrCat(analysis::MethodName(r.method), ": ", r.reason);
  }
  return a;
}

}  // namespace

AnalystAnswer LocalAnalyst::CanMate(const chess::Position& pos, chess::Color side) {
  Count();
  return FromResult(analysis::AnalyzeUnwinnability(pos, side, {.max_nodes = options_.max_nodes}));
}

AnalystAnswer LocalAnalyst::MatingPotential(const chess::Position& pos, chess::Color side) {
  Count();
  return FromResult(analysis::AnalyzeMatingPotential(pos, side, {.max_nodes = options_.max_nodes}));
}

AnalystAnswer LocalAnalyst::DeadPosition(const chess::Position& pos) {
  Count();
  analysis::DeadPositionResult r =
      analysis::AnalyzeDeadPosition(pos, {.max_nodes = options_.max_nodes});
  AnalystAnswer a;
  a.verdict = r.verdict;
  if (r.dead()) {
    a.proof =
        absl::StrCat("white: ", FromResult(r.white).proof, "; black: ", FromResult(r.black).proof);
  }
  return a;
}

}  // namespace arbitration
