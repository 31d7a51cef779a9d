#include "tools/arbiterctl/game_client_testing.h"

#include <iterator>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "tools/arbiterctl/game_client.h"

namespace arbiterctl {

FakeServer::FakeServer(grpc::Service* service) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
  builder.RegisterService(service);
  server_ = builder.BuildAndStart();
}

FakeServer::~FakeServer() {
  if (server_ != nullptr) server_->Shutdown();
}

GameRun RunCommand(int port, const std::string& command, const std::vector<std::string>& words,
                   const std::vector<std::string>& boolean_flags,
                   int (*run)(const Args&, std::ostream&, std::ostream&)) {
  std::vector<std::string> argv_words = {"arbiterctl", absl::StrCat("--server=127.0.0.1:", port),
                                         command};
  argv_words.insert(argv_words.end(), words.begin(), words.end());
  std::vector<const char*> argv;
  for (const std::string& w : argv_words) argv.push_back(w.c_str());
  const Args args = Args::Parse(static_cast<int>(argv.size()), argv.data(), boolean_flags);
  std::ostringstream out, err;
  GameRun result;
  result.rc = run(args, out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

GameRun RunGame(int port, const std::vector<std::string>& words) {
  std::vector<std::string> boolean_flags = {"json"};
  boolean_flags.insert(boolean_flags.end(), std::begin(kGameBooleanFlags),
                       std::end(kGameBooleanFlags));
  return RunCommand(port, "game", words, boolean_flags, RunGameClient);
}

nlohmann::json RunGameJson(int port, std::vector<std::string> words, int want_rc) {
  words.push_back("--json");
  const GameRun run = RunGame(port, words);
  EXPECT_EQ(run.rc, want_rc) << run.out << run.err;
  nlohmann::json j = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << run.out;
  return j;
}

}  // namespace arbiterctl
