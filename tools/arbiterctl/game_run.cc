#include "tools/arbiterctl/game_run.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/sealed_move.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/status_macros.h"
#include "tools/arbiterctl/json_fields.h"

namespace arbiterctl {
namespace {

EventOutcome Refused(absl::Status status) { return EventOutcome{std::move(status)}; }

}  // namespace

namespace v1 = arbiter::v1;
using arbitration::Command;
using arbitration::CommandKind;
using arbitration::GameState;

absl::StatusOr<GameRun> RunScenario(const Scenario& scenario) {
  const v1::CreateGameRequest& request = scenario.request;
  const std::vector<ParsedEvent>& parsed = scenario.events;
  const std::optional<std::int64_t>& query_ms = scenario.query_ms;
  // The game is created at instant 0, as the platform would before the start.
  ASSIGN_OR_RETURN(v1::ArbitrationEvent created,
                   arbitration::NewGame(request, 0, ActorFor("platform", "platform")));
  ASSIGN_OR_RETURN(GameState game, GameState::Create(created));
  arbitration::LocalAnalyst analyst;
  // Appendix A: sealed with a key made for this run and never shown: the sealed move is in no
  // output until the envelope is opened (A7, A9).
  const arbitration::SealedMoves sealer(seal::MasterKey::Generate());

  std::vector<EventOutcome> results;
  std::int64_t last_ms = 0;
  for (size_t i = 0; i < parsed.size(); ++i) {
    const ParsedEvent& e = parsed[i];
    if (e.at_ms < last_ms) {
      results.push_back(Refused(base::Error(
          base::kErrBadArgument, absl::StrCat("events[", i, "]: at_ms ", e.at_ms,
                                              " is before the previous event's ", last_ms))));
      continue;
    }
    last_ms = e.at_ms;
    if (!e.refused.ok()) {
      results.push_back(Refused(e.refused));
      continue;
    }
    Command command = e.command;
    if (command.kind == CommandKind::kSealMove) {
      absl::StatusOr<v1::MoveSealed> box = sealer.Seal(request.game_id(), game, command.move);
      command.move.clear();
      if (!box.ok()) {
        results.push_back(Refused(box.status()));
        continue;
      }
      command.seal = *std::move(box);
    }
    // A7, A9: the commands that may open the envelope; A10: a default that falls with both
    // players absent opens it before any command.
    if ((command.kind == CommandKind::kResumeAdjourned || command.kind == CommandKind::kArrive ||
         arbitration::DefaultOpensEnvelope(game)) &&
        game.adjournment().envelope) {
      absl::StatusOr<std::optional<std::string>> opened = sealer.Open(request.game_id(), game);
      if (opened.ok()) command.opened_move = *std::move(opened);
    }
    absl::StatusOr<arbitration::Decision> decision =
        arbitration::Decide(game, command, e.at_ms, analyst);
    if (!decision.ok()) {
      results.push_back(Refused(decision.status()));
      continue;
    }
    // A refused command changes nothing, but what fell before it (a flag, a default) stands.
    if (decision->after.has_value()) game = *decision->after;
    EventOutcome result{decision->refused};
    if (e.command.kind == CommandKind::kClaim || e.command.kind == CommandKind::kClaimIllegalMove) {
      result.ruling = decision->claim_ruling;
    }
    // 9.1a: the move was made; the offer it carried was refused by the regulations.
    for (const v1::ArbitrationEvent& made : decision->events) {
      if (made.has_draw_offer_refused()) result.offer_refused = made.draw_offer_refused().code();
    }
    results.push_back(std::move(result));
  }

  const std::int64_t t = query_ms.value_or(last_ms);
  if (t < last_ms) {
    return BadScenario(
        absl::StrCat("scenario: query_ms ", t, " is before the last event at ", last_ms, " ms"));
  }
  // What happens by the query's instant without anyone's command: flags, defaults (6.7, 6.9).
  std::optional<std::string> opened;
  if (arbitration::DefaultOpensEnvelope(game)) {  // A10: both absent, the envelope closed
    absl::StatusOr<std::optional<std::string>> open = sealer.Open(request.game_id(), game);
    if (open.ok()) opened = *std::move(open);
  }
  for (const v1::ArbitrationEvent& e : arbitration::Settle(game, t, analyst, opened)) {
    if (absl::Status applied = game.Apply(e); !applied.ok()) return applied;
  }

  return GameRun{std::move(game), std::move(results), t};
}

}  // namespace arbiterctl
