#include "libs/arbitration/analyst.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/analysis/advice.h"
#include "libs/analysis/static_proofs.h"
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
  // The static proofs first (no search): dead when both sides are proved unable to mate.
  std::optional<analysis::StaticProof> white =
      analysis::ProveUnwinnableStatically(pos, chess::Color::kWhite);
  std::optional<analysis::StaticProof> black =
      analysis::ProveUnwinnableStatically(pos, chess::Color::kBlack);
  AnalystAnswer a;
  if (white && black) {
    a.verdict = analysis::Verdict::kUnwinnable;
    a.proof = absl::StrCat("white: ", analysis::MethodName(white->method), ": ", white->reason,
                           "; black: ", analysis::MethodName(black->method), ": ", black->reason);
    return a;
  }
  if (!white && !black && !options_.search_when_neither_proved) {
    // Neither side is proved unable to mate: on the move path this is where a search would find
    // a helpmate almost always, at ~100 us a move (rulings_benchmark); not searching leaves the
    // game running, which is sound (a dead position is only ever declared with a proof).
    return a;
  }
  // One side is proved unable: the game is dead exactly when the other cannot mate either.
  const chess::Color other = white ? chess::Color::kBlack : chess::Color::kWhite;
  const std::optional<analysis::StaticProof>& proved = white ? white : black;
  if (!white && !black) {
    analysis::DeadPositionResult r =
        analysis::AnalyzeDeadPosition(pos, {.max_nodes = options_.max_nodes});
    a.verdict = r.verdict;
    if (r.dead()) {
      a.proof = absl::StrCat("white: ", FromResult(r.white).proof,
                             "; black: ", FromResult(r.black).proof);
    }
    return a;
  }
  AnalystAnswer rest =
      FromResult(analysis::AnalyzeUnwinnability(pos, other, {.max_nodes = options_.max_nodes}));
  a.verdict = rest.verdict;
  if (rest.verdict == analysis::Verdict::kUnwinnable) {
    a.proof = absl::StrCat(chess::ColorName(~other), ": ", analysis::MethodName(proved->method),
                           ": ", proved->reason, "; ", chess::ColorName(other), ": ", rest.proof);
  }
  return a;
}

LocalAnalyst::LocalAnalyst(LocalAnalystOptions options) : options_(std::move(options)) {}

LocalAnalyst::~LocalAnalyst() = default;

analysis::EnginePool* LocalAnalyst::Engine() {
  absl::MutexLock lock(&engine_mu_);
  if (!engine_tried_ && options_.engine.has_value()) {
    engine_tried_ = true;
    absl::StatusOr<std::unique_ptr<analysis::EnginePool>> pool =
        analysis::EnginePool::Create(*options_.engine);
    if (pool.ok()) engine_ = *std::move(pool);
  }
  return engine_.get();
}

std::string LocalAnalyst::QuickplayAdvice(const chess::Game& game, chess::Color claimant) {
  analysis::ClaimAdviceOptions options;
  options.claimant = claimant;
  options.unwinnable_limits.max_nodes = options_.max_nodes;
  // The proof and the progress summary, and the engine's evaluation when there is one (10.2 is
  // the arbiter's judgement of whether the opponent is making progress by normal means).
  analysis::EnginePool* engine = Engine();
  absl::StatusOr<analysis::ClaimAdvice> a =
      analysis::AdviseClaim(game, engine, options, absl::Now() + options_.advice_time);
  if (!a.ok()) return "";
  std::string out = absl::StrCat(a->label, ": ", chess::ColorName(a->opponent), " ",
                                 a->opponent_can_mate.verdict == analysis::Verdict::kUnwinnable
                                     ? "cannot mate by any series of legal moves"
                                 : a->opponent_can_mate.verdict == analysis::Verdict::kWinnable
                                     ? "can still mate"
                                     : "may still be able to mate (undetermined)");
  for (const std::string& note : a->notes) absl::StrAppend(&out, "; ", note);
  if (options_.engine.has_value() && engine == nullptr) {
    absl::StrAppend(&out, "; no engine evaluation (the engine did not start)");
  }
  return out;
}

}  // namespace arbitration
