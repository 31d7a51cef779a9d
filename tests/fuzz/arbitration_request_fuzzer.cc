// Fuzz target: the arbitration service's request handling in process (services/arbitration).
// The input is a series of requests, each [method byte][seconds byte][length byte][serialized
// request], the request's bytes as they come off the wire. What parses becomes the command the
// service would make of it (arbitration_service.cc: the side, the move, the claim, the ruling,
// the result) and is decided by arbitration::Decide on a fresh game (created by the platform,
// started) at the request's instant; a CreateGameRequest replaces the game with its own.
// After every decision, the game's whole log must replay to the same state (the store rebuilds
// games so), and the PGN of the game must read back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/chess/fen.h"
#include "libs/chess/pgn.h"
#include "libs/laws/proto_convert.h"
#include "proto/arbiter/v1/arbitration.pb.h"
#include "tests/fuzz/request_records.h"

namespace {

namespace v1 = arbiter::v1;
using arbitration::Command;
using arbitration::CommandKind;
using arbitration::GameState;

v1::Actor ActorOf(const char* subject, const char* role) {
  v1::Actor a;
  a.set_subject(subject);
  a.set_role(role);
  return a;
}

std::optional<GameState> FreshGame() {
  v1::CreateGameRequest req;
  req.set_game_id("fuzz");
  req.set_white_id("alice");
  req.set_black_id("bob");
  req.set_time_control("300+2");
  req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  req.mutable_ruleset()->mutable_regulations()->set_arbiter_present(true);
  absl::StatusOr<v1::ArbitrationEvent> created =
      arbitration::NewGame(req, 0, ActorOf("platform", "platform"));
  if (!created.ok()) std::abort();
  absl::StatusOr<GameState> game = GameState::Create(*created);
  if (!game.ok()) std::abort();
  return *game;
}

// The side a request names (a token of either colour could send it): nullopt when unnamed.
std::optional<chess::Color> SideOf(int side) {
  if (!v1::Color_IsValid(side)) return std::nullopt;
  return laws::ColorOf(static_cast<v1::Color>(side));
}

Command Player(CommandKind kind, int side) {
  Command c;
  c.kind = kind;
  c.side = SideOf(side);
  c.actor = ActorOf(c.side == chess::Color::kBlack ? "player-black" : "player-white", "player");
  return c;
}

// The arbiter's command of `kind`.
Command Arbiter(CommandKind kind) {
  Command c;
  c.kind = kind;
  c.actor = ActorOf("arbiter", "arbiter");
  return c;
}

template <typename Request>
bool Read(const std::string& bytes, Request* req) {
  return req->ParseFromString(bytes);
}

// The player's command of `kind` from a request that names only the side it acts for.
template <typename Request>
std::optional<Command> BySide(const std::string& bytes, CommandKind kind) {
  Request req;
  if (!Read(bytes, &req)) return std::nullopt;
  return Player(kind, req.side());
}

// The command for request `method` (bytes), as the service makes it; nullopt when the bytes do
// not parse or the service would refuse the request before deciding.
std::optional<Command> CommandOf(int method, const std::string& bytes,
                                 std::optional<GameState>* game, std::int64_t now_ms) {
  switch (method) {
    case 0: {  // CreateGame: a game of the request's own
      v1::CreateGameRequest req;
      if (!Read(bytes, &req)) return std::nullopt;
      absl::StatusOr<v1::ArbitrationEvent> created =
          arbitration::NewGame(req, now_ms, ActorOf("platform", "platform"));
      if (!created.ok()) return std::nullopt;
      absl::StatusOr<GameState> made = GameState::Create(*created);
      if (made.ok()) *game = *made;
      return std::nullopt;
    }
    case 1: {
      v1::StartGameRequest req;
      if (!Read(bytes, &req) || req.absent_size() > 2) return std::nullopt;
      Command c = Arbiter(CommandKind::kStart);
      for (int side : req.absent()) {
        std::optional<chess::Color> color = SideOf(side);
        if (!color.has_value()) return std::nullopt;
        c.absent.push_back(*color);
      }
      return c;
    }
    case 2:
      return BySide<v1::ArriveRequest>(bytes, CommandKind::kArrive);
    case 3: {
      v1::SubmitMoveRequest req;
      if (!Read(bytes, &req) || req.move().empty()) return std::nullopt;
      if (req.lag_ms() < 0 || req.lag_ms() > 60'000) return std::nullopt;
      Command c = Player(CommandKind::kMove, req.side());
      c.move = req.move();
      c.offer_draw = req.offer_draw();
      c.lag_ms = req.lag_ms();
      return c;
    }
    case 4:
      return BySide<v1::ResignRequest>(bytes, CommandKind::kResign);
    case 5:
      return BySide<v1::OfferDrawRequest>(bytes, CommandKind::kOfferDraw);
    case 6: {
      v1::RespondDrawRequest req;
      if (!Read(bytes, &req)) return std::nullopt;
      return Player(req.accept() ? CommandKind::kAcceptDraw : CommandKind::kDeclineDraw,
                    req.side());
    }
    case 7: {
      v1::ClaimRequest req;
      if (!Read(bytes, &req)) return std::nullopt;
      if (!v1::ClaimKind_IsValid(req.kind()) || req.kind() == v1::CLAIM_KIND_UNSPECIFIED)
        return std::nullopt;
      if (!v1::QuickplayGround_IsValid(req.ground())) return std::nullopt;
      Command c = Player(CommandKind::kClaim, req.side());
      c.claim = req.kind();
      c.move = req.intended_move();
      c.ground = req.ground();
      return c;
    }
    case 8: {
      v1::RuleRequest req;
      if (!Read(bytes, &req)) return std::nullopt;
      if (!v1::RulingDecision_IsValid(req.decision()) ||
          req.decision() == v1::RULING_DECISION_UNSPECIFIED)
        return std::nullopt;
      Command c = Arbiter(CommandKind::kRule);
      c.decision = req.decision();
      c.add_time = req.add_time();
      c.reason = req.reason();
      return c;
    }
    case 9:
      return BySide<v1::ConfirmResultRequest>(bytes, CommandKind::kConfirm);
    case 10: {
      v1::SetResultRequest req;
      if (!Read(bytes, &req) || !v1::Result_IsValid(req.result())) return std::nullopt;
      absl::StatusOr<laws::Result> result = laws::ResultOf(req.result());
      if (!result.ok() || req.article().empty() || req.reason().empty()) return std::nullopt;
      Command c = Arbiter(CommandKind::kSetResult);
      c.outcome.result = *result;
      c.outcome.termination = laws::Termination::kArbiterDecision;
      c.outcome.article = req.article();
      c.reason = req.reason();
      return c;
    }
  }
  return std::nullopt;
}

// The log of `game` replays to the same state; its PGN reads back.
void ExpectConsistent(const GameState& game) {
  const std::vector<v1::ArbitrationEvent> events = game.events();
  absl::StatusOr<GameState> replayed = GameState::Replay(events);
  if (!replayed.ok() || replayed->version() != game.version() ||
      chess::ToFen(replayed->position()) != chess::ToFen(game.position()) ||
      replayed->status() != game.status()) {
    std::abort();
  }
  absl::StatusOr<std::vector<chess::PgnGame>> pgn = chess::ParsePgn(arbitration::ExportPgn(game));
  if (!pgn.ok() || pgn->size() != 1) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static arbitration::LocalAnalyst* analyst = [] {
    arbitration::LocalAnalystOptions options;
    options.max_nodes = 5000;
    return new arbitration::LocalAnalyst(options);
  }();
  std::optional<GameState> game = FreshGame();
  const std::int64_t now_ms =
      fuzz::ForEachRecord(data, size, [&](int kind, std::int64_t at_ms, const std::string& bytes) {
        std::optional<Command> command = CommandOf(kind % 11, bytes, &game, at_ms);
        if (!command.has_value()) return;
        absl::StatusOr<arbitration::Decision> d =
            arbitration::Decide(*game, *command, at_ms, *analyst);
        if (!d.ok() || !d->after.has_value()) return;
        if (d->after->version() != game->version() + static_cast<std::int64_t>(d->events.size()))
          std::abort();
        game = std::move(d->after);
        (void)arbitration::NextDeadline(*game);
      });
  (void)arbitration::Settle(*game, now_ms + 3'600'000, *analyst);
  ExpectConsistent(*game);
  return 0;
}
