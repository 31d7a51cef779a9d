// The search-analysis service's flags (arbiterd links them when it hosts the service):
//   --analysis_workers (2)  --analysis_max_queue (64)  --analysis_max_nodes (20000000)
//   --analysis_memory_mb (384: bounds --analysis_max_nodes to 384 MiB / (workers x 50 bytes))
//   --analysis_max_time (2m)  --analysis_max_perft_depth (7)
//   --engine_path (/usr/games/stockfish)  --engine_pool_size (1; 0: no engine)
#ifndef ARBITER_SERVICES_SEARCH_ANALYSIS_FLAGS_H_
#define ARBITER_SERVICES_SEARCH_ANALYSIS_FLAGS_H_

#include "services/search_analysis/analysis_service.h"

namespace search_analysis {

// The options the parsed flags describe (call after absl::ParseCommandLine).
AnalysisOptions OptionsFromFlags();

}  // namespace search_analysis

#endif  // ARBITER_SERVICES_SEARCH_ANALYSIS_FLAGS_H_
