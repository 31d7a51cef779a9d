// The engine's contract suite (libs/ledger/testing/authority_contract.h) on the clock's domain: a
// standalone clock under a standard control (40 moves in 90 minutes, 6.9) started and pressed in
// turn, on the memory store, on a real redis-server and on a Redis Cluster.
#include "libs/ledger/testing/authority_contract.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "libs/clock_authority/authority.h"
#include "libs/clock_authority/testing/commands.h"

namespace clock_authority {
namespace {

using ledger::testing::AuthorityContractTest;
using ledger::testing::ContractParamName;
using ledger::testing::ContractParamsOf;
using ledger::testing::Outcome;

class ClockUnderContract final
    : public ledger::testing::AuthorityUnderContract<ClockAuthority, v1::ClockEvent, CommandOptions,
                                                     AuthorityObserver> {
 public:
  ClockUnderContract(store::GameStore* store, ledger::TimeSource* time, const std::string& owner)
      : authority_(store, time, {.owner = owner}) {
    authority_.AddObserver(&counter_);
  }

  absl::StatusOr<Outcome> Create(const std::string& game,
                                 const ledger::CommandOptions& options) override {
    return Of(authority_.Create(
        game,
        testing::ClockRequest("40/5400+30:1800+30", v1::EDITION_FIDE_2005, v1::GAME_TYPE_STANDARD),
        OptionsOf(options)));
  }
  absl::StatusOr<Outcome> Interject(const std::string& game,
                                    const ledger::CommandOptions& options) override {
    // 7.4b: two minutes more for Black after an illegal move of White's; White is still to move.
    return Of(authority_.Execute(game, testing::Adjust(v1::COLOR_BLACK, 120'000, "7.4b"),
                                 OptionsOf(options)));
  }
  absl::StatusOr<ledger::SettleResult> CheckDeadline(const std::string& game,
                                                     std::int64_t known_version) override {
    return authority_.CheckFlags(game, known_version);
  }
  std::int64_t FirstFlagAfterMs() const override { return 5'400'000; }

 private:
  ClockAuthority& authority() override { return authority_; }
  v1::ClockEvent CommandAt(int n) const override {
    if (n == 0) return testing::Start();
    return testing::Press(n % 2 == 1 ? v1::COLOR_WHITE : v1::COLOR_BLACK);
  }
  // The players press; the platform creates and starts.
  CommandOptions OptionsOf(const ledger::CommandOptions& o) const override {
    return {.command_id = o.command_id,
            .caller = "player",
            .fingerprint = o.fingerprint,
            .expected_version = o.expected_version};
  }
  ClockAuthority authority_;
};

INSTANTIATE_TEST_SUITE_P(Clock, AuthorityContractTest,
                         ::testing::ValuesIn(ContractParamsOf<ClockUnderContract>("Clock")),
                         ContractParamName);
// The same on Redis Cluster: the clock's games spread over three masters.
INSTANTIATE_TEST_SUITE_P(ClockOnCluster, AuthorityContractTest,
                         ::testing::ValuesIn(ledger::testing::ClusterContractParams(
                             "Clock", ledger::testing::AuthorityMakerOf<ClockUnderContract>())),
                         ContractParamName);

}  // namespace
}  // namespace clock_authority
