#include "services/rules_validation/rules_service.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/status_macros.h"
#include "libs/chess/errors.h"
#include "libs/chess/fen.h"
#include "libs/chess/game.h"
#include "libs/chess/movegen.h"
#include "libs/chess/notation.h"
#include "libs/chess/perft.h"
#include "libs/chess/pgn.h"
#include "libs/laws/automatic_ending.h"
#include "libs/laws/proto_convert.h"
#include "services/chess_proto.h"

namespace rules_validation {
namespace {

using service::CallContext;
namespace v1 = arbiter::v1;

std::string Method(absl::string_view name) {
  return absl::StrCat("/", RulesValidationService::kName, "/", name);
}

chess::Letters LettersOf(v1::Letters l) {
  return l == v1::LETTERS_GERMAN ? chess::Letters::kGerman : chess::Letters::kEnglish;
}

absl::StatusOr<chess::Position> PositionOf(const v1::Position& p) {
  if (p.fen().empty())
    return base::Error(chess::kErrBadFen, "position.fen is required (a FEN or \"startpos\")");
  return chess::ParseFenOrStartpos(p.fen());
}

bool IsAnswerNotRequestError(const absl::Status& st) {
  std::string code = base::ErrorCode(st);
  return code == chess::kErrIllegalMove.code || code == chess::kErrAmbiguousSan.code;
}

// One validation: a malformed request is an error; an illegal or ambiguous move is an answer.
absl::Status ValidateOne(const v1::ValidateMoveRequest& req, v1::ValidateMoveResponse* resp) {
  resp->set_id(req.id());
  ASSIGN_OR_RETURN(chess::Position pos, PositionOf(req.position()));
  if (req.move().empty()) return base::Error(base::kErrBadArgument, "move is required");
  // Appendix E12: "e4(=)" is e4 with a draw offer.
  const chess::MoveText text = chess::SplitDrawOffer(req.move());
  absl::StatusOr<chess::Move> move = chess::ParseMove(pos, text.move);
  resp->set_draw_offer(text.draw_offer);
  if (!move.ok()) {
    if (!IsAnswerNotRequestError(move.status())) return move.status();
    resp->set_legal(false);
    *resp->mutable_error() = service::ToErrorInfo(move.status());
    return absl::OkStatus();
  }
  resp->set_legal(true);
  *resp->mutable_move() = services::MoveProto(pos, *move, LettersOf(req.letters()));
  chess::Position after = pos;
  after.PlayUnchecked(*move);
  resp->mutable_after()->set_fen(chess::ToFen(after));
  resp->set_check(after.InCheck());
  resp->set_checkmate(after.IsCheckmate());
  return absl::OkStatus();
}

// One item of a batch or a stream: a malformed item answers with its error (the rest go on).
void ValidateItem(const v1::ValidateMoveRequest& req, v1::ValidateMoveResponse* resp) {
  absl::Status st = ValidateOne(req, resp);
  if (!st.ok()) {
    resp->set_legal(false);
    *resp->mutable_error() = service::ToErrorInfo(st);
  }
}

void FillClaim(const chess::Position& pos, const chess::DrawClaim& claim, v1::DrawClaim* out) {
  out->set_now(claim.now);
  for (chess::Move m : claim.by_moves) *out->add_by_moves() = services::MoveProto(pos, m);
}

// The edition a request names; unspecified = the current Laws (2023).
laws::Edition EditionOrCurrent(v1::Edition edition) {
  absl::StatusOr<laws::Edition> e = laws::EditionOf(edition);
  return e.ok() ? *e : laws::Edition::kFide2023;
}

void FillStatus(const chess::Game& game, v1::Edition edition, v1::PositionStatus* out) {
  const chess::Position& pos = game.position();
  out->mutable_position()->set_fen(chess::ToFen(pos));
  out->set_turn(pos.side_to_move() == chess::Color::kWhite ? v1::COLOR_WHITE : v1::COLOR_BLACK);
  out->set_check(pos.InCheck());
  const bool mate = pos.IsCheckmate();
  const bool stalemate = pos.IsStalemate();
  out->set_checkmate(mate);
  out->set_stalemate(stalemate);
  out->set_insufficient_material(pos.IsInsufficientMaterial());
  FillClaim(pos, game.ThreefoldClaim(), out->mutable_threefold());
  FillClaim(pos, game.FiftyMoveClaim(), out->mutable_fifty_moves());
  out->set_fivefold(game.IsFivefoldRepetition());
  out->set_seventy_five_moves(game.IsSeventyFiveMoveRule());
  out->set_repetitions(game.RepetitionCount());
  out->set_halfmove_clock(pos.halfmove_clock());
  out->set_fullmove_number(pos.fullmove_number());

  // What ends the game by the position alone, under the edition asked for (libs/laws).
  v1::Outcome* outcome = out->mutable_automatic_outcome();
  outcome->set_result(v1::RESULT_ONGOING);
  if (std::optional<laws::AutomaticEnding> end = laws::EndingOf(game, EditionOrCurrent(edition))) {
    laws::ToProto(end->outcome, outcome);
  }
}

// The game from `position` through `moves` under `edition` (`each` sees every move played);
// INVALID_ARGUMENT naming the first bad one, and FAILED_PRECONDITION ERR_GAME_OVER for a move
// after the position ended the game (5.1a, 5.2a, 5.2b / 9.6, 2023 9.6.1-2): the game knows when
// it is over.
absl::StatusOr<chess::Game> GameOf(
    const v1::Position& position, const google::protobuf::RepeatedPtrField<std::string>& moves,
    int max, v1::Edition edition,
    const std::function<void(const chess::Position&, chess::Move)>& each = nullptr) {
  ASSIGN_OR_RETURN(chess::Position start, PositionOf(position));
  chess::Game game(start);
  if (moves.size() > max)
    return base::Error(base::kErrTooLarge, absl::StrCat("at most ", max, " moves"));
  for (int i = 0; i < moves.size(); ++i) {
    if (i > 0) {
      if (std::optional<laws::AutomaticEnding> end =
              laws::EndingOf(game, EditionOrCurrent(edition))) {
        return base::Error(
            chess::kErrGameOver,
            absl::StrCat("moves[", i, "] ", moves[i], ": the game ended after moves[", i - 1, "] (",
                         laws::TerminationName(end->outcome.termination), ", ",
                         end->outcome.article, ")"));
      }
    }
    const chess::Position before = game.position();
    absl::StatusOr<chess::Move> m = chess::ParseMove(before, moves[i]);
    absl::Status st = m.ok() ? game.Play(*m) : m.status();
    if (!st.ok()) return services::MoveError(i, moves[i], st);
    if (each) each(before, *m);
  }
  return game;
}

// Stops perft when the call is cancelled or its deadline passes.
std::function<absl::Status()> PerftCheck(const CallContext& call) {
  return [&call] {
    return call.Cancelled() ? absl::DeadlineExceededError("perft stopped: the deadline passed")
                            : absl::OkStatus();
  };
}

}  // namespace

RulesValidationService::RulesValidationService(service::ServiceEnv* env, RulesLimits limits)
    : env_(env), limits_(limits), async_(this) {
  using service::Role;
  // Stateless questions about the Laws: anyone authenticated may ask. Perft is CPU work with no
  // use to a player or observer in a game, so only platforms, arbiters and services may run it.
  for (const char* m : {"ValidateMove", "ValidateMoveBatch", "ValidateMoveStream", "ApplyMoves",
                        "LegalMoves", "GetStatus", "ConvertMove", "ValidateSetup", "ValidatePgn"}) {
    env_->policy().Add({Method(m), service::kAllRoles, false});
  }
  env_->policy().Add({Method("Perft"), {Role::kPlatform, Role::kArbiter, Role::kService}, false});

  async_.Add(&RulesValidationService::RequestValidateMove, &RulesValidationService::ValidateMove);
  async_.Add(&RulesValidationService::RequestLegalMoves, &RulesValidationService::LegalMoves);
  async_.Add(&RulesValidationService::RequestConvertMove, &RulesValidationService::ConvertMove);
  // ValidateMoveStream: one response per request, in order; a malformed item answers with its
  // error and the stream goes on. The stream is admitted once (who may open one, the stream
  // caps); each message is then charged to the caller's rate limit like a call, and one over it
  // is answered with ERR_RATE_LIMITED instead of being validated: a stream is no way around the
  // limit.
  async_.Own(
      std::make_unique<service::AsyncMessageStream<RulesValidationService, v1::ValidateMoveRequest,
                                                   v1::ValidateMoveResponse>>(
          this, &RulesValidationService::RequestValidateMoveStream,
          [this](grpc::ServerContext* ctx, std::shared_ptr<void>* admitted) {
            absl::StatusOr<service::Principal> who =
                env_->Admit(*ctx, Method("ValidateMoveStream"), nullptr);
            if (!who.ok()) return service::ToGrpcStatus(who.status());
            *admitted = std::make_shared<service::Principal>(*std::move(who));
            return grpc::Status::OK;
          },
          [this](grpc::ServerContext* ctx, const std::shared_ptr<void>& admitted,
                 const v1::ValidateMoveRequest& request, v1::ValidateMoveResponse* response,
                 grpc::Status* status) {
            if (CallContext(ctx, CallContext::kDeadlineOnly).Cancelled()) {
              *status = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "the deadline passed");
              return false;
            }
            const auto& who = *static_cast<const service::Principal*>(admitted.get());
            if (absl::Status charged = env_->ChargeMessage(who); !charged.ok()) {
              response->set_id(request.id());
              response->set_legal(false);
              *response->mutable_error() = service::ToErrorInfo(charged);
              return true;
            }
            ValidateItem(request, response);
            return true;
          }));
}

template <typename Fn>
grpc::Status RulesValidationService::Serve(grpc::ServerContext* ctx, const char* name,
                                           const google::protobuf::Message& req, Fn fn) {
  return env_->Serve(ctx, Method(name), req,
                     [&](const CallContext& call, const service::Principal&) { return fn(call); });
}

template <typename Fn>
grpc::Status RulesValidationService::ServeQueued(grpc::ServerContext* ctx, const char* name,
                                                 const google::protobuf::Message& req, Fn fn) {
  return env_->ServeQueued(
      ctx, Method(name), req,
      [&](const CallContext& call, const service::Principal&) { return fn(call); });
}

grpc::Status RulesValidationService::ValidateMove(grpc::ServerContext* ctx,
                                                  const v1::ValidateMoveRequest* req,
                                                  v1::ValidateMoveResponse* resp) {
  return ServeQueued(ctx, "ValidateMove", *req,
                     [&](const CallContext&) { return ValidateOne(*req, resp); });
}

grpc::Status RulesValidationService::ValidateMoveBatch(grpc::ServerContext* ctx,
                                                       const v1::ValidateMoveBatchRequest* req,
                                                       v1::ValidateMoveBatchResponse* resp) {
  return Serve(ctx, "ValidateMoveBatch", *req, [&](const CallContext& call) {
    if (req->requests_size() > limits_.max_batch) {
      return base::Error(base::kErrTooLarge,
                         absl::StrCat("at most ", limits_.max_batch, " items per batch"));
    }
    for (const v1::ValidateMoveRequest& item : req->requests()) {
      if (call.Cancelled())
        return absl::DeadlineExceededError("batch stopped: the deadline passed");
      ValidateItem(item, resp->add_responses());
    }
    return absl::OkStatus();
  });
}

grpc::Status RulesValidationService::ApplyMoves(grpc::ServerContext* ctx,
                                                const v1::ApplyMovesRequest* req,
                                                v1::ApplyMovesResponse* resp) {
  return Serve(ctx, "ApplyMoves", *req, [&](const CallContext&) -> absl::Status {
    const chess::Letters letters = LettersOf(req->letters());
    ASSIGN_OR_RETURN(
        chess::Game game,
        GameOf(req->position(), req->moves(), limits_.max_moves, v1::EDITION_UNSPECIFIED,
               [&](const chess::Position& before, chess::Move m) {
                 v1::AppliedMove* applied = resp->add_moves();
                 *applied->mutable_move() = services::MoveProto(before, m, letters);
                 chess::Position after = before;
                 after.PlayUnchecked(m);
                 applied->mutable_after()->set_fen(chess::ToFen(after));
               }));
    FillStatus(game, v1::EDITION_UNSPECIFIED, resp->mutable_status());
    return absl::OkStatus();
  });
}

grpc::Status RulesValidationService::LegalMoves(grpc::ServerContext* ctx,
                                                const v1::LegalMovesRequest* req,
                                                v1::LegalMovesResponse* resp) {
  return ServeQueued(ctx, "LegalMoves", *req, [&](const CallContext&) -> absl::Status {
    ASSIGN_OR_RETURN(chess::Position pos, PositionOf(req->position()));
    std::vector<v1::Move> moves;
    for (chess::Move m : pos.LegalMoves())
      moves.push_back(services::MoveProto(pos, m, LettersOf(req->letters())));
    std::sort(moves.begin(), moves.end(),
              [](const v1::Move& a, const v1::Move& b) { return a.uci() < b.uci(); });
    for (v1::Move& m : moves) *resp->add_moves() = std::move(m);
    return absl::OkStatus();
  });
}

grpc::Status RulesValidationService::GetStatus(grpc::ServerContext* ctx,
                                               const v1::GetStatusRequest* req,
                                               v1::GetStatusResponse* resp) {
  return Serve(ctx, "GetStatus", *req, [&](const CallContext&) -> absl::Status {
    ASSIGN_OR_RETURN(chess::Game game,
                     GameOf(req->position(), req->moves(), limits_.max_moves, req->edition()));
    FillStatus(game, req->edition(), resp->mutable_status());
    return absl::OkStatus();
  });
}

grpc::Status RulesValidationService::ConvertMove(grpc::ServerContext* ctx,
                                                 const v1::ConvertMoveRequest* req,
                                                 v1::ConvertMoveResponse* resp) {
  return ServeQueued(ctx, "ConvertMove", *req, [&](const CallContext&) -> absl::Status {
    ASSIGN_OR_RETURN(chess::Position pos, PositionOf(req->position()));
    if (req->move().empty()) return base::Error(base::kErrBadArgument, "move is required");
    ASSIGN_OR_RETURN(chess::Move m, chess::ParseMove(pos, req->move()));
    *resp->mutable_move() = services::MoveProto(pos, m, LettersOf(req->letters()));
    switch (req->to()) {
      case v1::NOTATION_UCI:
        resp->set_text(resp->move().uci());
        break;
      case v1::NOTATION_APPENDIX_E:
        resp->set_text(resp->move().appendix_e());
        break;
      default:
        resp->set_text(chess::ToSan(pos, m, chess::SanStyle::kPgn, LettersOf(req->letters())));
        break;
    }
    return absl::OkStatus();
  });
}

grpc::Status RulesValidationService::ValidateSetup(grpc::ServerContext* ctx,
                                                   const v1::ValidateSetupRequest* req,
                                                   v1::ValidateSetupResponse* resp) {
  return Serve(ctx, "ValidateSetup", *req, [&](const CallContext&) -> absl::Status {
    if (req->position().fen().empty())
      return base::Error(chess::kErrBadFen, "position.fen is required");
    chess::Setup setup;
    if (req->position().fen() == "startpos") {
      setup = chess::Setup::Initial();
    } else {
      ASSIGN_OR_RETURN(setup, chess::ParseFenSetup(req->position().fen()));
    }
    std::vector<chess::SetupProblem> problems = chess::Position::Validate(setup);
    resp->set_valid(problems.empty());
    for (const chess::SetupProblem& p : problems) {
      v1::SetupProblem* out = resp->add_problems();
      out->set_code(std::string(chess::SetupProblemCode(p.kind)));
      out->set_message(p.message);
    }
    if (problems.empty())
      resp->mutable_normalized()->set_fen(chess::ToFen(*chess::Position::FromSetup(setup)));
    return absl::OkStatus();
  });
}

grpc::Status RulesValidationService::ValidatePgn(grpc::ServerContext* ctx,
                                                 const v1::ValidatePgnRequest* req,
                                                 v1::ValidatePgnResponse* resp) {
  return Serve(ctx, "ValidatePgn", *req, [&](const CallContext& call) -> absl::Status {
    chess::PgnReadOptions options;
    options.max_games = limits_.max_pgn_games;
    absl::StatusOr<std::vector<chess::PgnGame>> games = chess::ParsePgn(req->pgn(), options);
    if (!games.ok()) {
      resp->set_ok(false);
      *resp->mutable_syntax_error() = service::ToErrorInfo(games.status());
      return absl::OkStatus();
    }
    bool all_ok = true;
    for (size_t i = 0; i < games->size(); ++i) {
      if (call.Cancelled())
        return absl::DeadlineExceededError("PGN validation stopped: the deadline passed");
      chess::PgnGame& game = (*games)[i];
      v1::PgnGameReport* report = resp->add_games();
      report->set_game(static_cast<int>(i) + 1);
      report->set_moves(static_cast<int>(game.moves.size()));
      report->set_result(game.result);
      int ply = -1;
      absl::Status st = chess::ReplayGame(&game, &ply);
      report->set_ok(st.ok());
      if (st.ok()) continue;
      all_ok = false;
      *report->mutable_error() = service::ToErrorInfo(st);
      if (ply >= 0) {
        report->set_ply(ply + 1);
        report->set_san(game.moves[ply].san);
        report->set_line(game.moves[ply].line);
        report->set_column(game.moves[ply].column);
      }
    }
    resp->set_ok(all_ok);
    return absl::OkStatus();
  });
}

grpc::Status RulesValidationService::Perft(grpc::ServerContext* ctx, const v1::PerftRequest* req,
                                           v1::PerftResponse* resp) {
  return Serve(ctx, "Perft", *req, [&](const CallContext& call) -> absl::Status {
    ASSIGN_OR_RETURN(chess::Position pos, PositionOf(req->position()));
    if (req->depth() < 0 || req->depth() > limits_.max_perft_depth) {
      return base::Error(
          base::kErrBadArgument,
          absl::StrCat("depth must be 0..", limits_.max_perft_depth, " on this server"));
    }
    return services::AnswerPerft(pos, req->depth(), req->divide(), PerftCheck(call), resp,
                                 [](v1::PerftDivide* d, chess::Move m, std::uint64_t nodes) {
                                   d->set_uci(chess::ToUci(m));
                                   d->set_nodes(nodes);
                                 });
  });
}

}  // namespace rules_validation
