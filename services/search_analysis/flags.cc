#include "services/search_analysis/flags.h"

#include <cstdint>
#include <string>

#include "absl/flags/flag.h"
#include "libs/analysis/engine_pool.h"

ABSL_FLAG(int, analysis_workers, 2,
          "search_analysis: threads running analyses (gRPC's own threads only admit requests)");
ABSL_FLAG(
    int, analysis_max_queue, 64,
    "search_analysis: admitted requests that may wait for a worker; beyond, RESOURCE_EXHAUSTED");
ABSL_FLAG(int64_t, analysis_max_nodes, 20'000'000,
          "search_analysis: the largest max_nodes a request may ask for (a search keeps about 50 "
          "bytes per position: 20 million is about 1 GB at worst)");
ABSL_FLAG(int64_t, analysis_memory_mb, 384,
          "search_analysis: the memory the searches of all workers may hold together, in MiB "
          "(keep it below the pod's limit); it bounds --analysis_max_nodes (0: no bound)");
ABSL_FLAG(absl::Duration, analysis_max_time, absl::Minutes(2),
          "search_analysis: the longest time limit a request may ask for");
ABSL_FLAG(int, analysis_max_perft_depth, 7, "search_analysis: the deepest perft a caller may ask");
ABSL_FLAG(std::string, engine_path, analysis::kDefaultEnginePath,
          "search_analysis: the UCI engine (Stockfish); when it cannot start, engine RPCs answer "
          "UNAVAILABLE and the search RPCs still work");
ABSL_FLAG(int, engine_pool_size, 1, "search_analysis: engine processes (0: no engine)");

namespace search_analysis {

AnalysisOptions OptionsFromFlags() {
  return {.workers = absl::GetFlag(FLAGS_analysis_workers),
          .max_queue = absl::GetFlag(FLAGS_analysis_max_queue),
          .max_nodes = absl::GetFlag(FLAGS_analysis_max_nodes),
          .memory_mb = absl::GetFlag(FLAGS_analysis_memory_mb),
          .max_time = absl::GetFlag(FLAGS_analysis_max_time),
          .max_perft_depth = absl::GetFlag(FLAGS_analysis_max_perft_depth),
          .engine_path = absl::GetFlag(FLAGS_engine_path),
          .engine_pool_size = absl::GetFlag(FLAGS_engine_pool_size)};
}

}  // namespace search_analysis
