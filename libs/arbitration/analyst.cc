#include "libs/arbitration/analyst.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/analysis/advice.h"
#include "libs/analysis/static_proofs.h"
#include "libs/chess/notation.h"

namespace arbitration {
namespace {

AnalystAnswer FromResult(const analysis::UnwinnabilityResult& r) {
  std::string line;
  for (const chess::Move& m : r.line)
    absl::StrAppend(&line, line.empty() ? "" : " ", chess::ToUci(m));
  return AnswerOf(r.verdict, r.method, line, r.reason);
}

AnalystAnswer ProvedUnable(const analysis::StaticProof& proof) {
  return AnswerOf(analysis::Verdict::kUnwinnable, proof.method, "", proof.reason);
}

}  // namespace

AnalystAnswer AnswerOf(analysis::Verdict verdict, analysis::Method method,
                       absl::string_view line_uci, absl::string_view reason) {
  AnalystAnswer a;
  a.verdict = verdict;
  const bool line = verdict == analysis::Verdict::kWinnable && !line_uci.empty();
  a.proof = absl::StrCat(analysis::MethodName(method), ": ", line ? line_uci : reason);
  return a;
}

std::optional<AnalystAnswer> CanMateByProofs(const chess::Position& pos, chess::Color side) {
  std::optional<analysis::StaticProof> proof = analysis::ProveUnwinnableStatically(pos, side);
  if (!proof) return std::nullopt;
  return ProvedUnable(*proof);
}

std::optional<AnalystAnswer> MatingPotentialByProofs(const chess::Position& pos,
                                                     chess::Color side) {
  // C4: without any mate there is no mating potential either.
  std::optional<analysis::StaticProof> proof = analysis::NoMatingPotentialProof(pos, side);
  if (!proof) proof = analysis::ProveUnwinnableStatically(pos, side);
  if (!proof) return std::nullopt;
  return ProvedUnable(*proof);
}

std::optional<AnalystAnswer> DeadPositionByProofs(
    const chess::Position& pos, absl::FunctionRef<AnalystAnswer(chess::Color)> can_mate) {
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
  if (!white && !black) return std::nullopt;
  // One side is proved unable: the game is dead exactly when the other cannot mate either.
  const chess::Color other = white ? chess::Color::kBlack : chess::Color::kWhite;
  const std::optional<analysis::StaticProof>& proved = white ? white : black;
  AnalystAnswer rest = can_mate(other);
  a.verdict = rest.verdict;
  a.unanswered = rest.unanswered;
  if (rest.verdict == analysis::Verdict::kUnwinnable) {
    a.proof = absl::StrCat(chess::ColorName(~other), ": ", analysis::MethodName(proved->method),
                           ": ", proved->reason, "; ", chess::ColorName(other), ": ", rest.proof);
  }
  return a;
}

std::string AdviceText(absl::string_view label, chess::Color opponent, analysis::Verdict verdict,
                       const std::vector<std::string>& notes) {
  std::string out = absl::StrCat(
      label, ": ", chess::ColorName(opponent), " ",
      verdict == analysis::Verdict::kUnwinnable ? "cannot mate by any series of legal moves"
      : verdict == analysis::Verdict::kWinnable ? "can still mate"
                                                : "may still be able to mate (undetermined)");
  for (const std::string& note : notes) absl::StrAppend(&out, "; ", note);
  return out;
}

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
  // The static proofs first (no search), then a search for the side no proof covers.
  std::optional<AnalystAnswer> proved = DeadPositionByProofs(pos, [&](chess::Color other) {
    return FromResult(
        analysis::AnalyzeUnwinnability(pos, other, {.max_nodes = options_.max_nodes}));
  });
  if (proved) return *proved;
  if (!options_.search_when_neither_proved) {
    // Neither side is proved unable to mate: on the move path this is where a search would find
    // a helpmate almost always, at ~100 us a move (rulings_benchmark); not searching leaves the
    // game running, which is sound (a dead position is only ever declared with a proof).
    return {};
  }
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
  std::string out = AdviceText(a->label, a->opponent, a->opponent_can_mate.verdict, a->notes);
  if (options_.engine.has_value() && engine == nullptr) {
    absl::StrAppend(&out, "; no engine evaluation (the engine did not start)");
  }
  return out;
}

}  // namespace arbitration
