// The search-analysis service over real gRPC on loopback: every RPC (unwinnability 6.10 / C3,
// dead positions 5.2b / 9.6, mating potential 1997 C4, engine evaluation, claim advice 10.2 /
// Appendix D, perft), the validation error codes, the auth matrix (each role x each method),
// deadlines and cancellation that stop the work on the server, the worker queue's bound, a
// server without an engine, and /metrics with its labels. The engine parts run a real Stockfish
// (/usr/games/stockfish) and are skipped when it is not installed.
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/analysis/engine_pool.h"
#include "libs/analysis/unwinnable.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "proto/arbiter/v1/analysis.grpc.pb.h"
#include "tests/integration/testing/auth_matrix.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;
using S = v1::SearchAnalysis::Stub;

// Searches and the engine take their time on a loaded machine: calls get 20 s unless told.
constexpr absl::Duration kDeadline = absl::Seconds(20);

// Two light-squared bishops against three rooks: White can never mate (the rooks, the only
// blockers of the king's dark neighbours, always capture the checker or interpose), but no
// static proof covers three defenders and the reachable positions are far too many to
// enumerate, so the search runs until its budget or the deadline ends it.
constexpr char kLongSearchFen[] = "r2rk2r/8/8/8/8/3B4/8/5BK1 w - - 0 1";

bool HaveStockfish() { return access(analysis::kDefaultEnginePath, X_OK) == 0; }

TestServerOptions AnalysisOnly() { return TestServerOptions({Service::kAnalysis}); }

// Replays `line` (UCI, checked by libs/chess) from `fen`; the position it ends in.
chess::Position Replay(const std::string& fen,
                       const google::protobuf::RepeatedPtrField<v1::Move>& line) {
  chess::Position p = *chess::ParseFenOrStartpos(fen);
  for (const v1::Move& m : line) {
    absl::StatusOr<chess::Move> move = chess::ParseUci(p, m.uci());
    EXPECT_TRUE(move.ok()) << m.uci() << " in " << chess::ToFen(p);
    if (!move.ok()) break;
    EXPECT_EQ(m.san(), chess::ToSan(p, *move));
    p.PlayUnchecked(*move);
  }
  return p;
}

class AnalysisServerTest : public SuiteServerTest<AnalysisServerTest> {
 public:
  static TestServerOptions Options() { return AnalysisOnly(); }

 protected:
  S* stub() { return stub_.get(); }

 private:
  std::unique_ptr<S> stub_ = server()->Stub<v1::SearchAnalysis>();
};

TEST_F(AnalysisServerTest, UnwinnableGivesLinesThatMateAndProofs) {
  const std::string token = Token(Role::kArbiter);
  {  // 6.10: the knight mates only with Black's pawn as a blocker: a long helpmate.
    auto req = OnPosition<v1::UnwinnableRequest>("8/7p/8/8/2k5/8/8/N3K3 w - - 0 1");
    req.set_side(v1::COLOR_WHITE);
    v1::UnwinnableResponse resp;
    grpc::Status st = Unary(stub(), &S::Unwinnable, req, token, &resp, kDeadline);
    ASSERT_TRUE(st.ok()) << st.error_message();
    EXPECT_EQ(resp.result().verdict(), v1::VERDICT_WINNABLE);
    EXPECT_EQ(resp.result().side(), v1::COLOR_WHITE);
    EXPECT_GE(resp.result().line_size(), 15);
    chess::Position end = Replay(req.position().fen(), resp.result().line());
    EXPECT_TRUE(end.IsCheckmate());
    EXPECT_EQ(end.side_to_move(), chess::Color::kBlack);
    EXPECT_EQ(resp.result().goal_position().fen(), chess::ToFen(end));
    EXPECT_GT(resp.result().nodes(), 0);
  }
  {  // A knight against a bare king: unwinnable by material, no line.
    auto req = OnPosition<v1::UnwinnableRequest>("8/8/3k4/8/8/8/2N5/4K3 w - - 0 1");
    req.set_side(v1::COLOR_WHITE);
    v1::UnwinnableResponse resp;
    ASSERT_TRUE(Unary(stub(), &S::Unwinnable, req, token, &resp, kDeadline).ok());
    EXPECT_EQ(resp.result().verdict(), v1::VERDICT_UNWINNABLE);
    EXPECT_EQ(resp.result().method(), v1::PROOF_METHOD_MATERIAL);
    EXPECT_EQ(resp.result().line_size(), 0);
    EXPECT_FALSE(resp.result().reason().empty());
  }
  {  // After moves (SAN and UCI): Black mates at once with Qh4#.
    auto req = OnPosition<v1::UnwinnableRequest>("startpos");
    for (const char* m : {"f3", "e7e5", "g4"}) req.add_moves(m);
    req.set_side(v1::COLOR_BLACK);
    v1::UnwinnableResponse resp;
    ASSERT_TRUE(Unary(stub(), &S::Unwinnable, req, token, &resp, kDeadline).ok());
    EXPECT_EQ(resp.position().fen(),
              "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2");
    ASSERT_EQ(resp.result().verdict(), v1::VERDICT_WINNABLE);
    ASSERT_EQ(resp.result().line_size(), 1);
    EXPECT_EQ(resp.result().line(0).san(), "Qh4#");
    EXPECT_EQ(resp.result().line(0).appendix_e(), "Qh4++");
  }
  {  // The request's own node limit ends the search: undetermined, not an error.
    auto req = OnPosition<v1::UnwinnableRequest>(kLongSearchFen);
    req.set_side(v1::COLOR_WHITE);
    req.mutable_limits()->set_max_nodes(5000);
    v1::UnwinnableResponse resp;
    ASSERT_TRUE(Unary(stub(), &S::Unwinnable, req, token, &resp, kDeadline).ok());
    EXPECT_EQ(resp.result().verdict(), v1::VERDICT_UNDETERMINED);
    EXPECT_EQ(resp.result().method(), v1::PROOF_METHOD_LIMIT);
    EXPECT_LE(resp.result().nodes(), 5000);
  }
  {  // ... and so does its own time limit.
    auto req = OnPosition<v1::UnwinnableRequest>(kLongSearchFen);
    req.set_side(v1::COLOR_WHITE);
    req.mutable_limits()->set_max_nodes(50'000'000);
    req.mutable_limits()->set_time_limit_ms(200);
    v1::UnwinnableResponse resp;
    Call ctx(token, kDeadline);
    const absl::Time t0 = absl::Now();
    ASSERT_TRUE(stub()->Unwinnable(&ctx, req, &resp).ok());
    EXPECT_LT(absl::Now() - t0, absl::Seconds(3));
    EXPECT_EQ(resp.result().verdict(), v1::VERDICT_UNDETERMINED);
  }
}

TEST_F(AnalysisServerTest, DeadPositionBothWays) {
  const std::string token = Token(Role::kPlatform);
  {  // 5.2b / 9.6: kings behind a locked chain.
    auto req = OnPosition<v1::DeadPositionRequest>("8/8/1k6/p1p1p1p1/P1P1P1P1/8/8/1K6 w - - 0 1");
    v1::DeadPositionResponse resp;
    ASSERT_TRUE(Unary(stub(), &S::DeadPosition, req, token, &resp, kDeadline).ok());
    EXPECT_EQ(resp.verdict(), v1::DEAD_POSITION_VERDICT_DEAD);
    EXPECT_EQ(resp.white().verdict(), v1::VERDICT_UNWINNABLE);
    EXPECT_EQ(resp.black().verdict(), v1::VERDICT_UNWINNABLE);
    EXPECT_EQ(resp.white().method(), v1::PROOF_METHOD_LOCKED_PAWNS);
  }
  {  // Opposite-coloured bishops: either side can be mated with help. Alive, with a line.
    auto req = OnPosition<v1::DeadPositionRequest>("4k3/8/4b3/8/8/2B5/8/4K3 w - - 0 1");
    v1::DeadPositionResponse resp;
    ASSERT_TRUE(Unary(stub(), &S::DeadPosition, req, token, &resp, kDeadline).ok());
    EXPECT_EQ(resp.verdict(), v1::DEAD_POSITION_VERDICT_ALIVE);
    const v1::UnwinnableResult& w =
        resp.white().verdict() == v1::VERDICT_WINNABLE ? resp.white() : resp.black();
    ASSERT_EQ(w.verdict(), v1::VERDICT_WINNABLE);
    EXPECT_TRUE(Replay(req.position().fen(), w.line()).IsCheckmate());
  }
}

TEST_F(AnalysisServerTest, MatingPotentialOf1997C4) {
  const std::string token = Token(Role::kService);
  {  // R v N: sufficient; the line reaches a position where Black cannot prevent mate.
    auto req = OnPosition<v1::MatingPotentialRequest>("8/8/3k4/8/3n4/8/8/R3K3 w - - 0 1");
    req.set_side(v1::COLOR_WHITE);
    v1::MatingPotentialResponse resp;
    ASSERT_TRUE(Unary(stub(), &S::MatingPotential, req, token, &resp, kDeadline).ok());
    ASSERT_EQ(resp.result().verdict(), v1::VERDICT_WINNABLE);
    chess::Position end = Replay(req.position().fen(), resp.result().line());
    EXPECT_TRUE(analysis::CannotPreventMateNextMove(end, chess::Color::kWhite));
    EXPECT_EQ(resp.result().goal_position().fen(), chess::ToFen(end));
  }
  {  // K+N+N v K: insufficient, though a helpmate exists.
    auto req = OnPosition<v1::MatingPotentialRequest>("8/8/3k4/8/8/8/2NN4/4K3 w - - 0 1");
    req.set_side(v1::COLOR_WHITE);
    v1::MatingPotentialResponse resp;
    ASSERT_TRUE(Unary(stub(), &S::MatingPotential, req, token, &resp, kDeadline).ok());
    EXPECT_EQ(resp.result().verdict(), v1::VERDICT_UNWINNABLE);
  }
}

TEST_F(AnalysisServerTest, PerftWithDivide) {
  auto req = OnPosition<v1::AnalysisPerftRequest>("startpos");
  req.set_depth(4);
  req.set_divide(true);
  v1::AnalysisPerftResponse resp;
  ASSERT_TRUE(Unary(stub(), &S::Perft, req, Token(Role::kPlatform), &resp, kDeadline).ok());
  EXPECT_EQ(resp.nodes(), 197281u);
  ASSERT_EQ(resp.divide_size(), 20);
  std::uint64_t sum = 0;
  for (const v1::PerftMoveCount& d : resp.divide()) sum += d.nodes();
  EXPECT_EQ(sum, 197281u);
  EXPECT_FALSE(resp.divide(0).move().san().empty());
  // Kiwipete, after a move given in German letters (Appendix E2): Lxa6 = Bxa6.
  auto kiwi = OnPosition<v1::AnalysisPerftRequest>(
      "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
  kiwi.add_moves("Lxa6");
  kiwi.set_depth(2);
  ASSERT_TRUE(Unary(stub(), &S::Perft, kiwi, Token(Role::kArbiter), &resp, kDeadline).ok());
  EXPECT_EQ(resp.nodes(), 1907u);  // the Bxa6 entry of Kiwipete's depth-3 divide
}

// --- validation --------------------------------------------------------------------------------

TEST_F(AnalysisServerTest, EveryFieldIsValidated) {
  const std::string token = Token(Role::kArbiter);
  auto unwinnable = [&](const std::function<void(v1::UnwinnableRequest*)>& edit) {
    auto req = OnPosition<v1::UnwinnableRequest>("startpos");
    req.set_side(v1::COLOR_WHITE);
    edit(&req);
    v1::UnwinnableResponse resp;
    return Unary(stub(), &S::Unwinnable, req, token, &resp, kDeadline);
  };
  struct Case {
    const char* what;
    std::function<void(v1::UnwinnableRequest*)> edit;
    const char* code;
  };
  const std::vector<Case> cases = {
      {"no fen", [](auto* r) { r->mutable_position()->clear_fen(); }, "ERR_BAD_FEN"},
      {"bad fen", [](auto* r) { r->mutable_position()->set_fen("nonsense"); }, "ERR_BAD_FEN"},
      {"no kings", [](auto* r) { r->mutable_position()->set_fen("8/8/8/8/8/8/8/8 w - - 0 1"); },
       "ERR_BAD_SETUP"},
      {"impossible check",  // both kings in check: libs/chess refuses it before any search
       [](auto* r) { r->mutable_position()->set_fen("4k3/4R3/8/8/8/8/4r3/4K3 w - - 0 1"); },
       "ERR_BAD_SETUP"},
      {"illegal move",
       [](auto* r) {
         r->add_moves("e4");
         r->add_moves("e4");
       },
       "ERR_ILLEGAL_MOVE"},
      {"bad notation", [](auto* r) { r->add_moves("Zz9"); }, "ERR_BAD_SAN"},
      {"no side", [](auto* r) { r->set_side(v1::COLOR_UNSPECIFIED); }, "ERR_BAD_ARGUMENT"},
      {"nodes over the maximum", [](auto* r) { r->mutable_limits()->set_max_nodes(50'000'001); },
       "ERR_BAD_LIMITS"},
      {"negative nodes", [](auto* r) { r->mutable_limits()->set_max_nodes(-1); }, "ERR_BAD_LIMITS"},
      {"time over the maximum", [](auto* r) { r->mutable_limits()->set_time_limit_ms(60001); },
       "ERR_BAD_LIMITS"},
      {"too many moves",
       [](auto* r) {
         for (int i = 0; i < 10001; ++i) r->add_moves("Nf3");
       },
       "ERR_TOO_LARGE"},
  };
  for (const Case& c : cases) {
    grpc::Status st = unwinnable(c.edit);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.what;
    EXPECT_EQ(Code(st), c.code) << c.what << ": " << st.error_message();
  }
  EXPECT_TRUE(absl::StrContains(unwinnable(cases[4].edit).error_message(), "moves[1]"));

  {  // The other RPCs check their own fields.
    auto req = OnPosition<v1::DeadPositionRequest>("startpos");
    req.mutable_limits()->set_time_limit_ms(-5);
    v1::DeadPositionResponse resp;
    EXPECT_EQ(Code(Unary(stub(), &S::DeadPosition, req, token, &resp, kDeadline)),
              "ERR_BAD_LIMITS");
  }
  {
    auto req = OnPosition<v1::MatingPotentialRequest>("startpos");
    v1::MatingPotentialResponse resp;
    EXPECT_EQ(Code(Unary(stub(), &S::MatingPotential, req, token, &resp, kDeadline)),
              "ERR_BAD_ARGUMENT");  // no side
  }
  {
    auto req = OnPosition<v1::AnalysisPerftRequest>("startpos");
    req.set_depth(9);
    v1::AnalysisPerftResponse resp;
    grpc::Status st = Unary(stub(), &S::Perft, req, token, &resp, kDeadline);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(Code(st), "ERR_BAD_ARGUMENT");
  }
  for (auto edit : std::vector<std::function<void(v1::EngineSettings*)>>{
           [](v1::EngineSettings* e) { e->set_depth(65); },
           [](v1::EngineSettings* e) { e->set_multipv(9); },
           [](v1::EngineSettings* e) { e->set_nodes(-1); },
           [](v1::EngineSettings* e) { e->set_movetime_ms(60001); }}) {
    auto req = OnPosition<v1::EvaluateRequest>("startpos");
    edit(req.mutable_engine());
    v1::EvaluateResponse resp;
    grpc::Status st = Unary(stub(), &S::Evaluate, req, token, &resp, kDeadline);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(Code(st), "ERR_BAD_LIMITS") << req.engine().DebugString();
  }
  {
    auto req = OnPosition<v1::AdviseClaimRequest>("startpos");
    req.set_last_moves(501);
    v1::AdviseClaimResponse resp;
    EXPECT_EQ(Code(Unary(stub(), &S::AdviseClaim, req, token, &resp, kDeadline)), "ERR_BAD_LIMITS");
  }
}

// --- the engine --------------------------------------------------------------------------------

TEST_F(AnalysisServerTest, EvaluateWithStockfish) {
  if (!HaveStockfish()) GTEST_SKIP() << "stockfish not installed";
  auto req = OnPosition<v1::EvaluateRequest>("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
  req.mutable_engine()->set_depth(6);
  req.mutable_engine()->set_multipv(2);
  v1::EvaluateResponse resp;
  grpc::Status st = Unary(stub(), &S::Evaluate, req, Token(Role::kArbiter), &resp, kDeadline);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(resp.complete());
  EXPECT_EQ(resp.side_to_move(), v1::COLOR_WHITE);
  EXPECT_EQ(resp.best_move().uci(), "a1a8");
  EXPECT_EQ(resp.best_move().san(), "Ra8#");
  ASSERT_EQ(resp.lines_size(), 2);
  EXPECT_TRUE(resp.lines(0).has_mate_in());
  EXPECT_EQ(resp.lines(0).mate_in(), 1);
  EXPECT_FALSE(resp.lines(0).has_score_cp());
  EXPECT_EQ(resp.lines(0).pv(0).san(), "Ra8#");
  // Moves are replayed by libs/chess before the engine sees the position.
  auto after = OnPosition<v1::EvaluateRequest>("startpos");
  for (const char* m : {"e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"}) after.add_moves(m);
  after.mutable_engine()->set_depth(4);
  ASSERT_TRUE(Unary(stub(), &S::Evaluate, after, Token(Role::kService), &resp, kDeadline).ok());
  EXPECT_EQ(resp.best_move().san(), "Qxf7#");
}

TEST_F(AnalysisServerTest, AdviseClaimIsLabelledAdvice) {
  // 10.2: Black, to move, claims; White (the opponent) has a queen: he can mate.
  auto req = OnPosition<v1::AdviseClaimRequest>("4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1");
  for (const char* m : {"Qd4", "Ke7", "Ke2"}) req.add_moves(m);
  req.mutable_engine()->set_depth(6);
  req.mutable_engine()->set_multipv(2);
  v1::AdviseClaimResponse resp;
  grpc::Status st = Unary(stub(), &S::AdviseClaim, req, Token(Role::kArbiter), &resp, kDeadline);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.label(), "advice for a human ruling (10.2 / Appendix D); not a ruling");
  EXPECT_EQ(resp.claimant(), v1::COLOR_BLACK);
  EXPECT_EQ(resp.opponent(), v1::COLOR_WHITE);
  EXPECT_EQ(resp.opponent_can_mate().verdict(), v1::VERDICT_WINNABLE);
  EXPECT_EQ(resp.progress().moves_considered(), 2);
  EXPECT_EQ(resp.progress().material_size(), 4);
  if (HaveStockfish()) {
    EXPECT_TRUE(resp.engine_used());
    EXPECT_FALSE(resp.lines().empty());
    EXPECT_TRUE(resp.has_opponent_score_cp() || resp.has_opponent_mate_in());
    if (resp.has_opponent_score_cp()) {
      EXPECT_GT(resp.opponent_score_cp(), 300);
    }
  }
  // The opponent with a lone bishop cannot win by any means: proven, and said so.
  auto lone = OnPosition<v1::AdviseClaimRequest>("4k3/8/8/8/8/8/4B3/4K3 w - - 0 1");
  for (const char* m : {"Kd2", "Kd8", "Kc3", "Kc8", "Bf3"}) lone.add_moves(m);
  lone.mutable_engine()->set_depth(2);
  ASSERT_TRUE(Unary(stub(), &S::AdviseClaim, lone, Token(Role::kService), &resp, kDeadline).ok());
  EXPECT_EQ(resp.opponent_can_mate().verdict(), v1::VERDICT_UNWINNABLE);
  EXPECT_EQ(resp.opponent_can_mate().method(), v1::PROOF_METHOD_MATERIAL);
  bool said = false;
  for (const std::string& n : resp.notes()) said |= absl::StrContains(n, "cannot win by any means");
  EXPECT_TRUE(said);
}

// --- auth --------------------------------------------------------------------------------------
// What each role gets from each method; bad tokens are refused (auth_matrix.h). Searches are for
// platforms, arbiters and services; engine evaluation and claim advice for arbiters and services
// only (12.2: no analysis for players during play).
// The searches' memory stays below the pod's limit. With 1 MiB for 2 workers a search
// may hold 1 MiB / (2 x 50 bytes) = 10,485 positions: a request for more is refused, and the
// limit the server states is that bound, not --analysis_max_nodes.
TEST(AnalysisMemoryTest, TheMemoryBudgetBoundsTheNodeLimit) {
  TestServerOptions options = WithoutMetrics({Service::kAnalysis});
  options.analysis.memory_mb = 1;
  std::unique_ptr<TestServer> server = TestServer::StartOrDie(options);
  auto stub = server->Stub<v1::SearchAnalysis>();
  auto req = OnPosition<v1::UnwinnableRequest>("startpos");
  req.set_side(v1::COLOR_WHITE);
  req.mutable_limits()->set_max_nodes(10'486);
  grpc::Status st = Unary(stub.get(), &S::Unwinnable, req, Token(Role::kArbiter));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Code(st), "ERR_BAD_LIMITS");
  EXPECT_TRUE(absl::StrContains(st.error_message(), "0..10485")) << st.error_message();
  req.mutable_limits()->set_max_nodes(10'485);
  v1::UnwinnableResponse resp;
  EXPECT_TRUE(Succeeded(Unary(stub.get(), &S::Unwinnable, req, Token(Role::kArbiter), &resp)));
}

TEST_F(AnalysisServerTest, AuthMatrix) {
  const grpc::StatusCode ENGINE = HaveStockfish() ? OK : grpc::StatusCode::UNAVAILABLE;
  // clang-format off
  const std::vector<AuthRow> matrix = {
      // method             platform  player  arbiter  observer  service
      {"Unwinnable",        OK,       NO,     OK,      NO,       OK},
      {"DeadPosition",      OK,       NO,     OK,      NO,       OK},
      {"MatingPotential",   OK,       NO,     OK,      NO,       OK},
      {"Evaluate",          NO,       NO,     ENGINE,  NO,       ENGINE},
      {"AdviseClaim",       NO,       NO,     OK,      NO,       OK},
      {"Perft",             OK,       NO,     OK,      NO,       OK},
  };
  // clang-format on
  const std::string fen = "8/8/3k4/8/8/8/2N5/4K3 w - - 0 1";  // a static proof: instant
  auto unwinnable = OnPosition<v1::UnwinnableRequest>(fen);
  unwinnable.set_side(v1::COLOR_WHITE);
  auto dead = OnPosition<v1::DeadPositionRequest>(fen);
  v1::MatingPotentialRequest mating;
  mating.mutable_position()->set_fen(fen);
  mating.set_side(v1::COLOR_WHITE);
  auto evaluate = OnPosition<v1::EvaluateRequest>("startpos");
  evaluate.mutable_engine()->set_depth(1);
  auto advise = OnPosition<v1::AdviseClaimRequest>(fen);
  advise.mutable_engine()->set_depth(1);
  auto perft = OnPosition<v1::AnalysisPerftRequest>("startpos");
  perft.set_depth(2);
  // No game; a player's token names one all the same.
  auto tok = [](const TokenFor& token) { return token("g1", chess::Color::kWhite); };
  ExpectAuthMatrix(
      search_analysis::SearchAnalysisService::kName, matrix,
      {
          {"Unwinnable",
           [&](auto& t) { return Unary(stub(), &S::Unwinnable, unwinnable, tok(t)); }},
          {"DeadPosition", [&](auto& t) { return Unary(stub(), &S::DeadPosition, dead, tok(t)); }},
          {"MatingPotential",
           [&](auto& t) { return Unary(stub(), &S::MatingPotential, mating, tok(t)); }},
          {"Evaluate", [&](auto& t) { return Unary(stub(), &S::Evaluate, evaluate, tok(t)); }},
          {"AdviseClaim", [&](auto& t) { return Unary(stub(), &S::AdviseClaim, advise, tok(t)); }},
          {"Perft", [&](auto& t) { return Unary(stub(), &S::Perft, perft, tok(t)); }},
      });
}

// --- deadlines and cancellation ----------------------------------------------------------------

constexpr char kBusyZero[] = "arbiter_analysis_workers{state=\"busy\"} 0";

TEST_F(AnalysisServerTest, DeadlineCutsALongSearchAndTheWorkStops) {
  ASSERT_TRUE(server()->MetricsReach(kBusyZero));
  auto req = OnPosition<v1::UnwinnableRequest>(kLongSearchFen);
  req.set_side(v1::COLOR_WHITE);
  req.mutable_limits()->set_max_nodes(50'000'000);  // many seconds of search
  req.mutable_limits()->set_time_limit_ms(60'000);
  v1::UnwinnableResponse resp;
  Call ctx(Token(Role::kArbiter), absl::Milliseconds(300));
  const absl::Time t0 = absl::Now();
  grpc::Status st = stub()->Unwinnable(&ctx, req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(absl::Now() - t0, absl::Seconds(2));
  // On the server the search stopped: the worker is free again and the call is no longer in
  // flight, within moments of the deadline.
  EXPECT_TRUE(server()->MetricsReach(kBusyZero, absl::Seconds(2)));
  EXPECT_TRUE(server()->MetricsReach(
      "arbiter_grpc_in_flight_requests{method=\"Unwinnable\",service=\"arbiter.v1."
      "SearchAnalysis\"} 0",
      absl::Seconds(2)));
  EXPECT_LT(absl::Now() - t0, absl::Seconds(3));

  // Perft too: depth 8 of the start position is minutes of work.
  auto perft = OnPosition<v1::AnalysisPerftRequest>("startpos");
  perft.set_depth(8);
  v1::AnalysisPerftResponse presp;
  Call pctx(Token(Role::kArbiter), absl::Milliseconds(300));
  const absl::Time t1 = absl::Now();
  EXPECT_EQ(stub()->Perft(&pctx, perft, &presp).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_TRUE(server()->MetricsReach(kBusyZero, absl::Seconds(2)));
  EXPECT_LT(absl::Now() - t1, absl::Seconds(3));
  // Its own time limit ends it the same way, with the stable code.
  perft.set_time_limit_ms(200);
  grpc::Status pst = Unary(stub(), &S::Perft, perft, Token(Role::kArbiter), &presp, kDeadline);
  EXPECT_EQ(pst.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(Code(pst), "ERR_DEADLINE_EXCEEDED");
}

TEST_F(AnalysisServerTest, DeadlineStopsTheEngineWhichStaysInThePool) {
  if (!HaveStockfish()) GTEST_SKIP() << "stockfish not installed";
  auto req = OnPosition<v1::EvaluateRequest>("startpos");
  req.mutable_engine()->set_depth(60);
  v1::EvaluateResponse resp;
  Call ctx(Token(Role::kArbiter), absl::Milliseconds(500));
  const absl::Time t0 = absl::Now();
  EXPECT_EQ(stub()->Evaluate(&ctx, req, &resp).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(absl::Now() - t0, absl::Seconds(3));
  // The engine was told to stop, answered, and is idle again: no restart was needed.
  EXPECT_TRUE(server()->MetricsReach("arbiter_engine_pool_engines{state=\"idle\"} 1"));
  EXPECT_TRUE(server()->MetricsReach(kBusyZero));
  EXPECT_TRUE(absl::StrContains(server()->Metrics(), "arbiter_engine_pool_restarts_total 0"));
  // And it answers the next request.
  req.mutable_engine()->set_depth(3);
  EXPECT_TRUE(Unary(stub(), &S::Evaluate, req, Token(Role::kArbiter), &resp, kDeadline).ok());
}

TEST_F(AnalysisServerTest, CallerGoingAwayCancelsTheSearch) {
  ASSERT_TRUE(server()->MetricsReach(kBusyZero));
  auto req = OnPosition<v1::UnwinnableRequest>(kLongSearchFen);
  req.set_side(v1::COLOR_WHITE);
  req.mutable_limits()->set_max_nodes(50'000'000);
  req.mutable_limits()->set_time_limit_ms(60'000);
  v1::UnwinnableResponse resp;
  Call ctx(Token(Role::kArbiter), absl::Milliseconds(60'000));
  std::thread canceller([&] {
    // Cancel once the search is running on a worker.
    server()->MetricsReach("arbiter_analysis_workers{state=\"busy\"} 1");
    ctx.TryCancel();
  });
  const absl::Time t0 = absl::Now();
  EXPECT_EQ(stub()->Unwinnable(&ctx, req, &resp).error_code(), grpc::StatusCode::CANCELLED);
  canceller.join();
  EXPECT_TRUE(server()->MetricsReach(kBusyZero, absl::Seconds(2)));
  EXPECT_LT(absl::Now() - t0, absl::Seconds(5));
}

// --- other servers: a full queue, no engine ----------------------------------------------------

TEST(AnalysisServerQueueTest, FullQueueIsResourceExhausted) {
  TestServerOptions options = AnalysisOnly();
  options.analysis.workers = 1;
  options.analysis.max_queue = 0;
  options.analysis.engine_pool_size = 0;
  std::unique_ptr<TestServer> r = TestServer::StartOrDie(options);
  auto stub = r->Stub<v1::SearchAnalysis>();
  auto req = OnPosition<v1::UnwinnableRequest>(kLongSearchFen);
  req.set_side(v1::COLOR_WHITE);
  req.mutable_limits()->set_max_nodes(50'000'000);
  grpc::Status first;
  std::thread occupier([&] {
    v1::UnwinnableResponse resp;
    first = Unary(stub.get(), &S::Unwinnable, req, Token(Role::kArbiter), &resp,
                  absl::Milliseconds(1500));
  });
  ASSERT_TRUE(r->MetricsReach("arbiter_analysis_workers{state=\"busy\"} 1"));
  v1::UnwinnableResponse resp;
  grpc::Status st = Unary(stub.get(), &S::Unwinnable, req, Token(Role::kArbiter), &resp, kDeadline);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(Code(st), "ERR_BUSY");
  occupier.join();
  EXPECT_EQ(first.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST(AnalysisServerNoEngineTest, EngineRpcsUnavailableSearchesWork) {
  TestServerOptions options = AnalysisOnly();
  options.analysis.engine_path = "/nonexistent/stockfish";
  std::unique_ptr<TestServer> r = TestServer::StartOrDie(options);
  auto stub = r->Stub<v1::SearchAnalysis>();
  EXPECT_FALSE(r->analysis()->engine_available());
  const std::string token = Token(Role::kArbiter);
  {
    auto req = OnPosition<v1::EvaluateRequest>("startpos");
    v1::EvaluateResponse resp;
    grpc::Status st = Unary(stub.get(), &S::Evaluate, req, token, &resp, kDeadline);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE);
    EXPECT_EQ(Code(st), "ERR_ENGINE_UNAVAILABLE");
  }
  {  // Advice still comes, with the proof and the progress, and says the engine is missing ...
    auto req = OnPosition<v1::AdviseClaimRequest>("4k3/8/8/8/8/8/4B3/4K3 w - - 0 1");
    req.add_moves("Kd2");
    v1::AdviseClaimResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::AdviseClaim, req, token, &resp, kDeadline).ok());
    EXPECT_FALSE(resp.engine_used());
    EXPECT_EQ(resp.opponent_can_mate().verdict(), v1::VERDICT_UNWINNABLE);
    bool said = false;
    for (const std::string& n : resp.notes())
      said |= absl::StrContains(n, "ERR_ENGINE_UNAVAILABLE");
    EXPECT_TRUE(said);
    // ... unless the caller requires the engine.
    req.set_require_engine(true);
    EXPECT_EQ(Code(Unary(stub.get(), &S::AdviseClaim, req, token, &resp, kDeadline)),
              "ERR_ENGINE_UNAVAILABLE");
  }
  {  // The searches do not need the engine.
    auto req = OnPosition<v1::UnwinnableRequest>("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    req.set_side(v1::COLOR_WHITE);
    v1::UnwinnableResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::Unwinnable, req, token, &resp, kDeadline).ok());
    EXPECT_EQ(resp.result().verdict(), v1::VERDICT_WINNABLE);
  }
  EXPECT_TRUE(r->MetricsReach("arbiter_engine_pool_available 0"));
}

// --- metrics and health ------------------------------------------------------------------------

double Sample(const std::string& metrics, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(metrics, '\n')) {
    if (absl::StartsWith(line, series + " ")) {
      double v = -1;
      if (absl::SimpleAtod(line.substr(series.size() + 1), &v)) return v;
    }
  }
  return -1;
}

TEST(AnalysisServerMetricsTest, SeriesWithLabels) {
  TestServerOptions options = AnalysisOnly();
  options.analysis.engine_pool_size = HaveStockfish() ? 1 : 0;
  std::unique_ptr<TestServer> r = TestServer::StartOrDie(options);
  auto stub = r->Stub<v1::SearchAnalysis>();
  const std::string token = Token(Role::kArbiter);
  // One winnable and one undetermined answer: the undetermined ratio is one half.
  for (int max_nodes : {0, 2000}) {
    auto req = OnPosition<v1::UnwinnableRequest>(
        max_nodes == 0 ? "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1" : kLongSearchFen);
    req.set_side(v1::COLOR_WHITE);
    req.mutable_limits()->set_max_nodes(max_nodes);
    v1::UnwinnableResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::Unwinnable, req, token, &resp, kDeadline).ok());
  }
  {
    auto req = OnPosition<v1::DeadPositionRequest>("8/8/1k6/p1p1p1p1/P1P1P1P1/8/8/1K6 w - - 0 1");
    v1::DeadPositionResponse resp;
    ASSERT_TRUE(Unary(stub.get(), &S::DeadPosition, req, token, &resp, kDeadline).ok());
  }
  ASSERT_TRUE(r->MetricsReach(kBusyZero));
  const std::string m = r->Metrics();
  EXPECT_EQ(Sample(m, "arbiter_analysis_verdicts_total{kind=\"unwinnable\",verdict=\"winnable\"}"),
            1);
  EXPECT_EQ(
      Sample(m, "arbiter_analysis_verdicts_total{kind=\"unwinnable\",verdict=\"undetermined\"}"),
      1);
  EXPECT_EQ(Sample(m, "arbiter_analysis_verdicts_total{kind=\"dead_position\",verdict=\"dead\"}"),
            1);
  EXPECT_EQ(Sample(m, "arbiter_analysis_undetermined_ratio{kind=\"unwinnable\"}"), 0.5);
  EXPECT_EQ(Sample(m, "arbiter_analysis_undetermined_ratio{kind=\"dead_position\"}"), 0);
  EXPECT_EQ(Sample(m, "arbiter_analysis_duration_seconds_count{kind=\"unwinnable\"}"), 2);
  EXPECT_GT(Sample(m, "arbiter_analysis_nodes_total{kind=\"unwinnable\"}"), 2000);
  EXPECT_EQ(Sample(m, "arbiter_analysis_queue_wait_seconds_count"), 3);
  EXPECT_EQ(Sample(m, "arbiter_analysis_workers{state=\"idle\"}"), 2);
  EXPECT_EQ(Sample(m, "arbiter_analysis_queue_length"), 0);
  for (const char* series :
       {"arbiter_analysis_duration_seconds_bucket{kind=\"unwinnable\",le=\"0.001\"}",
        "arbiter_analysis_duration_seconds_bucket{kind=\"perft\",le=\"+Inf\"}",
        "arbiter_analysis_verdicts_total{kind=\"mating_potential\",verdict=\"unwinnable\"}",
        "arbiter_engine_pool_restarts_total",
        "arbiter_grpc_requests_total{code=\"OK\",method=\"Unwinnable\",service=\"arbiter.v1."
        "SearchAnalysis\"}",
        "arbiter_grpc_request_duration_seconds_bucket{method=\"DeadPosition\",service=\"arbiter."
        "v1.SearchAnalysis\",le=\"0.001\"}"}) {
    EXPECT_TRUE(absl::StrContains(m, series)) << series;
  }
  if (HaveStockfish()) {
    EXPECT_EQ(Sample(m, "arbiter_engine_pool_available"), 1);
    EXPECT_EQ(Sample(m, "arbiter_engine_pool_engines{state=\"idle\"}"), 1);
    EXPECT_EQ(Sample(m, "arbiter_engine_pool_engines{state=\"busy\"}"), 0);
    EXPECT_EQ(Sample(m, "arbiter_engine_pool_engines{state=\"missing\"}"), 0);
  }

  EXPECT_EQ(r->Health("arbiter.v1.SearchAnalysis"), grpc::health::v1::HealthCheckResponse::SERVING);
}

}  // namespace
}  // namespace integration
