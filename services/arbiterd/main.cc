// arbiterd: hosts the Arbiter services named by --services in one process on one port
// ("all" = every service that exists; the local default). See libs/service/flags.h for the flags.
//
//   arbiterd --services=all --insecure_dev
//   arbiterd --services=rules_validation --auth_keys=/etc/arbiter/keys.json --tls_cert=...
//   --tls_key=...
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "libs/base/error.h"
#include "libs/service/flags.h"
#include "libs/service/log.h"
#include "libs/service/server.h"
#include "services/arbitration/host.h"
#include "services/clock_authority/host.h"
#include "services/rules_validation/rules_service.h"
#include "services/search_analysis/analysis_service.h"
#include "services/search_analysis/flags.h"

ABSL_FLAG(int, max_perft_depth, 6, "rules_validation: the deepest perft a caller may ask for");

namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "arbiterd: %s: %s\n", base::ErrorCode(status).c_str(),
               std::string(status.message()).c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists, so that only the signal thread receives SIGTERM/SIGINT.
  service::BlockShutdownSignals();
  absl::SetProgramUsageMessage(
      "arbiterd: the Arbiter server. Flags: --services, --grpc_address, ...");
  absl::ParseCommandLine(argc, argv);
  service::ServerConfig config = service::ConfigFromFlags();

  const std::vector<std::string> known = {"rules_validation", "search_analysis", "clock_authority",
                                          "arbitration"};
  std::set<std::string> wanted;
  for (absl::string_view s : absl::StrSplit(config.services, ',', absl::SkipWhitespace())) {
    if (s == "all") {
      wanted.insert(known.begin(), known.end());
    } else if (std::find(known.begin(), known.end(), s) != known.end()) {
      wanted.insert(std::string(s));
    } else {
      return Fail(base::InvalidArgument("ERR_BAD_FLAG",
                                        "--services: unknown service '" + std::string(s) +
                                            "' (known: " + absl::StrJoin(known, ", ") + ", all)"));
    }
  }
  if (wanted.empty())
    return Fail(base::InvalidArgument("ERR_BAD_FLAG", "--services names no service"));

  absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
  if (!env.ok()) return Fail(env.status());

  std::vector<service::HostedService> hosted;
  std::unique_ptr<rules_validation::RulesValidationService> rules;
  if (wanted.count("rules_validation")) {
    rules_validation::RulesLimits limits;
    limits.max_perft_depth = absl::GetFlag(FLAGS_max_perft_depth);
    rules = std::make_unique<rules_validation::RulesValidationService>(env->get(), limits);
    hosted.push_back(
        {rules_validation::RulesValidationService::kName, rules.get(), rules->async_methods()});
  }
  std::unique_ptr<search_analysis::SearchAnalysisService> analysis;
  if (wanted.count("search_analysis")) {  // 5.2b, 6.10, 9.6, 10.2, C3, C4: searches and the engine
    absl::StatusOr<std::unique_ptr<search_analysis::SearchAnalysisService>> created =
        search_analysis::SearchAnalysisService::Create(env->get(),
                                                       search_analysis::OptionsFromFlags());
    if (!created.ok()) return Fail(created.status());
    analysis = *std::move(created);
    hosted.push_back({search_analysis::SearchAnalysisService::kName, analysis.get()});
  }

  // The clock authority: its store is --store (memory by default, or redis://host:port).
  std::unique_ptr<clock_authority::ClockAuthorityHost> clock;
  if (wanted.count("clock_authority")) {
    absl::StatusOr<std::unique_ptr<clock_authority::ClockAuthorityHost>> host =
        clock_authority::ClockAuthorityHost::Create(config, env->get(),
                                                    clock_authority::ClockHostOptionsFromFlags());
    if (!host.ok()) return Fail(host.status());
    clock = std::move(*host);
    hosted.push_back(clock->hosted());
  }

  // The arbitration service: the games, in their own store (with --store=memory a store of its
  // own; on Redis its own key prefix, so the clock authority's scheduler never sees a game).
  std::unique_ptr<arbitration_service::ArbitrationHost> arbitration;
  if (wanted.count("arbitration")) {
    absl::StatusOr<std::unique_ptr<arbitration_service::ArbitrationHost>> host =
        arbitration_service::ArbitrationHost::Create(
            config, env->get(), arbitration_service::ArbitrationHostOptionsFromFlags());
    if (!host.ok()) return Fail(host.status());
    arbitration = std::move(*host);
    hosted.push_back(arbitration->hosted());
  }

  {
    absl::StatusOr<std::unique_ptr<service::Server>> server =
        service::Server::Start(config, env->get(), hosted);
    if (!server.ok()) return Fail(server.status());
    if (clock != nullptr) clock->Start();
    if (arbitration != nullptr) arbitration->Start();
    service::ShutdownOnSignals(server->get());
    (*server)->Wait();
  }
  if (arbitration != nullptr) arbitration->Stop();
  if (clock != nullptr) clock->Stop();
  service::Log(service::LogLevel::kInfo, "stopped");
  return 0;
}
