#include "libs/analysis/engine_pool.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "libs/analysis/errors.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"

namespace analysis {
namespace {

// How often a waiting request looks at its cancellation flag.
constexpr absl::Duration kPollSlice = absl::Milliseconds(20);

absl::Status Cancelled() { return base::Error(base::kErrCancelled, "the request was cancelled"); }

absl::Status DeadlineExceeded(absl::string_view what) {
  return base::Error(base::kErrDeadlineExceeded, what);
}

bool IsCancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

absl::Status ValidateLimits(const EngineLimits& limits, absl::Time deadline) {
  if (limits.depth < 0 || limits.depth > 128) {
    return base::Error(analysis::kErrBadLimits, "depth must be 0..128");
  }
  if (limits.nodes < 0) return base::Error(analysis::kErrBadLimits, "nodes must be >= 0");
  if (limits.movetime < absl::ZeroDuration()) {
    return base::Error(analysis::kErrBadLimits, "movetime must be >= 0");
  }
  if (limits.multipv < 1 || limits.multipv > 64) {
    return base::Error(analysis::kErrBadLimits, "multipv must be 1..64");
  }
  if (limits.depth == 0 && limits.nodes == 0 && limits.movetime == absl::ZeroDuration() &&
      deadline == absl::InfiniteFuture()) {
    return base::Error(analysis::kErrBadLimits,
                       "give a depth, nodes, movetime or a deadline: no endless search");
  }
  return absl::OkStatus();
}

}  // namespace

bool ParseInfoLine(absl::string_view text, const chess::Position& pos, PvLine* line) {
  std::vector<absl::string_view> t = absl::StrSplit(text, ' ', absl::SkipEmpty());
  if (t.empty() || t[0] != "info") return false;
  bool has_pv = false, has_score = false, bound = false;
  PvLine out = *line;
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i] == "string") return false;
    if (t[i] == "lowerbound" || t[i] == "upperbound") bound = true;
    if (i + 1 >= t.size()) break;
    if (t[i] == "depth") {
      (void)absl::SimpleAtoi(t[i + 1], &out.depth);
    } else if (t[i] == "multipv") {
      (void)absl::SimpleAtoi(t[i + 1], &out.multipv);
    } else if (t[i] == "score" && i + 2 < t.size()) {
      int v = 0;
      if (absl::SimpleAtoi(t[i + 2], &v)) {
        has_score = true;
        if (t[i + 1] == "cp") {
          out.score_cp = v;
          out.mate_in.reset();
        } else if (t[i + 1] == "mate") {
          out.mate_in = v;
          out.score_cp.reset();
        }
      }
    } else if (t[i] == "pv") {
      has_pv = true;
      out.pv.clear();
      chess::Position p = pos;
      for (size_t j = i + 1; j < t.size(); ++j) {
        absl::StatusOr<chess::Move> m = chess::ParseUci(p, t[j]);
        if (!m.ok()) break;  // never trust the engine past its first illegal move
        p.PlayUnchecked(*m);
        out.pv.push_back(*m);
      }
      break;
    }
  }
  if (!has_pv || !has_score || bound) return false;
  *line = std::move(out);
  return true;
}

absl::StatusOr<std::unique_ptr<EnginePool>> EnginePool::Create(const EnginePoolOptions& options) {
  if (options.size < 1 || options.size > 64) {
    return base::Error(analysis::kErrBadLimits, "pool size must be 1..64");
  }
  std::unique_ptr<EnginePool> pool(new EnginePool(options));
  const absl::Time deadline = absl::Now() + options.start_timeout;
  for (int i = 0; i < options.size; ++i) {
    absl::StatusOr<std::unique_ptr<UciEngine>> e = pool->StartEngine(deadline);
    if (!e.ok()) return e.status();
    absl::MutexLock lock(&pool->mu_);
    pool->idle_.push_back(*std::move(e));
  }
  return pool;
}

EnginePool::~EnginePool() {
  absl::MutexLock lock(&mu_);
  idle_.clear();  // each engine quits (or is killed) and is reaped
}

absl::StatusOr<std::unique_ptr<UciEngine>> EnginePool::StartEngine(absl::Time deadline) {
  absl::StatusOr<std::unique_ptr<UciEngine>> e = UciEngine::Start(options_.engine_path, deadline);
  if (!e.ok()) return e.status();
  UciEngine& engine = **e;
  absl::Status st =
      engine.Send(absl::StrCat("setoption name Threads value ", options_.threads_per_engine));
  if (st.ok()) st = engine.Send(absl::StrCat("setoption name Hash value ", options_.hash_mb));
  if (st.ok()) st = engine.Send("isready");
  if (st.ok()) st = engine.WaitFor("readyok", deadline).status();
  if (!st.ok()) {
    engine.Kill();
    return base::Error(analysis::kErrEngineUnavailable,
                       absl::StrCat("engine did not accept its options: ", st.message()));
  }
  return e;
}

absl::StatusOr<std::unique_ptr<UciEngine>> EnginePool::Acquire(absl::Time deadline,
                                                               const std::atomic<bool>* cancel) {
  std::unique_ptr<UciEngine> engine;
  {
    absl::MutexLock lock(&mu_);
    while (idle_.empty() && missing_ == 0) {
      if (IsCancelled(cancel)) return Cancelled();
      if (absl::Now() >= deadline) return DeadlineExceeded("no engine became free in time");
      idle_cv_.WaitWithDeadline(&mu_, std::min(deadline, absl::Now() + kPollSlice));
    }
    if (!idle_.empty()) {
      engine = std::move(idle_.back());
      idle_.pop_back();
    } else {
      --missing_;
    }
  }
  if (engine != nullptr && engine->Alive()) return engine;
  // The slot's engine died while idle (or earlier): replace it.
  engine.reset();
  restarts_.fetch_add(1);
  absl::StatusOr<std::unique_ptr<UciEngine>> fresh =
      StartEngine(std::min(deadline, absl::Now() + options_.start_timeout));
  if (!fresh.ok()) {
    absl::MutexLock lock(&mu_);
    ++missing_;
    idle_cv_.Signal();
  }
  return fresh;
}

void EnginePool::Release(std::unique_ptr<UciEngine> engine) {
  absl::MutexLock lock(&mu_);
  if (engine == nullptr) {
    ++missing_;
  } else {
    idle_.push_back(std::move(engine));
  }
  idle_cv_.Signal();
}

std::vector<pid_t> EnginePool::IdlePids() {
  absl::MutexLock lock(&mu_);
  std::vector<pid_t> pids;
  for (const auto& e : idle_) pids.push_back(e->pid());
  return pids;
}

EnginePoolStats EnginePool::Stats() {
  EnginePoolStats s;
  s.size = options_.size;
  s.restarts = restarts_.load();
  absl::MutexLock lock(&mu_);
  s.idle = static_cast<int>(idle_.size());
  s.missing = missing_;
  s.busy = std::max(0, s.size - s.idle - s.missing);
  return s;
}

absl::StatusOr<EngineAnalysis> EnginePool::Analyze(const chess::Position& start,
                                                   const std::vector<chess::Move>& moves,
                                                   const EngineLimits& limits, absl::Time deadline,
                                                   const std::atomic<bool>* cancel) {
  if (absl::Status st = ValidateLimits(limits, deadline); !st.ok()) return st;
  // Only positions libs/chess has validated and moves it has checked reach the engine.
  chess::Position final_position = start;
  std::string command = absl::StrCat("position fen ", chess::ToFen(start));
  if (!moves.empty()) absl::StrAppend(&command, " moves");
  for (chess::Move m : moves) {
    if (absl::Status st = final_position.Play(m); !st.ok()) return st;
    absl::StrAppend(&command, " ", chess::ToUci(m));
  }
  absl::Status last = base::Error(analysis::kErrEngineUnavailable, "no engine");
  for (int attempt = 0; attempt < 2; ++attempt) {  // one retry on a fresh engine after a crash
    absl::StatusOr<std::unique_ptr<UciEngine>> engine = Acquire(deadline, cancel);
    if (!engine.ok()) return engine.status();
    bool lost = false;
    absl::StatusOr<EngineAnalysis> result =
        Run(**engine, command, final_position, limits, deadline, cancel, &lost);
    if (lost) {
      (*engine)->Kill();
      Release(nullptr);
    } else {
      Release(*std::move(engine));
    }
    if (result.ok() || !lost || absl::IsDeadlineExceeded(result.status()) ||
        absl::IsCancelled(result.status())) {
      return result;
    }
    last = result.status();
  }
  return last;
}

absl::StatusOr<EngineAnalysis> EnginePool::Run(UciEngine& engine,
                                               const std::string& position_command,
                                               const chess::Position& final_position,
                                               const EngineLimits& limits, absl::Time deadline,
                                               const std::atomic<bool>* cancel, bool* engine_lost) {
  const absl::Time started = absl::Now();
  auto lose = [&](const absl::Status& st) {
    *engine_lost = true;
    return base::Error(analysis::kErrEngineUnavailable,
                       absl::StrCat("engine failed: ", st.message()));
  };
  absl::Status st = engine.Send(absl::StrCat("setoption name MultiPV value ", limits.multipv));
  if (st.ok()) st = engine.Send("isready");
  // A healthy engine answers at once; one that does not is hung.
  if (st.ok())
    st = engine.WaitFor("readyok", std::min(deadline, absl::Now() + absl::Seconds(5))).status();
  if (!st.ok()) {
    if (absl::IsDeadlineExceeded(st) && absl::Now() >= deadline) {
      *engine_lost = true;  // state unknown: do not reuse it
      return DeadlineExceeded("deadline passed before the engine was ready");
    }
    return lose(st);
  }
  if (!(st = engine.Send(position_command)).ok()) return lose(st);
  std::string go = "go";
  if (limits.depth > 0) absl::StrAppend(&go, " depth ", limits.depth);
  if (limits.nodes > 0) absl::StrAppend(&go, " nodes ", limits.nodes);
  if (limits.movetime > absl::ZeroDuration()) {
    absl::StrAppend(&go, " movetime ", absl::ToInt64Milliseconds(limits.movetime));
  }
  if (go == "go") go = "go infinite";  // bounded by the deadline (ValidateLimits)
  if (!(st = engine.Send(go)).ok()) return lose(st);

  EngineAnalysis result;
  std::map<int, PvLine> lines;
  bool stopped = false, cancelled = false;
  std::string bestmove;
  while (true) {
    absl::Time until =
        stopped ? absl::Now() + options_.stop_grace : std::min(deadline, absl::Now() + kPollSlice);
    absl::StatusOr<std::string> line = engine.ReadLine(until);
    if (!line.ok()) {
      if (!absl::IsDeadlineExceeded(line.status())) return lose(line.status());
      if (stopped) {
        // No bestmove within the grace after "stop": hung. Kill it; keep what it said.
        *engine_lost = true;
        break;
      }
      if (IsCancelled(cancel) || absl::Now() >= deadline) {
        cancelled = IsCancelled(cancel);
        stopped = true;
        if (!(st = engine.Send("stop")).ok()) return lose(st);
      }
      continue;
    }
    if (absl::StartsWith(*line, "info ")) {
      PvLine pv;
      if (ParseInfoLine(*line, final_position, &pv)) {
        lines[pv.multipv] = pv;
      }
      std::vector<absl::string_view> t = absl::StrSplit(*line, ' ', absl::SkipEmpty());
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        std::int64_t n = 0;
        if (t[i] == "nodes" && absl::SimpleAtoi(t[i + 1], &n))
          result.nodes = std::max(result.nodes, n);
      }
    } else if (absl::StartsWith(*line, "bestmove")) {
      std::vector<absl::string_view> t = absl::StrSplit(*line, ' ', absl::SkipEmpty());
      if (t.size() >= 2) bestmove = std::string(t[1]);
      break;
    }
  }
  result.elapsed = absl::Now() - started;
  result.complete = !stopped;
  if (cancelled) return Cancelled();
  for (auto& [rank, pv] : lines) result.lines.push_back(std::move(pv));
  if (absl::StatusOr<chess::Move> m = chess::ParseUci(final_position, bestmove); m.ok()) {
    result.best_move = *m;
  } else if (!result.lines.empty() && !result.lines[0].pv.empty()) {
    result.best_move = result.lines[0].pv[0];
  }
  if (stopped && result.lines.empty()) {
    return DeadlineExceeded("the deadline passed before the engine reported any line");
  }
  return result;
}

}  // namespace analysis
