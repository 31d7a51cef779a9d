// A pool of UCI engine processes for advice (10.2, Appendix D): each request borrows one engine,
// runs one search with limits (depth, nodes, time, MultiPV) and gives it back. Every position is
// a chess::Position (validated by libs/chess) before it reaches an engine: Stockfish crashes on
// some invalid FENs. A crashed engine is replaced (and the request retried once); a hung one is
// killed and replaced; the caller's deadline and cancellation flag bound every wait, so a gRPC
// handler can pass its call's deadline and a cancel flag straight through.
//
//   ASSIGN_OR_RETURN(auto pool, EnginePool::Create({.engine_path = "/usr/games/stockfish",
//                                                   .size = 2}));
//   ASSIGN_OR_RETURN(EngineAnalysis a, pool->Analyze(pos, {}, {.depth = 12, .multipv = 3},
//                                                     absl::Now() + absl::Seconds(5)));
//
// Errors: INVALID_ARGUMENT ERR_BAD_LIMITS (no limit at all and no deadline, or out of range),
// ERR_BAD_FEN / ERR_ILLEGAL_MOVE from libs/chess for the *Text variant, UNAVAILABLE
// ERR_ENGINE_UNAVAILABLE (no engine could be started or it died twice), DEADLINE_EXCEEDED
// ERR_DEADLINE_EXCEEDED (the deadline passed before any engine output), CANCELLED ERR_CANCELLED.
#ifndef ARBITER_LIBS_ANALYSIS_ENGINE_POOL_H_
#define ARBITER_LIBS_ANALYSIS_ENGINE_POOL_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "libs/analysis/uci_engine.h"
#include "libs/chess/position.h"
#include "libs/chess/types.h"

namespace analysis {

inline constexpr char kDefaultEnginePath[] = "/usr/games/stockfish";

struct EngineLimits {
  int depth = 0;                                   // 0: none
  std::int64_t nodes = 0;                          // 0: none
  absl::Duration movetime = absl::ZeroDuration();  // zero: none
  int multipv = 1;                                 // 1..64
};

// One principal variation, as the engine last reported it. Scores are from the point of view
// of the side to move in the analysed position (UCI's convention).
struct PvLine {
  int multipv = 1;
  int depth = 0;
  std::optional<int> score_cp;
  std::optional<int> mate_in;  // moves; negative when the side to move is mated
  std::vector<chess::Move> pv;
};

struct EngineAnalysis {
  std::vector<PvLine> lines;  // by multipv rank, best first
  chess::Move best_move;      // null when the position has no legal move
  std::int64_t nodes = 0;
  absl::Duration elapsed;
  // False when the deadline stopped the search early (the lines are the deepest reached).
  bool complete = true;
};

// A snapshot of the pool for metrics: size = idle + busy + missing.
struct EnginePoolStats {
  int size = 0;
  int idle = 0;     // waiting for a request
  int busy = 0;     // lent to a request (or being started for one)
  int missing = 0;  // slots whose engine died and is not replaced yet (replaced on next use)
  int restarts = 0;
};

struct EnginePoolOptions {
  std::string engine_path = kDefaultEnginePath;
  int size = 1;
  int threads_per_engine = 1;
  int hash_mb = 16;
  absl::Duration start_timeout = absl::Seconds(20);
  absl::Duration stop_grace = absl::Seconds(2);  // after "stop", before the engine counts as hung
};

class EnginePool {
 public:
  // Starts `size` engines (1..64). UNAVAILABLE ERR_ENGINE_UNAVAILABLE if none starts.
  static absl::StatusOr<std::unique_ptr<EnginePool>> Create(const EnginePoolOptions& options);
  ~EnginePool();

  // Analyses `start` after `moves` (each checked legal by libs/chess).
  absl::StatusOr<EngineAnalysis> Analyze(const chess::Position& start,
                                         const std::vector<chess::Move>& moves,
                                         const EngineLimits& limits, absl::Time deadline,
                                         const std::atomic<bool>* cancel = nullptr);

  int size() const { return options_.size; }
  // Engines started to replace dead or hung ones since creation.
  int restarts() const { return restarts_.load(); }
  // Process ids of the idle engines (for tests and metrics).
  std::vector<pid_t> IdlePids();
  EnginePoolStats Stats();

 private:
  explicit EnginePool(const EnginePoolOptions& options) : options_(options) {}
  absl::StatusOr<std::unique_ptr<UciEngine>> StartEngine(absl::Time deadline);
  // Takes an idle engine (waiting until the deadline or cancellation); a dead one is replaced.
  absl::StatusOr<std::unique_ptr<UciEngine>> Acquire(absl::Time deadline,
                                                     const std::atomic<bool>* cancel);
  void Release(std::unique_ptr<UciEngine> engine);
  // One search on one engine. `*engine_lost` is set when the engine died or hung (and was killed).
  absl::StatusOr<EngineAnalysis> Run(UciEngine& engine, const std::string& position_command,
                                     const chess::Position& final_position,
                                     const EngineLimits& limits, absl::Time deadline,
                                     const std::atomic<bool>* cancel, bool* engine_lost);

  const EnginePoolOptions options_;
  std::atomic<int> restarts_{0};
  absl::Mutex mu_;
  absl::CondVar idle_cv_;
  std::vector<std::unique_ptr<UciEngine>> idle_ ABSL_GUARDED_BY(mu_);
  int missing_ ABSL_GUARDED_BY(mu_) = 0;  // slots whose engine died and must be restarted
};

// Parses one UCI "info" line into `line` (fields absent from the text are left alone); returns
// false for info lines without a pv or a score. The moves are checked legal from `pos`.
bool ParseInfoLine(absl::string_view text, const chess::Position& pos, PvLine* line);

}  // namespace analysis

#endif  // ARBITER_LIBS_ANALYSIS_ENGINE_POOL_H_
