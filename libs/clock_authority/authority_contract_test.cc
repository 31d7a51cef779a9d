// The engine's contract suite (libs/ledger/testing/authority_contract.h) on the clock's domain: a
// standalone clock under a standard control (40 moves in 90 minutes, 6.9) started and pressed in
// turn, on the memory store and on a real redis-server.
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
using ledger::testing::ContractParams;
using ledger::testing::DomainAuthority;
using ledger::testing::Outcome;

class ConflictCounter final : public AuthorityObserver {
 public:
  void OnConflict() override { ++conflicts; }
  int conflicts = 0;
};

class ClockUnderContract final : public DomainAuthority {
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
        Options(options)));
  }
  absl::StatusOr<Outcome> Play(const std::string& game, int n,
                               const ledger::CommandOptions& options) override {
    return Of(authority_.Execute(game, CommandAt(n), Options(options)));
  }
  void PlayAsync(const std::string& game, int n, const ledger::CommandOptions& options,
                 const std::function<void(std::function<void()>)>& offload,
                 std::function<void(absl::StatusOr<Outcome>)> done) override {
    authority_.ExecuteAsync(
        game, CommandAt(n), Options(options), offload,
        [done = std::move(done)](absl::StatusOr<CommandResult> r) { done(Of(std::move(r))); });
  }
  absl::StatusOr<Outcome> Interject(const std::string& game,
                                    const ledger::CommandOptions& options) override {
    // 13.4c: the arbiter adds time to Black's clock; White is still to move.
    return Of(authority_.Execute(game, testing::Adjust(v1::COLOR_BLACK, 120'000, "13.4c"),
                                 Options(options)));
  }
  absl::StatusOr<ledger::SettleResult> CheckDeadline(const std::string& game,
                                                     std::int64_t known_version) override {
    return authority_.CheckFlags(game, known_version);
  }
  absl::StatusOr<std::int64_t> VersionAt(const std::string& game, std::int64_t version) override {
    absl::StatusOr<std::shared_ptr<const ClockGame>> state = authority_.StateAt(game, version);
    if (!state.ok()) return state.status();
    return (*state)->version();
  }
  absl::StatusOr<Outcome> Get(const std::string& game) override { return Of(authority_.Get(game)); }
  absl::StatusOr<Outcome> GetCached(const std::string& game) override {
    return Of(authority_.GetCached(game));
  }
  int conflicts() const override { return counter_.conflicts; }
  std::int64_t FirstFlagAfterMs() const override { return 5'400'000; }

 private:
  static v1::ClockEvent CommandAt(int n) {
    if (n == 0) return testing::Start();
    return testing::Press(n % 2 == 1 ? v1::COLOR_WHITE : v1::COLOR_BLACK);
  }
  // The players press; the platform creates and starts.
  static CommandOptions Options(const ledger::CommandOptions& o) {
    return {.command_id = o.command_id,
            .caller = "player",
            .fingerprint = o.fingerprint,
            .expected_version = o.expected_version};
  }
  static absl::StatusOr<Outcome> Of(absl::StatusOr<CommandResult> r) {
    if (!r.ok()) return r.status();
    return Outcome{
        .version = r->version, .replayed = r->replayed, .state_version = r->game->version()};
  }

  ClockAuthority authority_;
  ConflictCounter counter_;
};

INSTANTIATE_TEST_SUITE_P(Clock, AuthorityContractTest,
                         ::testing::ValuesIn(ContractParams(
                             "Clock",
                             [](store::GameStore* store, ledger::TimeSource* time,
                                const std::string& owner) -> std::unique_ptr<DomainAuthority> {
                               return std::make_unique<ClockUnderContract>(store, time, owner);
                             })),
                         ContractParamName);

}  // namespace
}  // namespace clock_authority
