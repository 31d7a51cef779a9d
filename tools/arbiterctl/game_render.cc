#include "tools/arbiterctl/game_render.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libs/arbitration/game_state.h"
#include "libs/arbitration/touch_move.h"
#include "libs/base/error.h"
#include "libs/chess/fen.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"
#include "tools/arbiterctl/names.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;
using chess::Color;
using OrderedJson = nlohmann::ordered_json;

// {"ok": true} or {"ok": false, "code": "ERR_..."}; a claim's "ruling", a refused offer's "offer".
OrderedJson EventJson(const EventOutcome& e) {
  OrderedJson j = e.status.ok() ? OrderedJson{{"ok", true}}
                                : OrderedJson{{"ok", false}, {"code", base::ErrorCode(e.status)}};
  if (e.ruling) {
    if (std::string ruling = NameOf(kClaimRulingNames, *e.ruling); !ruling.empty()) {
      j["ruling"] = ruling;
    }
  }
  if (e.offer_refused) j["offer"] = *e.offer_refused;
  return j;
}

}  // namespace

OrderedJson RenderGame(const GameRun& run) {
  const arbitration::GameState& game = run.game;
  const std::int64_t t = run.at_ms;
  OrderedJson out;
  // The contract knows a game before its start as "ongoing" (nothing has ended it).
  out["status"] = game.status() == arbitration::GameStatus::kCreated
                      ? std::string("ongoing")
                      : std::string(arbitration::GameStatusName(game.status()));
  out["result"] = std::string(laws::ResultText(game.outcome().result));
  if (game.outcome().termination == laws::Termination::kNone) {
    out["termination"] = nullptr;
  } else {
    out["termination"] = std::string(laws::TerminationName(game.outcome().termination));
  }
  OrderedJson events = OrderedJson::array();
  for (const EventOutcome& e : run.events) events.push_back(EventJson(e));
  out["events"] = std::move(events);
  out["white_ms"] = std::max<std::int64_t>(0, game.RemainingMs(Color::kWhite, t));
  out["black_ms"] = std::max<std::int64_t>(0, game.RemainingMs(Color::kBlack, t));
  out["fen"] = chess::ToFen(game.position());
  if (std::optional<Color> offer = game.draw_offer(); offer.has_value()) {
    out["draw_offer"] = std::string(chess::ColorName(*offer));
  } else {
    out["draw_offer"] = nullptr;
  }
  // 11.1 with 13.4e/f and 12.7: each player's points once the game has ended (absent before).
  if (game.status() == arbitration::GameStatus::kEnded) {
    const auto [white_points, black_points] = game.Points();
    out["white_points"] = white_points;
    out["black_points"] = black_points;
  }
  // 6.13a: "paused": true while the arbiter has the clocks stopped; absent otherwise, so that the
  // contract's lines stay as they were for every scenario without a pause.
  if (game.paused()) out["paused"] = true;
  // The flags the server recorded (absent while none fell): each with its instant, whether it
  // counted when it fell (6.9; 2023 A.3) or counts only on the opponent's claim (B6; 2023 A.4.5),
  // and that article.
  if (!game.flags().empty()) {
    OrderedJson flags = OrderedJson::array();
    for (const v1::FlagRecorded& f : game.flags()) {
      flags.push_back({{"side", std::string(chess::ColorName(*laws::ColorOf(f.side())))},
                       {"at_ms", f.fell_at_ms()},
                       {"counts", f.counts()},
                       {"article", f.article()}});
    }
    out["flags"] = std::move(flags);
  }
  // The illegal-move ledger, when there is one (absent otherwise, as "paused").
  if (!game.illegal_ledger().empty()) {
    out["illegal_moves"] = {{"white", game.illegal_moves(Color::kWhite)},
                            {"black", game.illegal_moves(Color::kBlack)}};
  }
  // Appendix A (absent otherwise): a sealed move waits (never which), and the closed envelope.
  if (game.adjournment().sealed) out["move_sealed"] = true;
  if (const std::optional<v1::GameAdjourned>& env = game.adjournment().envelope) {
    out["envelope"] = {{"sealer", std::string(chess::ColorName(*laws::ColorOf(env->sealer())))},
                       {"move_number", env->move_number()},
                       {"white_ms", env->white_ms()},
                       {"black_ms", env->black_ms()},
                       {"resume_at_ms", env->resume_at_ms()}};
  }
  // Article 4 (absent otherwise): this turn's touched squares, and the move owed.
  if (!game.touches().touches().empty()) {
    OrderedJson touched = OrderedJson::array();
    for (const arbitration::Touch& t : game.touches().touches()) {
      touched.push_back(arbitration::SquareText(t.square));
    }
    out["touched"] = std::move(touched);
  }
  if (std::optional<arbitration::OwedMove> owed =
          arbitration::CurrentObligation(game.touches(), game.position(), game.ruleset())) {
    const bool free = owed->obligation.kind == arbitration::Obligation::Kind::kFree;
    out["obligation"] = {
        {"free", free},
        {"owed", free ? std::vector<std::string>() : owed->obligation.AllowedUci()},
        {"article", owed->obligation.article},
        {"enforced", owed->enforced}};
  }
  return out;
}

}  // namespace arbiterctl
