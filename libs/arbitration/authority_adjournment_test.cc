// Appendix A10 through the authority: both players absent at the resumption, the envelope still
// closed (A9b waits for the replier). The default is recorded by the deadline path
// (CheckDeadline, as the server's timers call it) or before a command, and the authority hands
// the rulings the sealed move its envelope opener (the service's key) opens: the absent sealer's
// mate wins (A10a); without an opener the envelope stays closed and both lose (6.7).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/sealed_move.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/ledger/time_source.h"
#include "libs/seal/seal.h"
#include "libs/store/memory_game_store.h"

namespace arbitration::testing {
namespace {

constexpr std::int64_t kHour = 3'600'000;
constexpr std::int64_t kStart1 = 1'700'000'000'000;
constexpr std::int64_t kStart2 = kStart1 + 24 * kHour;
constexpr char kGame[] = "a10";
// 4. Qxf7# mates.
constexpr char kMateInOne[] = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

class AuthorityAdjournmentTest : public ::testing::Test {
 protected:
  AuthorityAdjournmentTest()
      : store_({.num_deadline_shards = 2, .now_ms = [this] { return time_.NowMs(); }}),
        authority_(&store_, &time_, analyst_, {.owner = "a"}),
        sealer_(seal::MasterKey::Generate()) {}

  void UseOpener() {
    authority_.SetEnvelopeOpener([this](absl::string_view id, const GameState& game) {
      ++opened_;
      return sealer_.Open(id, game);
    });
  }

  // Session 1 and session 2 a day later; White seals 4. Qxf7# at the end of session 1; both stay
  // away at the resumption.
  void AdjournAndResumeWithBothAbsent() {
    v1::CreateGameRequest req =
        GameRequest({.time_control = "G/300", .fen = kMateInOne, .scheduled_start_ms = kStart1});
    AddSessions(req, {kStart1, kStart2}, 4 * kHour);
    time_.SetMs(kStart1);
    ASSERT_OK(authority_.Create(kGame, req, Who("platform", "platform"), {}).status());
    Command start;
    start.kind = CommandKind::kStart;
    start.actor = Who("platform", "platform");
    ASSERT_OK(authority_.Execute(kGame, start, {}).status());
    time_.SetMs(kStart1 + 4 * kHour);
    absl::StatusOr<CommandResult> current = authority_.Get(kGame);
    ASSERT_OK(current.status());
    Command seal;
    seal.kind = CommandKind::kSealMove;
    seal.actor = Who("w", "player");
    seal.side = Color::kWhite;
    seal.stop_clock = true;
    absl::StatusOr<v1::MoveSealed> box = sealer_.Seal(kGame, *current->game, "Qxf7#");
    ASSERT_OK(box.status());
    seal.seal = *box;
    ASSERT_OK(authority_.Execute(kGame, seal, {}).status());
    time_.SetMs(kStart2);
    Command resume;
    resume.kind = CommandKind::kResumeAdjourned;
    resume.actor = Who("arbiter", "arbiter");
    resume.absent = {Color::kWhite, Color::kBlack};
    current = authority_.Get(kGame);
    ASSERT_OK(current.status());
    absl::StatusOr<std::optional<std::string>> opened = sealer_.Open(kGame, *current->game);
    ASSERT_OK(opened.status());
    resume.opened_move = *opened;
    absl::StatusOr<CommandResult> resumed = authority_.Execute(kGame, resume, {});
    ASSERT_OK(resumed.status());
    ASSERT_EQ(resumed->game->status(), GameStatus::kOngoing);
    ASSERT_TRUE(resumed->game->adjournment().envelope.has_value());  // A7: he is not there
  }

  std::shared_ptr<const GameState> Latest() {
    absl::StatusOr<CommandResult> r = authority_.Get(kGame);
    EXPECT_OK(r.status());
    return r.ok() ? r->game : nullptr;
  }

  ledger::FakeTime time_;
  store::MemoryGameStore store_;
  LocalAnalyst analyst_;
  GameAuthority authority_;
  SealedMoves sealer_;
  int opened_ = 0;
};

TEST_F(AuthorityAdjournmentTest, TheDeadlinePathOpensTheEnvelopeTheSealedMateWins) {  // A10a
  UseOpener();
  AdjournAndResumeWithBothAbsent();
  time_.SetMs(kStart2 + kHour);  // not more than an hour yet
  absl::StatusOr<SettleResult> early = authority_.CheckDeadline(kGame);
  ASSERT_OK(early.status());
  EXPECT_EQ(early->recorded, 0);
  EXPECT_EQ(early->next_deadline, kStart2 + kHour + 1);
  time_.SetMs(kStart2 + kHour + 1);
  absl::StatusOr<SettleResult> fired = authority_.CheckDeadline(kGame);
  ASSERT_OK(fired.status());
  EXPECT_EQ(fired->recorded, 2);  // the sealed move played, the game ended
  std::shared_ptr<const GameState> g = Latest();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->outcome().result, Result::kWhiteWins);
  EXPECT_EQ(g->outcome().termination, Termination::kCheckmate);
  EXPECT_EQ(g->san(g->plies() - 1), "Qxf7#");
  EXPECT_GT(opened_, 0);
}

TEST_F(AuthorityAdjournmentTest, ACommandAfterTheHourRecordsTheSealedMateFirst) {  // A10a
  UseOpener();
  AdjournAndResumeWithBothAbsent();
  time_.SetMs(kStart2 + 2 * kHour);
  Command arrive;  // the sealer comes two hours late; the command carries no opened move
  arrive.kind = CommandKind::kArrive;
  arrive.actor = Who("w", "player");
  arrive.side = Color::kWhite;
  EXPECT_THAT(authority_.Execute(kGame, arrive, {}).status(), HasErrorCode("ERR_GAME_OVER"));
  std::shared_ptr<const GameState> g = Latest();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->outcome().result, Result::kWhiteWins);
  EXPECT_EQ(g->outcome().termination, Termination::kCheckmate);
  EXPECT_EQ(g->ended_at_ms(), kStart2 + kHour + 1);
}

TEST_F(AuthorityAdjournmentTest, WithoutAnOpenerTheEnvelopeStaysClosedBothLose) {  // 6.7
  AdjournAndResumeWithBothAbsent();
  time_.SetMs(kStart2 + kHour + 1);
  absl::StatusOr<SettleResult> fired = authority_.CheckDeadline(kGame);
  ASSERT_OK(fired.status());
  EXPECT_EQ(fired->recorded, 1);
  std::shared_ptr<const GameState> g = Latest();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->outcome().result, Result::kDoubleForfeit);
  EXPECT_EQ(g->outcome().termination, Termination::kDefault);
  EXPECT_NE(g->proof().find("envelope stays closed"), std::string::npos) << g->proof();
}

TEST_F(AuthorityAdjournmentTest, AnOpenerWithoutAKeyKeepsTodaysRuling) {  // 6.7
  authority_.SetEnvelopeOpener([](absl::string_view id, const GameState& game) {
    return SealedMoves(std::nullopt).Open(id, game);  // ERR_SEAL_KEY_MISSING
  });
  AdjournAndResumeWithBothAbsent();
  time_.SetMs(kStart2 + kHour + 1);
  ASSERT_OK(authority_.CheckDeadline(kGame).status());
  std::shared_ptr<const GameState> g = Latest();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->outcome().result, Result::kDoubleForfeit);
}

}  // namespace
}  // namespace arbitration::testing
