// The questions the rulings ask that need search (5.2b / 9.6 dead position, 6.10 and C3 "can the
// opponent still mate", 1997 C4 mating potential), injected so that every ruling is testable and
// the answer can come from this process (LocalAnalyst, libs/analysis) or the search-analysis
// service. Answers are sound: kUnwinnable and kWinnable carry a proof; a limit gives kUndetermined.
#ifndef ARBITER_LIBS_ARBITRATION_ANALYST_H_
#define ARBITER_LIBS_ARBITRATION_ANALYST_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "libs/analysis/engine_pool.h"
#include "libs/analysis/unwinnable.h"
#include "libs/chess/game.h"
#include "libs/chess/position.h"

namespace arbitration {

struct AnalystAnswer {
  analysis::Verdict verdict = analysis::Verdict::kUndetermined;
  std::string proof;  // the method and its reason, or the mating line in UCI
  // kUndetermined because the analysis could not be had (search-analysis down, the call's
  // deadline passed), not because the search reached its limits: asking again may answer.
  bool unanswered = false;
};

class Analyst {
 public:
  virtual ~Analyst() = default;
  // Can `side` checkmate by some series of legal moves (6.10, C3)?
  virtual AnalystAnswer CanMate(const chess::Position& pos, chess::Color side) = 0;
  // 1997 C4: has `side` mating potential?
  virtual AnalystAnswer MatingPotential(const chess::Position& pos, chess::Color side) = 0;
  // 5.2b / 9.6: kUnwinnable = dead (neither side can mate), kWinnable = alive, kUndetermined =
  // not proved dead (the game goes on).
  virtual AnalystAnswer DeadPosition(const chess::Position& pos) = 0;
  // 5.2b / 9.6 on a move's path: the answer this analyst gives without waiting on another
  // service, or nullopt when the question needs search-analysis (the move is then accepted and
  // the question asked off its path). An analyst in this process answers at once.
  virtual std::optional<AnalystAnswer> DeadPositionAtOnce(const chess::Position& pos) {
    return DeadPosition(pos);
  }
  // 10.2 / D1: advice for the arbiter on a quickplay claim by `claimant` (labelled as advice, for
  // arbiters only, 12.2): whether the opponent can mate at all, and his progress. "" = none.
  virtual std::string QuickplayAdvice(const chess::Game& game, chess::Color claimant) { return ""; }
  // How many analyses the move path asked for (dead-position checks), for metrics.
  std::int64_t calls() const { return calls_.load(std::memory_order_relaxed); }

 protected:
  void Count() { calls_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> calls_{0};
};

// What the analysts share, so that an answer reads the same from this process or from the
// search-analysis service.
// The answer for a verdict reached by `method`: its proof is the mating line (UCI, when winnable
// and not empty) or the reason.
AnalystAnswer AnswerOf(analysis::Verdict verdict, analysis::Method method,
                       absl::string_view line_uci, absl::string_view reason);
// 6.10 / C3 without search: kUnwinnable with its proof when a static proof holds, else nullopt.
std::optional<AnalystAnswer> CanMateByProofs(const chess::Position& pos, chess::Color side);
// 1997 C4 without search: proved without mating potential (or without any mate), else nullopt.
std::optional<AnalystAnswer> MatingPotentialByProofs(const chess::Position& pos, chess::Color side);
// 5.2b / 9.6 by the static proofs first: dead when both sides are proved unable to mate; when one
// is, dead exactly when `can_mate` (a search) proves the other unable too; nullopt when neither is.
std::optional<AnalystAnswer> DeadPositionByProofs(
    const chess::Position& pos, absl::FunctionRef<AnalystAnswer(chess::Color)> can_mate);
// 10.2 / D1: the advice for the arbiter in one line: the label, whether `opponent` can still mate
// (`verdict`), then the notes.
std::string AdviceText(absl::string_view label, chess::Color opponent, analysis::Verdict verdict,
                       const std::vector<std::string>& notes);

struct LocalAnalystOptions {
  std::int64_t max_nodes = 200'000;  // per question
  // DeadPosition: search even when no static proof holds for either side (see analyst.cc).
  bool search_when_neither_proved = false;
  // The engine (Stockfish) for a 10.2 claim's advice: its evaluation of the position, and of the
  // one some moves earlier, beside the proof and the progress summary. Started at the first
  // claim that asks, kept for the next; nullopt or an engine that cannot start: no engine (the
  // advice says so).
  std::optional<analysis::EnginePoolOptions> engine;
  absl::Duration advice_time = absl::Seconds(3);  // the most a claim's advice may take
};

// libs/analysis in this process.
class LocalAnalyst final : public Analyst {
 public:
  explicit LocalAnalyst(LocalAnalystOptions options = {});
  ~LocalAnalyst() override;
  AnalystAnswer CanMate(const chess::Position& pos, chess::Color side) override;
  AnalystAnswer MatingPotential(const chess::Position& pos, chess::Color side) override;
  AnalystAnswer DeadPosition(const chess::Position& pos) override;
  std::string QuickplayAdvice(const chess::Game& game, chess::Color claimant) override;

 private:
  // The engine pool, started on the first call (nullptr: none configured, or it did not start).
  analysis::EnginePool* Engine();

  const LocalAnalystOptions options_;
  absl::Mutex engine_mu_;
  bool engine_tried_ ABSL_GUARDED_BY(engine_mu_) = false;
  std::unique_ptr<analysis::EnginePool> engine_ ABSL_GUARDED_BY(engine_mu_);
};

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_ANALYST_H_
