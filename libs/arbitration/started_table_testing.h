// For the rulings' unit tests: a started game driven through Decide, as the service and
// `game simulate` drive it (each test's Table adds the commands it needs).
#ifndef ARBITER_LIBS_ARBITRATION_STARTED_TABLE_TESTING_H_
#define ARBITER_LIBS_ARBITRATION_STARTED_TABLE_TESTING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/base/status_matchers.h"

namespace arbitration::testing {

// Players "w" and "b", an arbiter present, the edition, time control and start position given.
inline v1::CreateGameRequest GameRequest(v1::Edition edition, std::string time_control,
                                         std::string fen) {
  v1::CreateGameRequest req;
  req.set_white_id("w");
  req.set_black_id("b");
  req.mutable_ruleset()->set_edition(edition);
  req.mutable_ruleset()->mutable_regulations()->set_arbiter_present(true);
  req.set_time_control(std::move(time_control));
  req.set_start_fen(std::move(fen));
  return req;
}

class StartedTable {
 public:
  // Creates the game at 0 ms and starts it there.
  explicit StartedTable(const v1::CreateGameRequest& req) {
    absl::StatusOr<v1::ArbitrationEvent> created = NewGame(req, 0, v1::Actor());
    EXPECT_OK(created.status());
    absl::StatusOr<GameState> state = GameState::Create(*created);
    EXPECT_OK(state.status());
    game_ = std::make_unique<GameState>(*std::move(state));
    EXPECT_OK(Do({.kind = CommandKind::kStart}, 0));
  }

  // Runs a command at `at_ms`; returns the refusal (OK when applied).
  absl::Status Do(Command c, std::int64_t at_ms) {
    absl::StatusOr<Decision> d = Decide(*game_, c, at_ms, analyst_);
    if (!d.ok()) return d.status();
    last_ruling_ = d->claim_ruling;
    *game_ = *d->after;
    return d->refused;
  }
  // Plays moves alternately from the side to move, one second apart from `at_ms`.
  std::int64_t Play(const std::vector<std::string>& moves, std::int64_t at_ms) {
    for (const std::string& m : moves) {
      EXPECT_OK(Do({.kind = CommandKind::kMove, .side = game_->to_move(), .move = m}, at_ms)) << m;
      at_ms += 1000;
    }
    return at_ms;
  }

  const GameState& game() const { return *game_; }
  laws::Result result() const { return game_->outcome().result; }
  std::int64_t ms(chess::Color side, std::int64_t at) const { return game_->RemainingMs(side, at); }
  // The ruling on the last claim decided.
  v1::ClaimRuling ruling() const { return last_ruling_; }
  // Every comment of the exported record, joined (the text wraps lines).
  std::string Comments() const {
    chess::PgnGame pgn = ToPgnGame(*game_);
    std::string out;
    for (const std::string& c : pgn.leading_comments) out += c + " | ";
    for (const chess::PgnMove& m : pgn.moves) {
      for (const std::string& c : m.comments) out += c + " | ";
    }
    return out;
  }

 protected:
  std::unique_ptr<GameState> game_;

 private:
  LocalAnalyst analyst_;
  v1::ClaimRuling last_ruling_ = v1::CLAIM_RULING_UNSPECIFIED;
};

}  // namespace arbitration::testing

#endif  // ARBITER_LIBS_ARBITRATION_STARTED_TABLE_TESTING_H_
