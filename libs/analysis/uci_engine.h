// One UCI engine process (Stockfish: Debian `stockfish`, /usr/games/stockfish) spoken to over a
// socket pair on its stdin/stdout. Started with posix_spawn; every read has a deadline, so a hung
// engine never blocks its caller; a dead one reads as UNAVAILABLE ERR_ENGINE_UNAVAILABLE.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<UciEngine> e, UciEngine::Start(path, absl::Now() + 10s));
//   RETURN_IF_ERROR(e->Send("isready"));
//   ASSIGN_OR_RETURN(std::string line, e->ReadLine(deadline));
#ifndef ARBITER_LIBS_ANALYSIS_UCI_ENGINE_H_
#define ARBITER_LIBS_ANALYSIS_UCI_ENGINE_H_

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace analysis {

class UciEngine {
 public:
  // Starts `path` and completes the handshake (uci -> uciok, isready -> readyok) before
  // `deadline`. UNAVAILABLE ERR_ENGINE_UNAVAILABLE when it cannot be started or does not answer.
  static absl::StatusOr<std::unique_ptr<UciEngine>> Start(const std::string& path,
                                                          absl::Time deadline);
  ~UciEngine();  // "quit", then SIGKILL if it lingers; always reaped
  UciEngine(const UciEngine&) = delete;
  UciEngine& operator=(const UciEngine&) = delete;

  // Writes one line (the newline is added). UNAVAILABLE when the engine has gone.
  absl::Status Send(absl::string_view line);
  // The next line without its newline. DEADLINE_EXCEEDED ERR_DEADLINE_EXCEEDED at `deadline`
  // (the engine is still usable), UNAVAILABLE ERR_ENGINE_UNAVAILABLE on end of output.
  absl::StatusOr<std::string> ReadLine(absl::Time deadline);
  // Reads until a line starting with `prefix` (returned) or the deadline.
  absl::StatusOr<std::string> WaitFor(absl::string_view prefix, absl::Time deadline);

  // True while the process runs (reaps it when it has exited).
  bool Alive();
  // SIGKILL and reap. The object is unusable afterwards.
  void Kill();
  pid_t pid() const { return pid_; }

 private:
  UciEngine(pid_t pid, int fd) : pid_(pid), fd_(fd) {}

  pid_t pid_;
  int fd_;
  bool reaped_ = false;
  std::string buffer_;
};

}  // namespace analysis

#endif  // ARBITER_LIBS_ANALYSIS_UCI_ENGINE_H_
