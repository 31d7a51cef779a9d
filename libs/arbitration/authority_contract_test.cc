// The engine's contract suite (libs/ledger/testing/authority_contract.h) on the game's domain: a
// standard game (90 minutes, 6.9) started and played move by move, on the memory store and on a
// real redis-server.
#include "libs/ledger/testing/authority_contract.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/authority.h"

namespace arbitration {
namespace {

using ledger::testing::AuthorityContractTest;
using ledger::testing::ContractParamName;
using ledger::testing::ContractParams;
using ledger::testing::DomainAuthority;
using ledger::testing::Outcome;

// A Ruy Lopez: each move legal after the ones before it.
constexpr const char* kMoves[] = {"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"};

v1::Actor Who(const std::string& subject, const std::string& role) {
  v1::Actor a;
  a.set_subject(subject);
  a.set_role(role);
  return a;
}

class ConflictCounter final : public AuthorityObserver {
 public:
  void OnConflict() override { ++conflicts; }
  int conflicts = 0;
};

class GameUnderContract final : public DomainAuthority {
 public:
  GameUnderContract(store::GameStore* store, ledger::TimeSource* time, const std::string& owner)
      : authority_(store, time, analyst_, {.owner = owner}) {
    authority_.AddObserver(&counter_);
  }

  absl::StatusOr<Outcome> Create(const std::string& game,
                                 const ledger::CommandOptions& options) override {
    // 9.1a's regulations aside, a standard game: 90 minutes sudden death (6.9: the flag ends it).
    v1::CreateGameRequest req;
    req.set_game_id(game);
    req.set_white_id("w");
    req.set_black_id("b");
    req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
    req.set_time_control("5400");
    return Of(authority_.Create(game, req, Who("platform", "platform"), Options(options)));
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
    Command adjust;  // the arbiter's decision: a minute more for Black
    adjust.kind = CommandKind::kAdjustTime;
    adjust.actor = Who("arbiter", "arbiter");
    adjust.side = chess::Color::kBlack;
    adjust.delta_ms = 60'000;
    adjust.reason = "the arbiter's decision";
    return Of(authority_.Execute(game, adjust, Options(options)));
  }
  absl::StatusOr<ledger::SettleResult> CheckDeadline(const std::string& game,
                                                     std::int64_t known_version) override {
    return authority_.CheckDeadline(game, known_version);
  }
  absl::StatusOr<std::int64_t> VersionAt(const std::string& game, std::int64_t version) override {
    absl::StatusOr<std::shared_ptr<const GameState>> state = authority_.StateAt(game, version);
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
  static Command CommandAt(int n) {
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
  static CommandOptions Options(const ledger::CommandOptions& o) {
    return {.command_id = o.command_id,
            .fingerprint = o.fingerprint,
            .expected_version = o.expected_version};
  }
  static absl::StatusOr<Outcome> Of(absl::StatusOr<CommandResult> r) {
    if (!r.ok()) return r.status();
    return Outcome{
        .version = r->version, .replayed = r->replayed, .state_version = r->game->version()};
  }

  LocalAnalyst analyst_;
  GameAuthority authority_;
  ConflictCounter counter_;
};

INSTANTIATE_TEST_SUITE_P(Game, AuthorityContractTest,
                         ::testing::ValuesIn(ContractParams(
                             "Game",
                             [](store::GameStore* store, ledger::TimeSource* time,
                                const std::string& owner) -> std::unique_ptr<DomainAuthority> {
                               return std::make_unique<GameUnderContract>(store, time, owner);
                             })),
                         ContractParamName);

}  // namespace
}  // namespace arbitration
