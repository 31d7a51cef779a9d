#include "libs/analysis/uci_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "libs/analysis/errors.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"

extern char** environ;

namespace analysis {
namespace {

absl::Status Unavailable(absl::string_view message) {
  return base::Error(analysis::kErrEngineUnavailable, message);
}

}  // namespace

absl::StatusOr<std::unique_ptr<UciEngine>> UciEngine::Start(const std::string& path,
                                                            absl::Time deadline) {
  if (access(path.c_str(), X_OK) != 0) {
    return Unavailable(absl::StrCat("engine ", path, " is not an executable file"));
  }
  // A socket pair rather than pipes: writes use MSG_NOSIGNAL, so an engine that dies never
  // raises SIGPIPE in the server.
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return Unavailable(absl::StrCat("socketpair: errno ", errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return Unavailable(absl::StrCat("cannot start ", path, ": error ", rc));
  }
  std::unique_ptr<UciEngine> engine(new UciEngine(pid, fds[0]));
  absl::Status st = engine->Send("uci");
  if (st.ok()) st = engine->WaitFor("uciok", deadline).status();
  if (st.ok()) st = engine->Send("isready");
  if (st.ok()) st = engine->WaitFor("readyok", deadline).status();
  if (!st.ok()) {
    engine->Kill();
    return Unavailable(
        absl::StrCat("engine ", path, " did not complete the UCI handshake: ", st.message()));
  }
  return engine;
}

UciEngine::~UciEngine() {
  if (!reaped_) {
    (void)Send("quit");
    // A short grace for a clean exit, then no mercy.
    for (int i = 0; i < 20 && Alive(); ++i) usleep(5000);
    Kill();
  }
  if (fd_ >= 0) close(fd_);
}

absl::Status UciEngine::Send(absl::string_view line) {
  if (reaped_) return Unavailable("engine process has exited");
  std::string data = absl::StrCat(line, "\n");
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Unavailable(absl::StrCat("engine input closed: errno ", errno));
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> UciEngine::ReadLine(absl::Time deadline) {
  while (true) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (reaped_) return Unavailable("engine process has exited");
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return base::Error(base::kErrDeadlineExceeded, "engine did not answer before the deadline");
    }
    pollfd p{fd_, POLLIN, 0};
    const int ms = static_cast<int>(std::min<std::int64_t>(
        absl::ToInt64Milliseconds(absl::Ceil(left, absl::Milliseconds(1))), 1 << 30));
    const int r = poll(&p, 1, ms);
    if (r < 0 && errno != EINTR) return Unavailable(absl::StrCat("poll: errno ", errno));
    if (r <= 0) continue;
    char chunk[4096];
    const ssize_t n = read(fd_, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      (void)Alive();
      return Unavailable("engine output closed (the process has died)");
    }
    buffer_.append(chunk, static_cast<size_t>(n));
    if (buffer_.size() > (1u << 22)) return Unavailable("engine output line too long");
  }
}

absl::StatusOr<std::string> UciEngine::WaitFor(absl::string_view prefix, absl::Time deadline) {
  while (true) {
    absl::StatusOr<std::string> line = ReadLine(deadline);
    if (!line.ok()) return line.status();
    if (absl::StartsWith(*line, prefix)) return line;
  }
}

bool UciEngine::Alive() {
  if (reaped_) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) {
    reaped_ = true;
    return false;
  }
  return true;
}

void UciEngine::Kill() {
  if (reaped_) return;
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
}

}  // namespace analysis
