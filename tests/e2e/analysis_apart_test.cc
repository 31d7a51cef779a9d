// A fault in analysis is not a fault in the game: real games through an arbitration process
// (arbiterd --services=arbitration --analysis_target=...) that asks a separate search-analysis
// process (arbiterd --services=search_analysis) its 6.10 questions, the analysis killed mid-round
// and started again:
//   - moves keep being accepted while it is down;
//   - a flag that fell while it was down is ruled without its answer: counted for the opponent,
//     the game in review waiting for analysis, the reason in the log (6.10 with an unanswered
//     question); once analysis is back the server asks again and settles each such review by
//     itself, with the analysis's answer (a ReviewSettled event in the log, by "analysis");
//     flags before the kill and after the return are ruled with the analysis's answer, no review;
//   - nothing acknowledged is lost or applied twice, every flag once at its instant (log_check.h).
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/e2e/cluster.h"
#include "tests/e2e/game_load.h"
#include "tests/e2e/log_check.h"
#include "tests/integration/clock_process.h"

namespace e2e {
namespace {

using testing_util::FindRunfile;
using testing_util::ServerProcess;

std::unique_ptr<ServerProcess> StartAnalysis(int port) {
  std::vector<std::string> flags = {"--services=search_analysis", "--insecure_dev",
                                    "--metrics_address=none", "--engine_pool_size=0",
                                    "--shutdown_grace=0s"};
  if (port != 0) flags.push_back(absl::StrCat("--grpc_address=127.0.0.1:", port));
  absl::StatusOr<std::unique_ptr<ServerProcess>> p =
      ServerProcess::StartRetrying(FindRunfile("services/arbiterd/arbiterd"), flags);
  if (p.ok()) return *std::move(p);
  return nullptr;
}

// The review settled by analysis, as the log records it (nullptr: not yet).
const v1::ArbitrationEvent* SettledIn(const std::vector<v1::GameUpdate>& log) {
  for (const v1::GameUpdate& u : log) {
    if (u.event().has_review_settled()) return &u.event();
  }
  return nullptr;
}

// The game's end as its log records it (nullptr: not ended).
const v1::GameEnded* EndOf(const std::vector<v1::GameUpdate>& log) {
  for (const v1::GameUpdate& u : log) {
    if (u.event().has_ended()) return &u.event().ended();
  }
  return nullptr;
}

TEST(AnalysisApart, MovesGoOnWhileAnalysisIsDownAndItsRulingsWaitForReview) {
  std::unique_ptr<ServerProcess> analysis = StartAnalysis(0);
  ASSERT_NE(analysis, nullptr);
  const int analysis_port = analysis->grpc_port();
  absl::StatusOr<std::unique_ptr<Cluster>> started =
      Cluster::Start({.replicas = 1,
                      .extra_flags = {absl::StrCat("--analysis_target=127.0.0.1:", analysis_port),
                                      "--analysis_call_deadline=500ms"}});
  ASSERT_TRUE(started.ok()) << started.status();
  Cluster& cluster = **started;

  LoadOptions options;
  options.run_id = absl::StrCat("apart", UnixMs() % 1000000);
  options.long_games = 8;
  options.flag_games = 8;
  GameLoad load({cluster.address(0)}, options);
  load.Start();
  absl::SleepFor(absl::Seconds(7));  // flags fall and are ruled with the analysis's answers

  const std::int64_t down_at = UnixMs();
  analysis->Kill(SIGKILL);
  const std::int64_t acks_before = load.acks();
  absl::SleepFor(absl::Seconds(8));
  const std::int64_t acks_while_down = load.acks() - acks_before;
  analysis = StartAnalysis(analysis_port);
  ASSERT_NE(analysis, nullptr) << "search-analysis did not come back on its port";
  const std::int64_t up_at = UnixMs();
  absl::SleepFor(absl::Seconds(9));
  load.StopMoves();
  load.Join();

  EXPECT_GT(acks_while_down, 20) << "moves must keep being accepted while analysis is down";

  Tally tally;
  int long_refused = 0;
  int reviewed_while_down = 0, answered_while_down = 0;
  int reviewed_while_up = 0, answered_while_up = 0;
  std::vector<std::string> waiting;  // reviews that wait for analysis
  for (const std::unique_ptr<GameRecord>& g : load.games()) {
    if (!g->flag_game && !g->refusal.empty()) ++long_refused;
    std::vector<v1::GameUpdate> log;
    v1::GameView view;
    absl::Status read = load.ReadGame(g->game_id, &log, &view);
    if (!read.ok()) {
      if (g->acks.empty()) continue;
      ADD_FAILURE() << read << "\n" << load.DumpLog(g->game_id);
      continue;
    }
    CheckGame(*g, log, view, &tally);
    const v1::GameEnded* end = EndOf(log);
    if (!g->flag_game || end == nullptr) continue;
    std::int64_t fell_at = 0;
    for (const v1::GameUpdate& u : log) {
      if (u.event().has_flag()) fell_at = u.event().flag().fell_at_ms();
    }
    if (fell_at == 0) continue;
    // The analysis's state at the flag's ruling: down from the kill to its return (a margin on
    // each side: the ruling follows the fall by a timer's delay, and the channel reconnects within
    // its backoff after the return).
    if (fell_at > down_at + 300 && fell_at < up_at - 600) {
      EXPECT_TRUE(end->review()) << g->game_id << " fell while analysis was down";
      EXPECT_TRUE(absl::StrContains(end->proof(), "search-analysis did not answer"))
          << end->proof();
      EXPECT_TRUE(end->review_awaits_analysis()) << g->game_id;
      if (end->review_awaits_analysis()) waiting.push_back(g->game_id);
      (end->review() ? reviewed_while_down : answered_while_down)++;
    } else if (fell_at < down_at - 1000 || fell_at > up_at + 3000) {
      // 6.10: from a middlegame the opponent can still mate, by the analysis's own line.
      EXPECT_FALSE(end->review()) << g->game_id << ": " << end->proof();
      (end->review() ? reviewed_while_up : answered_while_up)++;
    }
  }
  std::printf(
      "analysis apart: %lld acks (%lld while analysis was down %.1f s), %lld moves in logs; "
      "flags ruled while down: %d for review, %d answered; while up: %d answered, %d for review; "
      "lost %lld, applied twice %lld, flag errors %lld, clock errors %lld\n",
      static_cast<long long>(load.acks()), static_cast<long long>(acks_while_down),
      (up_at - down_at) / 1000.0, static_cast<long long>(tally.moves_in_logs), reviewed_while_down,
      answered_while_down, answered_while_up, reviewed_while_up, static_cast<long long>(tally.lost),
      static_cast<long long>(tally.applied_twice), static_cast<long long>(tally.flag_errors),
      static_cast<long long>(tally.clock_errors));
  for (const std::string& p : tally.problems) std::printf("  %s\n", p.c_str());

  EXPECT_EQ(tally.lost, 0);
  EXPECT_EQ(tally.applied_twice, 0);
  EXPECT_EQ(tally.flag_errors, 0);
  EXPECT_EQ(tally.clock_errors, 0);
  EXPECT_EQ(tally.other_errors, 0);
  EXPECT_EQ(long_refused, 0);
  EXPECT_GT(reviewed_while_down, 0) << "no flag fell while analysis was down";

  // Each review that waited is settled by the server once analysis is back: asked again 1 s after
  // the ruling, then 2, 4, 8 s later, so within about 16 s of an 8 s outage's end.
  int settled = 0;
  const absl::Time give_up = absl::Now() + absl::Seconds(45);
  for (const std::string& id : waiting) {
    for (;;) {
      std::vector<v1::GameUpdate> log;
      v1::GameView view;
      const absl::Status read = load.ReadGame(id, &log, &view);
      const v1::ArbitrationEvent* s = read.ok() ? SettledIn(log) : nullptr;
      if (s != nullptr) {
        EXPECT_EQ(s->review_settled().settled_by(), "analysis") << id;
        EXPECT_GE(s->at_ms(), up_at - 1000) << id << ": settled before analysis came back";
        // 6.10: from a middlegame the opponent can mate: the win stands, no longer for review.
        EXPECT_FALSE(view.review()) << id;
        EXPECT_FALSE(view.review_awaits_analysis()) << id;
        ++settled;
        break;
      }
      if (absl::Now() > give_up) {
        ADD_FAILURE() << id << ": its review was not settled after analysis came back\n"
                      << load.DumpLog(id);
        break;
      }
      absl::SleepFor(absl::Milliseconds(500));
    }
  }
  std::printf("reviews waiting for analysis: %zu, settled by it after its return: %d\n",
              waiting.size(), settled);
  EXPECT_EQ(settled, static_cast<int>(waiting.size()));
  EXPECT_GT(answered_while_up, 0) << "no flag was ruled with the analysis's answer";
}

}  // namespace
}  // namespace e2e
