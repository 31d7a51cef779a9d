// The engine's contract (libs/ledger/authority.h) as one parameterized test suite, run by every
// domain on every store (libs/arbitration/authority_contract_test.cc,
// libs/clock_authority/authority_contract_test.cc):
//
//   INSTANTIATE_TEST_SUITE_P(Clock, AuthorityContractTest,
//                            ::testing::ValuesIn(ContractParams("Clock", MakeClockAuthority)),
//                            ContractParamName);
//
// A domain shows the suite its commands through DomainAuthority: a game it creates, starts and
// plays in turn, an arbiter's command that leaves the turn as it is, and the first flag's time.
// ContractParams pairs it with the memory store and a real redis-server (one per test binary,
// emptied for each test).
#ifndef ARBITER_LIBS_LEDGER_TESTING_AUTHORITY_CONTRACT_H_
#define ARBITER_LIBS_LEDGER_TESTING_AUTHORITY_CONTRACT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "libs/ledger/authority.h"
#include "libs/ledger/time_source.h"
#include "libs/store/game_store.h"

namespace ledger::testing {

// What the suite reads of a command's result.
struct Outcome {
  std::int64_t version = 0;  // the result's
  bool replayed = false;
  std::int64_t state_version = 0;  // of the state it carries
};

// One authority of a domain, as the suite drives it. `options.scope` is the domain's to choose
// (the acting player's subject); the rest is the engine's.
class DomainAuthority {
 public:
  virtual ~DomainAuthority() = default;
  virtual absl::StatusOr<Outcome> Create(const std::string& game,
                                         const CommandOptions& options) = 0;
  // The `n`-th command of a created game: 0 starts the clocks; then White and Black in turn
  // (White at odd n), each legal after the ones before it.
  virtual absl::StatusOr<Outcome> Play(const std::string& game, int n,
                                       const CommandOptions& options) = 0;
  // Play through ExecuteAsync; `done` runs once.
  virtual void PlayAsync(const std::string& game, int n, const CommandOptions& options,
                         const std::function<void(std::function<void()>)>& offload,
                         std::function<void(absl::StatusOr<Outcome>)> done) = 0;
  // An arbiter's command on a game in play that leaves whose turn it is as it was.
  virtual absl::StatusOr<Outcome> Interject(const std::string& game,
                                            const CommandOptions& options) = 0;
  virtual absl::StatusOr<SettleResult> CheckDeadline(const std::string& game,
                                                     std::int64_t known_version) = 0;
  // StateAt(game, version)->version().
  virtual absl::StatusOr<std::int64_t> VersionAt(const std::string& game, std::int64_t version) = 0;
  virtual absl::StatusOr<Outcome> Get(const std::string& game) = 0;
  virtual absl::StatusOr<Outcome> GetCached(const std::string& game) = 0;
  // The compare-and-sets it lost (OnConflict).
  virtual int conflicts() const = 0;
  // How long after the start White's flag falls if nobody moves.
  virtual std::int64_t FirstFlagAfterMs() const = 0;
};

// The part of a DomainAuthority every domain's authority (GameAuthority, ClockAuthority) gives
// alike: a domain adds Create, Interject, CheckDeadline, its commands and its options, and adds
// `counter_` to its authority's observers.
template <typename Authority, typename Command, typename Options, typename Observer>
class AuthorityUnderContract : public DomainAuthority {
 public:
  int conflicts() const override { return counter_.conflicts; }
  absl::StatusOr<Outcome> Play(const std::string& game, int n,
                               const CommandOptions& options) override {
    return Of(authority().Execute(game, CommandAt(n), OptionsOf(options)));
  }
  void PlayAsync(const std::string& game, int n, const CommandOptions& options,
                 const std::function<void(std::function<void()>)>& offload,
                 std::function<void(absl::StatusOr<Outcome>)> done) override {
    authority().ExecuteAsync(game, CommandAt(n), OptionsOf(options), offload,
                             [done = std::move(done)](auto r) { done(Of(std::move(r))); });
  }
  absl::StatusOr<std::int64_t> VersionAt(const std::string& game, std::int64_t version) override {
    auto state = authority().StateAt(game, version);
    if (!state.ok()) return state.status();
    return (*state)->version();
  }
  absl::StatusOr<Outcome> Get(const std::string& game) override {
    return Of(authority().Get(game));
  }
  absl::StatusOr<Outcome> GetCached(const std::string& game) override {
    return Of(authority().GetCached(game));
  }

 protected:
  virtual Authority& authority() = 0;
  // The n-th command of Play.
  virtual Command CommandAt(int n) const = 0;
  // The domain's options for the engine's (the caller's scope is the domain's choice).
  virtual Options OptionsOf(const CommandOptions& options) const = 0;

  template <typename Result>
  static absl::StatusOr<Outcome> Of(absl::StatusOr<Result> r) {
    if (!r.ok()) return r.status();
    return Outcome{
        .version = r->version, .replayed = r->replayed, .state_version = r->game->version()};
  }

  struct ConflictCounter final : Observer {
    void OnConflict() override { ++conflicts; }
    int conflicts = 0;
  };
  ConflictCounter counter_;
};

using StoreMaker = std::function<std::unique_ptr<store::GameStore>(TimeSource* time)>;
using AuthorityMaker = std::function<std::unique_ptr<DomainAuthority>(
    store::GameStore* store, TimeSource* time, const std::string& owner)>;

struct ContractParam {
  std::string name;
  StoreMaker store;
  AuthorityMaker authority;
};

// `domain` on the memory store and on a real redis-server.
std::vector<ContractParam> ContractParams(const std::string& domain, AuthorityMaker authority);

// `domain` on a Redis Cluster of three masters and three replicas (store/testing/redis_cluster.h)
// that the binary starts on first use.
std::vector<ContractParam> ClusterContractParams(const std::string& domain,
                                                 AuthorityMaker authority);

// The same for a DomainAuthority constructed from (store, time, owner).
template <typename T>
AuthorityMaker AuthorityMakerOf() {
  return [](store::GameStore* store, TimeSource* time,
            const std::string& owner) -> std::unique_ptr<DomainAuthority> {
    return std::make_unique<T>(store, time, owner);
  };
}
template <typename T>
std::vector<ContractParam> ContractParamsOf(const std::string& domain) {
  return ContractParams(domain, AuthorityMakerOf<T>());
}

inline std::string ContractParamName(const ::testing::TestParamInfo<ContractParam>& info) {
  return info.param.name;
}

class AuthorityContractTest : public ::testing::TestWithParam<ContractParam> {
 protected:
  void SetUp() override;
  // A second replica on the same store.
  std::unique_ptr<DomainAuthority> Replica(const std::string& owner);
  // Creates and starts `game` with `a_` (version 2, cached by it).
  void CreateAndStart(const std::string& game);

  FakeTime time_{1'700'000'000'000};
  std::unique_ptr<store::GameStore> store_;
  std::unique_ptr<DomainAuthority> a_;
};

}  // namespace ledger::testing

#endif  // ARBITER_LIBS_LEDGER_TESTING_AUTHORITY_CONTRACT_H_
