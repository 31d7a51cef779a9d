// For the tests of `arbiterctl game ...` (and `event ...`): a fake arbitration service on a free
// loopback port, fresh for every test, and the command run against it with its flags parsed as
// main.cc parses them.
//
//   class FakeArbitration final : public arbiter::v1::Arbitration::Service { ... };
//   class GameGetTest : public FakeGameServiceTest<FakeArbitration> {};
//   TEST_F(GameGetTest, ...) {
//     GameRun run = Run({"get", "--game", "g1", "--json"});
//     EXPECT_EQ(run.rc, 0);
//     EXPECT_EQ(fake_.last_get.game_id(), "g1");
//   }
#ifndef ARBITER_TOOLS_ARBITERCTL_GAME_CLIENT_TESTING_H_
#define ARBITER_TOOLS_ARBITERCTL_GAME_CLIENT_TESTING_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "grpcpp/impl/service_type.h"
#include "grpcpp/server.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/args.h"

namespace arbiterctl {

// `service` served on a free loopback port (plaintext) until destroyed.
class FakeServer {
 public:
  explicit FakeServer(grpc::Service* service);
  ~FakeServer();
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  int port() const { return port_; }

 private:
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

// What one run of the command printed, and its exit code.
struct GameRun {
  int rc = 0;
  std::string out;
  std::string err;
};

// `arbiterctl --server=127.0.0.1:<port> <command> <words...>` run by `run` (RunGameClient,
// RunEventRecord, ...), the words parsed as main.cc parses them (Args::Parse): flags
// "--name=value", "--name value", or the `boolean_flags` alone.
GameRun RunCommand(int port, const std::string& command, const std::vector<std::string>& words,
                   const std::vector<std::string>& boolean_flags,
                   int (*run)(const Args&, std::ostream&, std::ostream&));

// RunCommand for `game`, its boolean flags --json and kGameBooleanFlags.
GameRun RunGame(int port, const std::vector<std::string>& words);

// RunGame with --json: the output's JSON; a test failure if the exit code is not `want_rc` or the
// output is no JSON.
nlohmann::json RunGameJson(int port, std::vector<std::string> words, int want_rc = 0);

// A fresh `Fake` service served for each test, and `arbiterctl game` run against it.
template <typename Fake>
class FakeGameServiceTest : public ::testing::Test {
 protected:
  GameRun Run(const std::vector<std::string>& words) { return RunGame(server_.port(), words); }
  nlohmann::json RunJson(std::vector<std::string> words, int want_rc = 0) {
    return RunGameJson(server_.port(), std::move(words), want_rc);
  }

  Fake fake_;
  FakeServer server_{&fake_};  // after the fake: stops before it goes
};

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_GAME_CLIENT_TESTING_H_
