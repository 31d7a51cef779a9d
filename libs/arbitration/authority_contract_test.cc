// The engine's contract suite (libs/ledger/testing/authority_contract.h) on the game's domain: a
// standard game (90 minutes, 6.9) started and played move by move, on the memory store and on a
// real redis-server.
#include "libs/ledger/testing/authority_contract.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/testing/game_table.h"

namespace arbitration::testing {
namespace {

using ledger::testing::AuthorityContractTest;
using ledger::testing::ContractParamName;
using ledger::testing::ContractParamsOf;
using ledger::testing::Outcome;

// A Ruy Lopez: each move legal after the ones before it.
constexpr const char* kMoves[] = {"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"};

class GameUnderContract final
    : public ledger::testing::AuthorityUnderContract<GameAuthority, Command, CommandOptions,
                                                     AuthorityObserver> {
 public:
  GameUnderContract(store::GameStore* store, ledger::TimeSource* time, const std::string& owner)
      : authority_(store, time, analyst_, {.owner = owner}) {
    authority_.AddObserver(&counter_);
  }

  absl::StatusOr<Outcome> Create(const std::string& game,
                                 const ledger::CommandOptions& options) override {
    // A standard game: 90 minutes sudden death (6.9: the flag ends it).
    v1::CreateGameRequest req;
    req.set_game_id(game);
    req.set_white_id("w");
    req.set_black_id("b");
    req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
    req.set_time_control("5400");
    return Of(authority_.Create(game, req, Who("platform", "platform"), OptionsOf(options)));
  }
  absl::StatusOr<Outcome> Interject(const std::string& game,
                                    const ledger::CommandOptions& options) override {
    Command adjust;  // the arbiter's decision: a minute more for Black
    adjust.kind = CommandKind::kAdjustTime;
    adjust.actor = Who("arbiter", "arbiter");
    adjust.side = chess::Color::kBlack;
    adjust.delta_ms = 60'000;
    adjust.reason = "the arbiter's decision";
    return Of(authority_.Execute(game, adjust, OptionsOf(options)));
  }
  absl::StatusOr<ledger::SettleResult> CheckDeadline(const std::string& game,
                                                     std::int64_t known_version) override {
    return authority_.CheckDeadline(game, known_version);
  }
  std::int64_t FirstFlagAfterMs() const override { return 5'400'000; }

 private:
  GameAuthority& authority() override { return authority_; }
  Command CommandAt(int n) const override {
    Command c;
    if (n == 0) {
      c.kind = CommandKind::kStart;
      c.actor = Who("platform", "platform");
      return c;
    }
    const bool white = n % 2 == 1;
    c.kind = CommandKind::kMove;
    c.actor = Who(white ? "w" : "b", "player");
    c.side = white ? chess::Color::kWhite : chess::Color::kBlack;
    c.move = kMoves[(n - 1) % std::size(kMoves)];
    return c;
  }
  // The engine's own: the authority scopes the id to the command's actor.
  CommandOptions OptionsOf(const ledger::CommandOptions& o) const override { return o; }
  LocalAnalyst analyst_;
  GameAuthority authority_;
};

INSTANTIATE_TEST_SUITE_P(Game, AuthorityContractTest,
                         ::testing::ValuesIn(ContractParamsOf<GameUnderContract>("Game")),
                         ContractParamName);

}  // namespace
}  // namespace arbitration::testing
