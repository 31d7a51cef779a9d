// The arbitration service's analyst over a real search-analysis server (arbiterd
// --services=search_analysis, a child process on loopback): the answers as the in-process analyst
// gives them, the static proofs settled without a call, the caller authenticated by its own
// service token, round-robin over two servers, and no answer (the server killed) an undetermined
// one within the deadline, the client retrying UNAVAILABLE and recovering when the server returns.
#include "services/arbitration/remote_analyst.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/game.h"
#include "libs/chess/notation.h"
#include "libs/service/metrics.h"
#include "libs/service/service_token.h"
#include "tests/integration/clock_process.h"

namespace arbitration_service {
namespace {

using analysis::Verdict;
using testing_util::FindRunfile;
using testing_util::ServerProcess;

constexpr char kKeys[] = "libs/service/testdata/keys.json";
constexpr char kServiceKey[] = "hs-2026-1";

// White: K+Q v K, a mate exists (6.10: White can still win).
constexpr char kQueenVsKing[] = "7k/8/8/8/8/8/2Q5/K7 w - - 0 1";
// White: K+N v K, proved without search.
constexpr char kKnightVsKing[] = "7k/8/8/8/8/8/1N6/K7 w - - 0 1";
// 1997 C4: K+N+N v K has no mating potential (proved without search); K+R v K+N has.
constexpr char kTwoKnights[] = "7k/8/8/8/8/8/1NN5/K7 w - - 0 1";
constexpr char kRookVsKnight[] = "7k/8/8/8/8/8/1R4n1/K7 w - - 0 1";
// 9.6: White's lone king is proved unable to mate; whether Black can is the search's question.
constexpr char kLoneKingVsQueen[] = "7k/8/4q3/8/8/8/8/K7 w - - 0 1";

chess::Position Pos(const char* fen) {
  absl::StatusOr<chess::Position> pos = chess::ParseFen(fen);
  EXPECT_OK(pos);
  return *pos;
}

std::unique_ptr<ServerProcess> StartAnalysis(int port = 0) {
  std::vector<std::string> flags = {"--services=search_analysis", "--metrics_address=127.0.0.1:0",
                                    "--engine_pool_size=0", "--shutdown_grace=0s",
                                    absl::StrCat("--auth_keys=", FindRunfile(kKeys))};
  if (port != 0) flags.push_back(absl::StrCat("--grpc_address=127.0.0.1:", port));
  absl::StatusOr<std::unique_ptr<ServerProcess>> p =
      ServerProcess::StartRetrying(FindRunfile("services/arbiterd/arbiterd"), flags);
  if (p.ok()) return *std::move(p);
  ADD_FAILURE() << "search-analysis did not start";
  return nullptr;
}

// The server's /metrics over plain HTTP.
std::string Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const std::string request =
        "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[8192];
      for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) out.append(buf, n);
    }
  }
  close(fd);
  return out;
}

// The server's count of Unwinnable calls answered OK.
double UnwinnableServed(int metrics_port) {
  const std::string text = Scrape(metrics_port);
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, "grpc_server_handled_total{") &&
        absl::StrContains(line, "grpc_code=\"OK\"") &&
        absl::StrContains(line, "grpc_method=\"Unwinnable\"")) {
      return std::stod(std::string(line.substr(line.rfind(' ') + 1)));
    }
  }
  return -1;
}

class RemoteAnalystTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<service::ServiceTokenSource>> tokens =
        service::ServiceTokenSource::Open(
            {.keys_file = FindRunfile(kKeys), .key_id = kServiceKey, .subject = "arbitration"});
    ASSERT_OK(tokens);
    tokens_ = std::move(*tokens);
  }

  RemoteAnalystOptions Options(const std::string& target) {
    return {.target = target, .call_deadline = absl::Seconds(1), .authorization = [this] {
              return tokens_->Authorization(absl::Now());
            }};
  }

  // Calls answered with `code` so far, for a method.
  double Calls(const char* method, int code) {
    return metrics_.Client(absl::StrCat("/arbiter.v1.SearchAnalysis/", method))
        ->handled[code]
        ->Value();
  }

  service::Metrics metrics_;
  std::unique_ptr<service::ServiceTokenSource> tokens_;
};

TEST_F(RemoteAnalystTest, AnswersAsTheServiceProvesAndSettlesStaticProofsWithoutACall) {
  std::unique_ptr<ServerProcess> server = StartAnalysis();
  ASSERT_NE(server, nullptr);
  RemoteAnalyst analyst(Options(absl::StrCat("127.0.0.1:", server->grpc_port())), &metrics_);

  // 6.10: K+Q v K, White can still mate: the service's line.
  arbitration::AnalystAnswer q = analyst.CanMate(Pos(kQueenVsKing), chess::Color::kWhite);
  EXPECT_EQ(q.verdict, Verdict::kWinnable) << q.proof;
  EXPECT_EQ(Calls("Unwinnable", 0), 1);
  // 6.10: K+N v K cannot mate: the static proof, here, no call.
  arbitration::AnalystAnswer n = analyst.CanMate(Pos(kKnightVsKing), chess::Color::kWhite);
  EXPECT_EQ(n.verdict, Verdict::kUnwinnable) << n.proof;
  EXPECT_EQ(Calls("Unwinnable", 0), 1);
  // 1997 C4: K+N+N v K without mating potential (no call); K+R v K+N with (the service's line).
  EXPECT_EQ(analyst.MatingPotential(Pos(kTwoKnights), chess::Color::kWhite).verdict,
            Verdict::kUnwinnable);
  EXPECT_EQ(Calls("MatingPotential", 0), 0);
  arbitration::AnalystAnswer r = analyst.MatingPotential(Pos(kRookVsKnight), chess::Color::kWhite);
  EXPECT_EQ(r.verdict, Verdict::kWinnable) << r.proof;
  EXPECT_EQ(Calls("MatingPotential", 0), 1);
  // 9.6: the lone king is proved unable here; the queen's side is asked of the service: alive.
  arbitration::AnalystAnswer d = analyst.DeadPosition(Pos(kLoneKingVsQueen));
  EXPECT_EQ(d.verdict, Verdict::kWinnable) << d.proof;
  EXPECT_EQ(Calls("Unwinnable", 0), 2);
  // 10.2 / D1: the advice for the arbiter, from the service (no engine there: it says so).
  chess::Game game(Pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
  for (const char* uci : {"e2e4", "e7e5"}) {
    absl::StatusOr<chess::Move> m = chess::ParseMove(game.position(), uci);
    ASSERT_OK(m);
    ASSERT_OK(game.Play(*m));
  }
  const std::string advice = analyst.QuickplayAdvice(game, chess::Color::kWhite);
  EXPECT_TRUE(absl::StrContains(advice, "not a ruling")) << advice;
  EXPECT_TRUE(absl::StrContains(advice, "black can still mate")) << advice;
  EXPECT_EQ(Calls("AdviseClaim", 0), 1);
}

TEST_F(RemoteAnalystTest, ACallerWithoutItsServiceTokenGetsNoAnswer) {
  std::unique_ptr<ServerProcess> server = StartAnalysis();
  ASSERT_NE(server, nullptr);
  RemoteAnalystOptions options = Options(absl::StrCat("127.0.0.1:", server->grpc_port()));
  options.authorization = nullptr;
  RemoteAnalyst analyst(options, &metrics_);
  arbitration::AnalystAnswer a = analyst.CanMate(Pos(kQueenVsKing), chess::Color::kWhite);
  EXPECT_EQ(a.verdict, Verdict::kUndetermined);
  EXPECT_TRUE(absl::StrContains(a.proof, "UNAUTHENTICATED")) << a.proof;
  EXPECT_EQ(Calls("Unwinnable", 16), 1);  // not retried: only UNAVAILABLE is
}

TEST_F(RemoteAnalystTest, NoServerIsUndeterminedWithinTheDeadlineAndItsReturnIsSeen) {
  std::unique_ptr<ServerProcess> server = StartAnalysis();
  ASSERT_NE(server, nullptr);
  const int port = server->grpc_port();
  RemoteAnalyst analyst(Options(absl::StrCat("127.0.0.1:", port)), &metrics_);
  ASSERT_EQ(analyst.CanMate(Pos(kQueenVsKing), chess::Color::kWhite).verdict, Verdict::kWinnable);

  server->Kill(SIGKILL);
  const absl::Time asked = absl::Now();
  arbitration::AnalystAnswer a = analyst.CanMate(Pos(kQueenVsKing), chess::Color::kWhite);
  const absl::Duration took = absl::Now() - asked;
  EXPECT_EQ(a.verdict, Verdict::kUndetermined);
  EXPECT_TRUE(absl::StrContains(a.proof, "UNAVAILABLE")) << a.proof;
  EXPECT_LT(took, absl::Seconds(1) + absl::Milliseconds(300));
  EXPECT_GE(Calls("Unwinnable", 14), 2) << "UNAVAILABLE is retried while the deadline allows";

  // Back on its port: answered again within the channel's reconnection backoff (2 s at most).
  server = StartAnalysis(port);
  ASSERT_NE(server, nullptr);
  const absl::Time back = absl::Now();
  Verdict v = Verdict::kUndetermined;
  while (v != Verdict::kWinnable && absl::Now() - back < absl::Seconds(6)) {
    v = analyst.CanMate(Pos(kQueenVsKing), chess::Color::kWhite).verdict;
  }
  EXPECT_EQ(v, Verdict::kWinnable);
}

TEST_F(RemoteAnalystTest, QuestionsAreSpreadOverEveryServer) {
  std::unique_ptr<ServerProcess> a = StartAnalysis();
  std::unique_ptr<ServerProcess> b = StartAnalysis();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_GT(a->metrics_port(), 0);
  RemoteAnalyst analyst(
      Options(absl::StrCat("ipv4:127.0.0.1:", a->grpc_port(), ",127.0.0.1:", b->grpc_port())),
      &metrics_);
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(analyst.CanMate(Pos(kQueenVsKing), chess::Color::kWhite).verdict, Verdict::kWinnable);
  }
  // round_robin: both servers answered their share (pick_first would send every call to one;
  // the first calls go to whichever connected first).
  const double by_a = UnwinnableServed(a->metrics_port());
  const double by_b = UnwinnableServed(b->metrics_port());
  EXPECT_EQ(by_a + by_b, 20);
  EXPECT_GE(by_a, 5);
  EXPECT_GE(by_b, 5);
}

}  // namespace
}  // namespace arbitration_service
