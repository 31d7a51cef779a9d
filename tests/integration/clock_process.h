// A server binary run as a child process by a test or benchmark: started with its flags on free
// loopback ports (--grpc_address=127.0.0.1:0), its JSON log in a file, the ports read from its
// "serving" line; killed with the test (PR_SET_PDEATHSIG) or on demand (SIGKILL: a crash).
//
//   auto replica =
//   ServerProcess::Start(FindRunfile("services/clock_authority/clock_authority_server"),
//                                       {"--store=redis://127.0.0.1:6379", "--insecure_dev"});
//   replica->grpc_port();  replica->Kill(SIGKILL);
#ifndef ARBITER_TESTS_INTEGRATION_CLOCK_PROCESS_H_
#define ARBITER_TESTS_INTEGRATION_CLOCK_PROCESS_H_

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace testing_util {

// A file of the runfiles tree ("services/clock_authority/clock_authority_server"), or "".
inline std::string FindRunfile(const std::string& rel) {
  const std::string path = "arbiter/" + rel;
  for (const char* env : {"TEST_SRCDIR", "RUNFILES_DIR"}) {
    if (const char* dir = std::getenv(env); dir != nullptr) {
      std::string p = absl::StrCat(dir, "/", path);
      if (std::filesystem::exists(p)) return p;
    }
  }
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::string p = absl::StrCat(exe.string(), ".runfiles/", path);
    if (std::filesystem::exists(p)) return p;
  }
  if (std::filesystem::exists(rel)) return std::filesystem::absolute(rel).string();
  return "";
}

class ServerProcess {
 public:
  // Start, tried up to `attempts` times: a port just released (a server restarted on its old
  // port) may be refused for a moment.
  static absl::StatusOr<std::unique_ptr<ServerProcess>> StartRetrying(
      const std::string& binary, const std::vector<std::string>& flags, int attempts = 5) {
    absl::StatusOr<std::unique_ptr<ServerProcess>> p = absl::UnknownError("not started");
    for (int attempt = 0; attempt < attempts; ++attempt) {
      p = Start(binary, flags);
      if (p.ok()) break;
      absl::SleepFor(absl::Milliseconds(200));
    }
    return p;
  }

  // The server's output goes to a file in `log_dir` ("": TEST_TMPDIR, else /tmp).
  static absl::StatusOr<std::unique_ptr<ServerProcess>> Start(
      const std::string& binary, std::vector<std::string> flags,
      absl::Duration timeout = absl::Seconds(30), const std::string& log_dir = "") {
    if (binary.empty() || !std::filesystem::exists(binary)) {
      return absl::NotFoundError(absl::StrCat("server binary not found: ", binary));
    }
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string log = absl::StrCat(!log_dir.empty() ? log_dir
                                   : tmp != nullptr ? tmp
                                                    : "/tmp",
                                   "/server.XXXXXX");
    int fd = mkstemp(log.data());
    if (fd < 0) return absl::InternalError("mkstemp");
    std::vector<std::string> args = {binary, "--grpc_address=127.0.0.1:0"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return absl::InternalError("fork");
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      // The test blocks nothing it cares about; the server blocks SIGTERM itself.
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      dup2(fd, STDERR_FILENO);
      int devnull = open("/dev/null", O_RDWR);
      if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
      }
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fd);
    std::unique_ptr<ServerProcess> p(new ServerProcess(pid, log));
    const absl::Time deadline = absl::Now() + timeout;
    const std::regex port_re("\"grpc_port\":\"([0-9]+)\"");
    const std::regex metrics_re("\"metrics_port\":\"([0-9]+)\"");
    while (absl::Now() < deadline) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        p->pid_ = -1;
        return absl::InternalError(
            absl::StrCat("the server exited (status ", status, "):\n", p->Log()));
      }
      const std::string text = p->Log();
      std::smatch m;
      if (text.find("\"msg\":\"serving\"") != std::string::npos &&
          std::regex_search(text, m, port_re)) {
        p->grpc_port_ = std::stoi(m[1]);
        if (std::regex_search(text, m, metrics_re)) p->metrics_port_ = std::stoi(m[1]);
        return p;
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
    return absl::DeadlineExceededError(absl::StrCat("the server did not start:\n", p->Log()));
  }

  ~ServerProcess() { Kill(SIGKILL); }

  int grpc_port() const { return grpc_port_; }
  int metrics_port() const { return metrics_port_; }
  pid_t pid() const { return pid_; }
  // The file the server's output goes to (left behind: a test's TEST_TMPDIR is cleaned by Bazel).
  const std::string& log_path() const { return log_; }

  // Sends `signal` and reaps the process (SIGKILL after 10 s).
  void Kill(int signal) {
    if (pid_ <= 0) return;
    kill(pid_, signal);
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) != pid_) {
      if (absl::Now() > deadline) kill(pid_, SIGKILL);
      absl::SleepFor(absl::Milliseconds(5));
    }
    pid_ = -1;
  }

  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  ServerProcess(pid_t pid, std::string log) : pid_(pid), log_(std::move(log)) {}

  pid_t pid_;
  std::string log_;
  int grpc_port_ = 0;
  int metrics_port_ = 0;
};

}  // namespace testing_util

#endif  // ARBITER_TESTS_INTEGRATION_CLOCK_PROCESS_H_
