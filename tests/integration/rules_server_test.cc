// The rules-validation service over real gRPC on loopback: every RPC, the error codes, and the
// auth matrix (each role x each method). The framework around it (TLS, health and drain, message
// limits, deadlines, /metrics, flags) is tested in framework_test.cc.
#include <string>
#include <tuple>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"
#include "tests/integration/testing/auth_matrix.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;
using S = v1::RulesValidation::Stub;

class RulesServerTest : public SuiteServerTest<RulesServerTest> {
 public:
  static TestServerOptions Options() { return WithoutMetrics({Service::kRules}); }

 protected:
  std::unique_ptr<S> Stub() { return server()->Stub<v1::RulesValidation>(); }
};

// The call was refused with this status, code, and a message naming `what`.
void ExpectRefused(const grpc::Status& st, grpc::StatusCode status, const std::string& code,
                   const std::string& what) {
  EXPECT_EQ(st.error_code(), status);
  EXPECT_EQ(Code(st), code);
  EXPECT_TRUE(absl::StrContains(st.error_message(), what)) << st.error_message();
}

TEST_F(RulesServerTest, ValidateMoveLegalIllegalAmbiguousAndMalformed) {
  auto stub = Stub();
  const std::string token = Token(Role::kPlayer);
  auto validate = [&](const v1::ValidateMoveRequest& req, v1::ValidateMoveResponse* resp) {
    return Unary(stub.get(), &S::ValidateMove, req, token, resp);
  };
  auto req = OnPosition<v1::ValidateMoveRequest>("startpos");
  req.set_move("Sf3");
  req.set_letters(v1::LETTERS_GERMAN);
  v1::ValidateMoveResponse resp;
  ASSERT_TRUE(validate(req, &resp).ok());
  EXPECT_TRUE(resp.legal());
  EXPECT_EQ(resp.move().uci(), "g1f3");
  EXPECT_EQ(resp.move().san(), "Nf3");
  EXPECT_EQ(resp.move().appendix_e(), "Sf3");
  EXPECT_FALSE(resp.draw_offer());
  {  // Appendix E12 / 9.1: "Sf3 (=)" is the move with a draw offer.
    v1::ValidateMoveRequest offer = req;
    offer.set_move("Sf3 (=)");
    v1::ValidateMoveResponse r;
    ASSERT_TRUE(validate(offer, &r).ok());
    EXPECT_TRUE(r.legal());
    EXPECT_EQ(r.move().uci(), "g1f3");
    EXPECT_TRUE(r.draw_offer());
  }
  // 3.9: a pinned knight; the answer carries the reason.
  req.mutable_position()->set_fen("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
  req.set_move("Nc3");
  ASSERT_TRUE(validate(req, &resp).ok());
  EXPECT_FALSE(resp.legal());
  EXPECT_EQ(resp.error().code(), "ERR_ILLEGAL_MOVE");
  EXPECT_EQ(resp.error().illegal_move_reason(), "LEAVES_KING_IN_CHECK");
  req.mutable_position()->set_fen("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
  req.set_move("Nd2");
  ASSERT_TRUE(validate(req, &resp).ok());
  EXPECT_EQ(resp.error().code(), "ERR_AMBIGUOUS_SAN");
  for (auto [fen, move, code] :
       {std::tuple{"startpos", "Zz9", "ERR_BAD_SAN"}, std::tuple{"nonsense", "e4", "ERR_BAD_FEN"},
        std::tuple{"8/8/8/8/8/8/8/8 w - - 0 1", "e4", "ERR_BAD_SETUP"},
        std::tuple{"startpos", "", "ERR_BAD_ARGUMENT"}}) {
    req.mutable_position()->set_fen(fen);
    req.set_move(move);
    grpc::Status st = validate(req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << fen << " " << move;
    EXPECT_EQ(Code(st), code);
  }
}

TEST_F(RulesServerTest, BatchAndStreamAnswerEachItem) {
  auto stub = Stub();
  v1::ValidateMoveBatchRequest batch;
  for (const char* m : {"e4", "e5", "Nf3", "bad!"}) {
    v1::ValidateMoveRequest* r = batch.add_requests();
    r->mutable_position()->set_fen("startpos");
    r->set_move(m);
    r->set_id(m);
  }
  v1::ValidateMoveBatchResponse out;
  ASSERT_TRUE(Unary(stub.get(), &S::ValidateMoveBatch, batch, Token(Role::kPlatform), &out).ok());
  ASSERT_EQ(out.responses_size(), 4);
  EXPECT_TRUE(out.responses(0).legal());
  EXPECT_FALSE(out.responses(1).legal());  // e5 is Black's move
  EXPECT_TRUE(out.responses(2).legal());
  EXPECT_EQ(out.responses(3).error().code(), "ERR_BAD_SAN");
  EXPECT_EQ(out.responses(3).id(), "bad!");

  Call sctx(Token(Role::kObserver));
  auto stream = stub->ValidateMoveStream(&sctx);
  for (const v1::ValidateMoveRequest& r : batch.requests()) ASSERT_TRUE(stream->Write(r));
  stream->WritesDone();
  v1::ValidateMoveResponse r;
  int n = 0;
  while (stream->Read(&r)) EXPECT_EQ(r.id(), batch.requests(n++).id());
  EXPECT_EQ(n, 4);
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(RulesServerTest, ApplyMovesStatusConvertSetupPgnPerft) {
  auto stub = Stub();
  const std::string token = Token(Role::kArbiter);
  {
    auto req = OnPosition<v1::ApplyMovesRequest>("startpos");
    for (const char* m : {"f3", "e5", "g4", "Qh4#"}) req.add_moves(m);
    v1::ApplyMovesResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::ApplyMoves, req, token, &resp).ok());
    ASSERT_EQ(resp.moves_size(), 4);
    EXPECT_EQ(resp.moves(3).move().san(), "Qh4#");
    EXPECT_TRUE(resp.status().checkmate());
    EXPECT_EQ(resp.status().automatic_outcome().termination(), v1::TERMINATION_CHECKMATE);
    EXPECT_EQ(resp.status().automatic_outcome().winner(), v1::COLOR_BLACK);
  }
  {  // The first illegal move fails the call, naming it.
    auto req = OnPosition<v1::ApplyMovesRequest>("startpos");
    req.add_moves("e4");
    req.add_moves("e4");
    v1::ApplyMovesResponse resp;
    grpc::Status st = Unary(stub.get(), &S::ApplyMoves, req, token, &resp);
    ExpectRefused(st, grpc::StatusCode::INVALID_ARGUMENT, "ERR_ILLEGAL_MOVE", "moves[1]");
  }
  {  // 9.2a and, under 2023, the automatic draws.
    auto req = OnPosition<v1::GetStatusRequest>("startpos");
    for (const char* m : {"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"}) req.add_moves(m);
    v1::GetStatusResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::GetStatus, req, token, &resp).ok());
    EXPECT_FALSE(resp.status().threefold().now());
    ASSERT_EQ(resp.status().threefold().by_moves_size(), 1);
    EXPECT_EQ(resp.status().threefold().by_moves(0).san(), "Ng8");
  }
  {
    auto req = OnPosition<v1::GetStatusRequest>("8/8/4k3/8/8/3K4/8/5B2 w - - 0 1");
    req.set_edition(v1::EDITION_FIDE_2001);
    v1::GetStatusResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::GetStatus, req, token, &resp).ok());
    EXPECT_EQ(resp.status().automatic_outcome().termination(), v1::TERMINATION_DEAD_POSITION);
  }
  {
    auto req = OnPosition<v1::ConvertMoveRequest>("3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1");
    req.set_move("e7d8q");
    req.set_to(v1::NOTATION_APPENDIX_E);
    req.set_letters(v1::LETTERS_GERMAN);
    v1::ConvertMoveResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::ConvertMove, req, token, &resp).ok());
    EXPECT_EQ(resp.text(), "exd8D+");
    EXPECT_EQ(resp.move().san(), "exd8=Q+");
  }
  {
    auto req = OnPosition<v1::ValidateSetupRequest>("kk6/8/8/8/8/8/8/P3K3 w KQ - 0 1");
    v1::ValidateSetupResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::ValidateSetup, req, token, &resp).ok());
    EXPECT_FALSE(resp.valid());
    EXPECT_EQ(resp.problems_size(), 4);  // two kings, a pawn on a1, rights K and Q without rooks
  }
  {
    v1::ValidatePgnRequest req;
    req.set_pgn("[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. e4 e5 2. Ke3 *\n");
    v1::ValidatePgnResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::ValidatePgn, req, token, &resp).ok());
    EXPECT_FALSE(resp.ok());
    ASSERT_EQ(resp.games_size(), 2);
    EXPECT_TRUE(resp.games(0).ok());
    EXPECT_EQ(resp.games(1).ply(), 3);
    EXPECT_EQ(resp.games(1).san(), "Ke3");
    EXPECT_EQ(resp.games(1).line(), 7);
    EXPECT_EQ(resp.games(1).error().code(), "ERR_ILLEGAL_MOVE");
  }
  {
    auto req = OnPosition<v1::PerftRequest>("startpos");
    req.set_depth(4);
    req.set_divide(true);
    v1::PerftResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::Perft, req, token, &resp).ok());
    EXPECT_EQ(resp.nodes(), 197281u);
    EXPECT_EQ(resp.divide_size(), 20);
    req.set_depth(9);
    EXPECT_EQ(Code(Unary(stub.get(), &S::Perft, req, token, &resp)), "ERR_BAD_ARGUMENT");
  }
  {
    auto req = OnPosition<v1::LegalMovesRequest>("startpos");
    v1::LegalMovesResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::LegalMoves, req, token, &resp).ok());
    EXPECT_EQ(resp.moves_size(), 20);
    EXPECT_EQ(resp.moves(0).uci(), "a2a3");
  }
}

// Each role x each method: allowed or denied as the policy table says; and bad tokens.
// The status knows when the game ended by the position, in every
// edition (1997 included, B2), and refuses moves after it.
TEST_F(RulesServerTest, TheStatusKnowsWhenTheGameIsOver) {
  auto stub = Stub();
  const std::string token = Token(Role::kArbiter);
  {  // 5.2b under the 1997 appendices: two bare kings.
    auto req = OnPosition<v1::GetStatusRequest>("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    req.set_edition(v1::EDITION_FIDE_1997);
    v1::GetStatusResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::GetStatus, req, token, &resp).ok());
    EXPECT_EQ(resp.status().automatic_outcome().result(), v1::RESULT_DRAW);
    EXPECT_EQ(resp.status().automatic_outcome().termination(), v1::TERMINATION_DEAD_POSITION);
  }
  {  // 9.6: locked pawns, dead by a static proof; Kd3 after it is refused.
    auto req = OnPosition<v1::GetStatusRequest>("8/2k5/8/p1p1p1p1/P1P1P3/6P1/4K3/8 w - - 0 1");
    req.set_edition(v1::EDITION_FIDE_2001);
    req.add_moves("g4");
    req.add_moves("Kd6");
    v1::GetStatusResponse resp;
    grpc::Status st = Unary(stub.get(), &S::GetStatus, req, token, &resp);
    ExpectRefused(st, grpc::StatusCode::FAILED_PRECONDITION, "ERR_GAME_OVER", "dead_position");
  }
}

TEST_F(RulesServerTest, TooManyMovesAreRefused) {
  auto many = OnPosition<v1::ApplyMovesRequest>("startpos");
  for (int i = 0; i < 10001; ++i) many.add_moves("Nf3");
  grpc::Status st = Unary(Stub().get(), &S::ApplyMoves, many, Token(Role::kArbiter));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Code(st), "ERR_TOO_LARGE");
}

// What each role gets from each method; bad tokens are refused (auth_matrix.h).
TEST_F(RulesServerTest, AuthMatrix) {
  // clang-format off
  const std::vector<AuthRow> matrix = {
      // method                platform  player  arbiter  observer  service
      {"ValidateMove",         OK,       OK,     OK,      OK,       OK},
      {"ValidateMoveBatch",    OK,       OK,     OK,      OK,       OK},
      {"ValidateMoveStream",   OK,       OK,     OK,      OK,       OK},
      {"ApplyMoves",           OK,       OK,     OK,      OK,       OK},
      {"LegalMoves",           OK,       OK,     OK,      OK,       OK},
      {"GetStatus",            OK,       OK,     OK,      OK,       OK},
      {"ConvertMove",          OK,       OK,     OK,      OK,       OK},
      {"ValidateSetup",        OK,       OK,     OK,      OK,       OK},
      {"ValidatePgn",          OK,       OK,     OK,      OK,       OK},
      {"Perft",                OK,       NO,     OK,      NO,       OK},  // not for players, observers
  };
  // clang-format on
  auto stub = Stub();
  auto vm = OnPosition<v1::ValidateMoveRequest>("startpos");
  vm.set_move("e4");
  auto apply = OnPosition<v1::ApplyMovesRequest>("startpos");
  v1::LegalMovesRequest legal;
  legal.mutable_position()->set_fen("startpos");
  auto status = OnPosition<v1::GetStatusRequest>("startpos");
  v1::ConvertMoveRequest convert;
  convert.mutable_position()->set_fen("startpos");
  convert.set_move("e4");
  auto setup = OnPosition<v1::ValidateSetupRequest>("startpos");
  v1::ValidatePgnRequest pgn;
  pgn.set_pgn("1. e4 *");
  auto perft = OnPosition<v1::PerftRequest>("startpos");
  perft.set_depth(2);
  // Stateless: no game; a player's token names one all the same.
  auto tok = [](const TokenFor& token) { return token("g1", chess::Color::kWhite); };
  ExpectAuthMatrix(
      rules_validation::RulesValidationService::kName, matrix,
      {
          {"ValidateMove",
           [&](auto& t) { return Unary(stub.get(), &S::ValidateMove, vm, tok(t)); }},
          {"ValidateMoveBatch",
           [&](auto& t) {
             return Unary(stub.get(), &S::ValidateMoveBatch, v1::ValidateMoveBatchRequest(),
                          tok(t));
           }},
          {"ValidateMoveStream",
           [&](auto& t) {
             Call call(tok(t));
             auto s = stub->ValidateMoveStream(&call);
             s->WritesDone();
             return s->Finish();
           }},
          {"ApplyMoves", [&](auto& t) { return Unary(stub.get(), &S::ApplyMoves, apply, tok(t)); }},
          {"LegalMoves", [&](auto& t) { return Unary(stub.get(), &S::LegalMoves, legal, tok(t)); }},
          {"GetStatus", [&](auto& t) { return Unary(stub.get(), &S::GetStatus, status, tok(t)); }},
          {"ConvertMove",
           [&](auto& t) { return Unary(stub.get(), &S::ConvertMove, convert, tok(t)); }},
          {"ValidateSetup",
           [&](auto& t) { return Unary(stub.get(), &S::ValidateSetup, setup, tok(t)); }},
          {"ValidatePgn", [&](auto& t) { return Unary(stub.get(), &S::ValidatePgn, pgn, tok(t)); }},
          {"Perft", [&](auto& t) { return Unary(stub.get(), &S::Perft, perft, tok(t)); }},
      });
}

}  // namespace
}  // namespace integration
