// A flag's ruling whose question search-analysis did not answer in time (6.9 / 6.10 / B7 / 1997
// C4): the game ends in review waiting for analysis, the deadline index asks again with backoff,
// and the answer settles the result by itself, once across replicas, unless the arbiter's result
// came first. The position and the clocks are each test's; the analyst is scripted.
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/archive.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/events.h"
#include "libs/arbitration/game_deadlines.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/ledger/time_source.h"
#include "libs/store/memory_game_store.h"

namespace arbitration::testing {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000;
// White (to move) has a king and a rook; Black a bare king. White's minute runs out (6.9): can
// Black mate by any series of legal moves? A bare king cannot (6.9: drawn). The scripted analyst
// stands for search-analysis, whatever the position needs.
constexpr char kBareKing[] = "6k1/8/8/8/8/8/8/R5K1 w - - 0 1";
// Black has a knight: it can mate (White's rook on g1, king on h1, Nf2#): the loss stands.
constexpr char kKnight[] = "6k1/8/8/8/8/8/5n2/R5K1 w - - 0 1";

// Answers the 6.9 / 1997 C4 questions from a script, the first `unanswered` of them as an
// analyst whose service is down.
class ScriptedAnalyst final : public Analyst {
 public:
  void Script(std::vector<AnalystAnswer> answers) {
    answers_.assign(answers.begin(), answers.end());
  }
  AnalystAnswer CanMate(const chess::Position&, chess::Color) override { return Next(); }
  AnalystAnswer MatingPotential(const chess::Position&, chess::Color) override { return Next(); }
  AnalystAnswer DeadPosition(const chess::Position&) override { return {}; }
  int asked = 0;

 private:
  AnalystAnswer Next() {
    ++asked;
    if (answers_.empty()) return Down();
    AnalystAnswer a = answers_.front();
    answers_.pop_front();
    return a;
  }
  std::deque<AnalystAnswer> answers_;

 public:
  static AnalystAnswer Down() {
    return {analysis::Verdict::kUndetermined, "search-analysis did not answer (UNAVAILABLE)",
            /*unanswered=*/true};
  }
};

AnalystAnswer Unwinnable() { return {analysis::Verdict::kUnwinnable, "a bare king cannot mate"}; }

v1::Actor Platform() { return Who("platform", "platform"); }

struct Replica {
  Replica(store::GameStore* store, ledger::FakeTime* time, const std::string& owner)
      : authority(store, time, analyst, {.owner = owner}),
        deadlines(&authority, time, {.owner = owner, .sweep_grace = absl::ZeroDuration()}) {}
  ScriptedAnalyst analyst;
  GameAuthority authority;
  GameDeadlines deadlines;
};

class ReviewSettlement : public ::testing::Test {
 protected:
  ReviewSettlement()
      : store_({.num_deadline_shards = 4, .now_ms = [this] { return time_.NowMs(); }}),
        a_(&store_, &time_, "a"),
        b_(&store_, &time_, "b") {}

  // A game of one minute sudden death (`edition`), started at kT0 with White to move in `fen`:
  // White's flag falls at kT0 + 60 s.
  void StartGame(v1::Edition edition, const std::string& fen, const std::string& tc = "60") {
    v1::CreateGameRequest create;
    create.set_game_id("g1");
    create.set_white_id("w");
    create.set_black_id("b");
    create.mutable_ruleset()->set_edition(edition);
    create.set_time_control(tc);
    create.set_start_fen(fen);
    ASSERT_OK(a_.authority.Create("g1", create, Platform(), {}).status());
    Command start{.kind = CommandKind::kStart, .actor = Platform()};
    ASSERT_OK(a_.authority.Execute("g1", start, {}).status());
  }
  GameState Latest() {
    absl::StatusOr<CommandResult> r = b_.authority.Get("g1");
    EXPECT_OK(r.status());
    return *r->game;
  }
  // When the game's entry in the deadline index is next due (its deadline, or the instant a
  // replica gave it back for).
  std::optional<std::int64_t> IndexDeadline() {
    const int shard = store::DeadlineShard("g1", store_.NumDeadlineShards());
    absl::StatusOr<std::vector<store::DueEntry>> due =
        store_.PeekDeadlines(shard, std::numeric_limits<std::int64_t>::max(), 16);
    EXPECT_OK(due.status());
    if (!due.ok()) return std::nullopt;
    for (const store::DueEntry& e : *due) {
      if (e.game_id == "g1") return e.due_ms;
    }
    return std::nullopt;
  }
  // The flag's win as the rulings record it (the edition's article).
  static bool BlackWinsOnTime(const GameState& g) {
    return g.outcome().winner() == kB && g.outcome().termination == Termination::kTimeForfeit;
  }
  int Settled(const GameState& g) {
    int n = 0;
    for (const v1::ArbitrationEvent& e : g.events()) n += e.has_review_settled();
    return n;
  }

  ledger::FakeTime time_{kT0};
  store::MemoryGameStore store_;
  Replica a_;
  Replica b_;
};

TEST(ReviewReaskAt, OneSecondAfterTheRulingThenDoublingToEveryMinute) {
  StartedTable t(TableOptions{.edition = v1::EDITION_FIDE_2023, .time_control = "60"});
  v1::ArbitrationEvent ended = EndedEvent(laws::Outcome::Win(kB, Termination::kTimeForfeit, "6.9"),
                                          "unanswered", /*review=*/true, /*awaits_analysis=*/true);
  ended.set_at_ms(60'000);
  GameState g = t.game();
  ASSERT_OK(g.Apply(ended));
  ASSERT_TRUE(g.review_awaits_analysis());
  EXPECT_EQ(NextDeadline(g), 61'000);
  const std::vector<std::pair<std::int64_t, std::int64_t>> steps = {
      {60'000, 61'000},   {61'000, 63'000},      {63'000, 67'000},   {67'000, 75'000},
      {75'000, 91'000},   {91'000, 123'000},     {123'000, 183'000}, {183'000, 243'000},
      {200'000, 243'000}, {3'603'000, 3'663'000}};
  for (const auto& [now, next] : steps) EXPECT_EQ(ReviewReaskAt(g, now), next) << now;
}

// The flag's article (6.10 in the German text: "Die Partie ist jedoch remis, wenn eine Stellung
// entstanden ist, aus der heraus es dem Gegner nicht möglich ist, den König des Spielers durch eine
// beliebige Folge von regelgemäßen Zügen, selbst bei ungeschicktestem Gegenspiel, matt zu
// setzen."). The question went unanswered at the flag, and once more; the third asking is
// answered: drawn, by analysis, recorded once though both replicas ask, the index entry gone.
TEST_F(ReviewSettlement, AFlagInReviewIsSettledWhenAnalysisAnswersOnceAcrossReplicas) {
  StartGame(v1::EDITION_FIDE_2023, kBareKing);
  a_.analyst.Script({ScriptedAnalyst::Down(), ScriptedAnalyst::Down()});
  b_.analyst.Script({Unwinnable()});
  time_.SetMs(kT0 + 60'000);
  EXPECT_GE(*a_.deadlines.scheduler().RunOnce(), 1);  // the flag: White loses, for review
  GameState g = Latest();
  EXPECT_EQ(g.status(), GameStatus::kEnded);
  EXPECT_TRUE(BlackWinsOnTime(g));
  EXPECT_TRUE(g.review());
  EXPECT_TRUE(g.review_awaits_analysis());
  EXPECT_EQ(IndexDeadline(), kT0 + 61'000);
  EXPECT_EQ(a_.deadlines.scheduler().tracked(), 0u);  // the index times it, not a timer here

  time_.SetMs(kT0 + 61'000);  // asked again: still down; due again 2 s later
  EXPECT_EQ(*a_.deadlines.scheduler().RunOnce(), 0);
  EXPECT_EQ(a_.analyst.asked, 2);
  EXPECT_TRUE(Latest().review_awaits_analysis());
  EXPECT_EQ(IndexDeadline(), kT0 + 63'000);
  time_.SetMs(kT0 + 62'000);
  EXPECT_EQ(*b_.deadlines.scheduler().RunOnce(), 0);  // not due yet: nobody asks
  EXPECT_EQ(b_.analyst.asked, 0);

  // Replica a is gone (killed); b, which never served the game, takes the entry over.
  time_.SetMs(kT0 + 63'000);
  EXPECT_EQ(*b_.deadlines.scheduler().RunOnce(), 1);
  g = Latest();
  EXPECT_EQ(g.outcome().result, laws::Result::kDraw);
  EXPECT_EQ(g.outcome().termination, Termination::kTimeoutVsInsufficient);
  EXPECT_FALSE(g.review());
  EXPECT_FALSE(g.review_awaits_analysis());
  ASSERT_TRUE(g.review_settled().has_value());
  EXPECT_EQ(g.review_settled()->settled_by(), "analysis");
  EXPECT_EQ(g.review_settled()->article(), g.outcome().article);
  EXPECT_EQ(g.review_settled()->proof(), Unwinnable().proof);
  EXPECT_EQ(g.events().back().actor().role(), "server");
  EXPECT_EQ(g.events().back().at_ms(), kT0 + 63'000);
  EXPECT_FALSE(IndexDeadline().has_value());
  EXPECT_EQ(Settled(g), 1);

  // Replica a, back with the old state cached, asks again at that version: its answer is the
  // same append under the same id, replayed, never a second settlement.
  a_.analyst.Script({Unwinnable()});
  absl::StatusOr<SettleResult> again = a_.authority.CheckDeadline("g1", g.version() - 1);
  ASSERT_OK(again.status());
  EXPECT_EQ(again->recorded, 0);
  EXPECT_EQ(Settled(Latest()), 1);
  time_.SetMs(kT0 + 600'000);
  EXPECT_EQ(*a_.deadlines.scheduler().RunOnce(), 0);
  EXPECT_EQ(*b_.deadlines.scheduler().RunOnce(), 0);

  // The record says who ruled, and on what.
  const std::string pgn = ExportPgn(Latest());
  EXPECT_NE(pgn.find("the review settled by analysis"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("1/2-1/2"), std::string::npos) << pgn;
}

// 6.9: the answer is that Black can mate (a line): the loss stands, now without review.
TEST_F(ReviewSettlement, AWinnableAnswerLetsTheLossStandWithoutReview) {
  StartGame(v1::EDITION_FIDE_2023, kKnight);
  a_.analyst.Script(
      {ScriptedAnalyst::Down(), {analysis::Verdict::kWinnable, "g1h1 a1g1 f2h3 ... Nf2#"}});
  time_.SetMs(kT0 + 60'000);
  ASSERT_GE(*a_.deadlines.scheduler().RunOnce(), 1);
  time_.SetMs(kT0 + 61'000);
  EXPECT_EQ(*a_.deadlines.scheduler().RunOnce(), 1);
  const GameState g = Latest();
  EXPECT_TRUE(BlackWinsOnTime(g));
  EXPECT_FALSE(g.review());
  EXPECT_FALSE(g.review_awaits_analysis());
  EXPECT_FALSE(IndexDeadline().has_value());
}

// An answered search that reached its limits undetermined: the review stays, the arbiter's
// (as before), and nobody asks again.
TEST_F(ReviewSettlement, AnUndeterminedAnswerLeavesTheReviewToTheArbiter) {
  StartGame(v1::EDITION_FIDE_2023, kBareKing);
  a_.analyst.Script({ScriptedAnalyst::Down(), {analysis::Verdict::kUndetermined, "node limit"}});
  time_.SetMs(kT0 + 60'000);
  ASSERT_GE(*a_.deadlines.scheduler().RunOnce(), 1);
  time_.SetMs(kT0 + 61'000);
  EXPECT_EQ(*a_.deadlines.scheduler().RunOnce(), 1);
  const GameState g = Latest();
  EXPECT_TRUE(g.review());
  EXPECT_FALSE(g.review_awaits_analysis());
  EXPECT_TRUE(BlackWinsOnTime(g));
  EXPECT_FALSE(IndexDeadline().has_value());
  time_.SetMs(kT0 + 600'000);
  EXPECT_EQ(*a_.deadlines.scheduler().RunOnce(), 0);
  EXPECT_EQ(a_.analyst.asked, 2);
}

// The arbiter sets the result while the review waits: his result stands, the entry is gone and
// analysis is not asked again; a game whose review waits is not archived before.
TEST_F(ReviewSettlement, TheArbitersResultFirstWins) {
  StartGame(v1::EDITION_FIDE_2023, kBareKing);
  time_.SetMs(kT0 + 60'000);
  ASSERT_GE(*a_.deadlines.scheduler().RunOnce(), 1);
  ASSERT_TRUE(Latest().review_awaits_analysis());
  EXPECT_THAT(TombstoneOf("g1", Latest(), kT0 + 60'500, Platform()).status(),
              base::HasErrorCode("ERR_GAME_NOT_OVER"));
  Command set{.kind = CommandKind::kSetResult, .actor = Who("arbiter", "arbiter")};
  set.outcome = laws::Outcome::Draw(Termination::kTimeoutVsInsufficient, "6.9");
  set.reason = "a bare king cannot mate";
  ASSERT_OK(b_.authority.Execute("g1", set, {}).status());
  EXPECT_FALSE(IndexDeadline().has_value());
  a_.analyst.Script({{analysis::Verdict::kWinnable, "a line"}});
  const int asked = a_.analyst.asked;
  time_.SetMs(kT0 + 61'000);
  EXPECT_EQ(*a_.deadlines.scheduler().RunOnce(), 0);
  absl::StatusOr<SettleResult> check = a_.authority.CheckDeadline("g1");
  ASSERT_OK(check.status());
  EXPECT_EQ(check->recorded, 0);
  EXPECT_EQ(a_.analyst.asked, asked);
  const GameState g = Latest();
  EXPECT_EQ(g.outcome(), set.outcome);
  EXPECT_FALSE(g.review_awaits_analysis());
  EXPECT_EQ(Settled(g), 0);
  EXPECT_OK(TombstoneOf("g1", g, kT0 + 61'000, Platform()).status());
}

// 1997 blitz: White's flag is recorded (B6) and Black claims (B7); the question is Black's mating
// potential (C4), unanswered at the claim, settled when answered.
TEST_F(ReviewSettlement, TheMatingPotentialQuestionOfBlitz1997IsSettledToo) {
  StartGame(v1::EDITION_FIDE_1997, kBareKing, "G/5");
  a_.analyst.Script({ScriptedAnalyst::Down(), Unwinnable()});
  time_.SetMs(kT0 + 300'000);
  ASSERT_GE(*a_.deadlines.scheduler().RunOnce(), 1);  // recorded, not counted (B6)
  time_.SetMs(kT0 + 300'500);
  Command claim{.kind = CommandKind::kClaim, .actor = Who("b", "player"), .side = kB};
  claim.claim = v1::CLAIM_KIND_TIME;
  ASSERT_OK(a_.authority.Execute("g1", claim, {}).status());
  GameState g = Latest();
  ASSERT_TRUE(g.review_awaits_analysis()) << g.outcome().article;
  const std::string win_article = g.outcome().article;
  time_.SetMs(kT0 + 301'500);
  EXPECT_EQ(*a_.deadlines.scheduler().RunOnce(), 1);
  g = Latest();
  EXPECT_EQ(g.outcome().result, laws::Result::kDraw);
  EXPECT_EQ(g.outcome().termination, Termination::kTimeoutVsInsufficient);
  EXPECT_EQ(g.review_settled()->article(), g.outcome().article);
  EXPECT_NE(win_article, "");
}

}  // namespace
}  // namespace arbitration::testing
