#include "tools/arbiterctl/game_client_testing.h"

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

GameRun RunGame(int port, const std::vector<std::string>& words) {
  ClientArgs args;
  args.flags["server"] = absl::StrCat("127.0.0.1:", port);
  args.positional.push_back("game");
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.rfind("--", 0) != 0) {
      args.positional.push_back(w);
      continue;
    }
    const std::string name = w.substr(2);
    bool boolean = name == "json";
    for (const char* b : kGameBooleanFlags) boolean = boolean || name == b;
    if (size_t eq = w.find('='); eq != std::string::npos) {
      args.flags[w.substr(2, eq - 2)] = w.substr(eq + 1);
    } else if (boolean) {
      args.flags[name] = "true";
    } else {
      args.flags[name] = i + 1 < words.size() ? words[++i] : "";
    }
  }
  std::ostringstream out, err;
  GameRun run;
  run.rc = RunGameClient(args, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
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
