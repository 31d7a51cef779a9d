// The arbitration service over real gRPC on loopback, on a real redis-server started by the test
// (and on the in-memory store): two players and an arbiter play games that end each way: mate,
// stalemate, dead positions (by material after a capture, by search after a pawn move), 2023
// fivefold repetition and 75 moves, resignation, agreement, threefold and fifty-move claims
// (correct, and incorrect with the 9.5b / 9.5.2 penalties), 10.2 claims ruled draw, postponed
// (with and without extra time; the flag falls and the arbiter fixes the result) and rejected,
// Appendix D claims without an arbiter, flags fired by the server with and without mating
// material (6.9, 6.10), rapid flags under 2001 that count only on a claim (B6, B7) and both flags
// (B8), defaults (6.7). Moves after the end are refused; a player's token acts only in its game
// and colour; retries apply once; observers see moves only after the broadcast delay; the PGN of
// every finished game parses and replays by the Laws (`arbiterctl pgn check`).
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/base/sha256.h"
#include "libs/chess/pgn.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tests/integration/testing/auth_matrix.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/game_server.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;

class ArbitrationServerTest : public GameServerTest<ArbitrationServerTest> {
 protected:
  // 2023 Guidelines III apply only to games without increment (III.2.2): a 90-minute game (standard
  // play, its only period the last) that the arbiter's clock setting (6.14) puts at `ms` for
  // each player, so that a 10.2-style claim is possible from the start.
  void ReadyForQuickplay(const std::string& game, std::int64_t ms) {
    Ready(game, "5400", v1::EDITION_FIDE_2023);
    auto req = ForGame<v1::SetClocksRequest>(game);
    req.set_white_ms(ms);
    req.set_black_ms(ms);
    req.set_reason("the clocks of a quickplay finish");
    grpc::Status st = Unary(Stub().get(), &S::SetClocks, req, Token(Role::kArbiter));
    ASSERT_TRUE(st.ok()) << st.error_message();
  }
  // Plays `moves` alternately from White.
  void Play(const std::string& game, const std::vector<std::string>& moves,
            v1::GameReply* last = nullptr) {
    v1::Color side = v1::COLOR_WHITE;
    for (const std::string& m : moves) {
      grpc::Status st = Move(game, side, m, last);
      ASSERT_TRUE(st.ok()) << m << ": " << Code(st) << " " << st.error_message();
      side = side == v1::COLOR_WHITE ? v1::COLOR_BLACK : v1::COLOR_WHITE;
    }
  }
  // The PGN passes `arbiterctl pgn check`: it parses and its main line replays by the Laws.
  void ExpectPgnReplays(const std::string& game, const std::string& result) {
    const std::string pgn = Pgn(game);
    absl::StatusOr<std::vector<chess::PgnGame>> games = chess::ParsePgn(pgn);
    ASSERT_TRUE(games.ok()) << games.status() << "\n" << pgn;
    ASSERT_EQ(games->size(), 1u);
    EXPECT_TRUE(chess::ReplayGame(&(*games)[0]).ok()) << pgn;
    EXPECT_EQ((*games)[0].result, result) << pgn;
  }
  // Waits (polling GetGame) until the game has ended, up to `timeout`.
  v1::GameReply AwaitEnd(const std::string& game, absl::Duration timeout) {
    const absl::Time until = absl::Now() + timeout;
    v1::GameReply r;
    do {
      r = Get(game);
      if (r.game().status() == v1::GAME_STATUS_ENDED) return r;
      absl::SleepFor(absl::Milliseconds(50));
    } while (absl::Now() < until);
    return r;
  }

  // A creation request from `fen`.
  static v1::CreateGameRequest FenRequest(const std::string& game, const std::string& time_control,
                                          const std::string& fen,
                                          v1::Edition edition = v1::EDITION_FIDE_2023) {
    v1::CreateGameRequest req = EventGame(game, time_control, edition);
    req.set_start_fen(fen);
    return req;
  }
  grpc::Status Claim(const std::string& game, v1::Color side, v1::ClaimKind kind,
                     v1::GameReply* reply, const std::string& intended = "",
                     v1::QuickplayGround ground = v1::QUICKPLAY_GROUND_UNSPECIFIED,
                     const std::string& command_id = "") {
    auto req = ForGame<v1::ClaimRequest>(game);
    req.set_command_id(command_id);
    req.set_side(side);
    req.set_kind(kind);
    req.set_intended_move(intended);
    req.set_ground(ground);
    return Unary(Stub().get(), &S::Claim, req, PlayerToken(game, side), reply);
  }
  grpc::Status Rule(const std::string& game, v1::RulingDecision decision, v1::GameReply* reply,
                    bool add_time = false) {
    auto req = ForGame<v1::RuleRequest>(game);
    req.set_decision(decision);
    req.set_add_time(add_time);
    req.set_reason("integration test ruling");
    return Unary(Stub().get(), &S::Rule, req, Token(Role::kArbiter), reply);
  }
  // `side`'s player: resigns; answers the draw offer; signs the result (8.7).
  grpc::Status Resign(const std::string& game, v1::Color side, v1::GameReply* reply) {
    return Unary(Stub().get(), &S::Resign, ForSide<v1::ResignRequest>(game, side),
                 PlayerToken(game, side), reply);
  }
  grpc::Status RespondDraw(const std::string& game, v1::Color side, bool accept,
                           v1::GameReply* reply) {
    auto req = ForSide<v1::RespondDrawRequest>(game, side);
    req.set_accept(accept);
    return Unary(Stub().get(), &S::RespondDraw, req, PlayerToken(game, side), reply);
  }
  grpc::Status Confirm(const std::string& game, v1::Color side, v1::GameReply* reply) {
    return Unary(Stub().get(), &S::ConfirmResult, ForSide<v1::ConfirmResultRequest>(game, side),
                 PlayerToken(game, side), reply);
  }
  // Waits (polling GetGame, which records nothing) until `done` holds, up to `timeout`.
  template <typename Pred>
  v1::GameReply Await(const std::string& game, Pred done, absl::Duration timeout) {
    const absl::Time until = absl::Now() + timeout;
    v1::GameReply r;
    do {
      r = Get(game);
      if (done(r.game())) return r;
      absl::SleepFor(absl::Milliseconds(20));
    } while (absl::Now() < until);
    return r;
  }
  // The log's GameEnded event (the last one), or an empty one.
  v1::GameEnded EndedEvent(const std::string& game) {
    v1::GameEnded ended;
    for (const v1::ArbitrationEvent& e : Log(game)) {
      if (e.has_ended()) ended = e.ended();
    }
    return ended;
  }
  // The game's result and how it ended.
  // SubmitMoves: writes `moves` on one stream opened with `token`, closes its side, and reads
  // every reply; returns the status the stream ended with.
  grpc::Status StreamMoves(const std::string& token,
                           const std::vector<v1::SubmitMoveRequest>& moves,
                           std::vector<v1::SubmitMovesReply>* replies) {
    Call call(token);
    std::unique_ptr<grpc::ClientReaderWriter<v1::SubmitMoveRequest, v1::SubmitMovesReply>> stream =
        Stub()->SubmitMoves(&call);
    for (const v1::SubmitMoveRequest& m : moves) {
      if (!stream->Write(m)) break;  // the stream ended (refused): Finish says why
    }
    stream->WritesDone();
    v1::SubmitMovesReply reply;
    while (stream->Read(&reply)) replies->push_back(reply);
    return stream->Finish();
  }
  static v1::SubmitMoveRequest MoveRequest(const std::string& game, v1::Color side,
                                           const std::string& move,
                                           const std::string& command_id = "") {
    auto req = ForGame<v1::SubmitMoveRequest>(game);
    req.set_side(side);
    req.set_move(move);
    req.set_command_id(command_id);
    return req;
  }
  static void ExpectOutcome(const v1::GameReply& r, v1::Result result,
                            v1::Termination termination) {
    EXPECT_EQ(r.game().outcome().result(), result);
    EXPECT_EQ(r.game().outcome().termination(), termination);
  }
  // The game has ended so.
  static void ExpectEnded(const v1::GameReply& r, v1::Result result, v1::Termination termination) {
    EXPECT_EQ(r.game().status(), v1::GAME_STATUS_ENDED);
    ExpectOutcome(r, result, termination);
  }
  // No move after the end.
  void ExpectNoMoreMoves(const std::string& game, v1::Color side, const std::string& move) {
    grpc::Status st = Move(game, side, move);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << st.error_message();
    EXPECT_EQ(Code(st), "ERR_GAME_OVER");
  }
};

TEST_P(ArbitrationServerTest, FoolsMate) {
  const std::string game = GameId("g");
  v1::GameReply created;
  grpc::Status st = Create(EventGame(game, "5400"), &created);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(created.game().version(), 1);
  EXPECT_EQ(created.game().status(), v1::GAME_STATUS_CREATED);
  EXPECT_EQ(created.game().ruleset().game_type(), v1::GAME_TYPE_STANDARD);
  ASSERT_TRUE(Start(game).ok());
  v1::GameReply last;
  Play(game, {"f3", "e5", "g4", "Qh4#"}, &last);
  ExpectEnded(last, v1::RESULT_BLACK_WINS, v1::TERMINATION_CHECKMATE);
  EXPECT_EQ(last.game().black_points(), 1.0);
  EXPECT_EQ(last.game().deadline_ms(), 0);
  EXPECT_EQ(last.game().moves_san_size(), 4);
  // No move after the end (5.1a).
  st = Move(game, v1::COLOR_WHITE, "a3");
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_GAME_OVER");
  ExpectPgnReplays(game, "0-1");
}

TEST_P(ArbitrationServerTest, ResignationAndConfirmation) {
  const std::string game = GameId("g");
  Ready(game, "5400");
  Play(game, {"e4", "e5"});
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Resign(game, v1::COLOR_BLACK, &resp)));
  ExpectOutcome(resp, v1::RESULT_WHITE_WINS, v1::TERMINATION_RESIGNATION);
  // 8.7: the players sign.
  for (v1::Color side : {v1::COLOR_WHITE, v1::COLOR_BLACK}) {
    ASSERT_TRUE(Succeeded(Confirm(game, side, &resp)));
  }
  EXPECT_TRUE(resp.game().white_confirmed());
  EXPECT_TRUE(resp.game().black_confirmed());
  ExpectPgnReplays(game, "1-0");
}

TEST_P(ArbitrationServerTest, DrawByAgreement) {
  const std::string game = GameId("g");
  Ready(game, "5400");
  v1::GameReply resp;
  ASSERT_TRUE(Move(game, v1::COLOR_WHITE, "d4", &resp, /*offer_draw=*/true).ok());
  EXPECT_EQ(resp.game().draw_offer(), v1::COLOR_WHITE);
  ASSERT_TRUE(Succeeded(RespondDraw(game, v1::COLOR_BLACK, /*accept=*/true, &resp)));
  ExpectOutcome(resp, v1::RESULT_DRAW, v1::TERMINATION_AGREEMENT);
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, ThreefoldClaimCorrect) {
  const std::string game = GameId("g");
  Ready(game, "5400");
  Play(game, {"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"});
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_THREEFOLD, &resp)));
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_CORRECT);
  ExpectOutcome(resp, v1::RESULT_DRAW, v1::TERMINATION_THREEFOLD_REPETITION);
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, ThreefoldClaimIncorrectCostsTwoMinutes) {
  const std::string game = GameId("g");
  Ready(game, "5400");
  Play(game, {"Nf3", "Nf6"});
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_THREEFOLD, &resp, "Ng1")));
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ONGOING);
  // 2023 9.5.2: the opponent gets two minutes, and the intended move is played.
  EXPECT_GT(resp.game().black_ms(), 5'400'000 + 120'000 - 10'000);
  EXPECT_LE(resp.game().black_ms(), 5'400'000 + 120'000);
  ASSERT_EQ(resp.game().moves_san_size(), 3);
  EXPECT_EQ(resp.game().moves_san(2), "Ng1");
  EXPECT_EQ(resp.game().to_move(), v1::COLOR_BLACK);
}

TEST_P(ArbitrationServerTest, QuickplayClaimRuledByTheArbiter) {
  const std::string game = GameId("g");
  // A minute each in the only (last) period of a 2023 game without increment: 10.2 applies with
  // an arbiter present.
  ReadyForQuickplay(game, 60'000);
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &resp)));
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_PENDING);
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_AWAITING_RULING);
  EXPECT_TRUE(resp.game().has_pending_claim());
  // Play waits for the ruling.
  grpc::Status st = Move(game, v1::COLOR_WHITE, "e4");
  EXPECT_EQ(Code(st), "ERR_AWAITING_RULING");
  // A player cannot rule.
  auto rule = ForGame<v1::RuleRequest>(game);
  rule.set_decision(v1::RULING_DECISION_DRAW);
  rule.set_reason("White cannot be beaten by normal means");
  st = Unary(Stub().get(), &S::Rule, rule, PlayerToken(game, v1::COLOR_WHITE), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::Rule, rule, Token(Role::kArbiter), &resp)));
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ENDED);
  EXPECT_EQ(resp.game().outcome().result(), v1::RESULT_DRAW);
  // The arbiter's decision is recorded with who made it.
  Call call(Token(Role::kArbiter), absl::Milliseconds(2000));
  auto reader = Stub()->WatchGame(&call, ForGame<v1::WatchGameRequest>(game));
  v1::GameUpdate update;
  bool ruled = false;
  while (reader->Read(&update)) {
    if (update.event().has_ruled()) {
      ruled = true;
      EXPECT_EQ(update.event().actor().role(), "arbiter");
      EXPECT_EQ(update.event().actor().subject(), "arbiter");
      break;
    }
  }
  call.TryCancel();
  EXPECT_TRUE(ruled);
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, FlagFallsByItself) {
  const std::string game = GameId("g");
  // One second sudden death; 2023: the flag counts when it falls (the arbiter calls it).
  Ready(game, "1");
  const v1::GameReply r = AwaitEnd(game, absl::Seconds(5));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_ENDED);
  ExpectOutcome(r, v1::RESULT_BLACK_WINS, v1::TERMINATION_TIME_FORFEIT);
  EXPECT_EQ(r.game().white_ms(), 0);
  // A move after the fall is refused.
  grpc::Status st = Move(game, v1::COLOR_WHITE, "e4");
  EXPECT_EQ(Code(st), "ERR_GAME_OVER");
}

TEST_P(ArbitrationServerTest, DefaultWhenAbsent) {
  const std::string game = GameId("g");
  v1::CreateGameRequest req = EventGame(game, "5400");
  req.mutable_ruleset()->mutable_regulations()->set_default_time_ms(1000);  // 6.7
  ASSERT_TRUE(Create(req).ok());
  ASSERT_TRUE(Start(game, {v1::COLOR_BLACK}).ok());
  const v1::GameReply r = AwaitEnd(game, absl::Seconds(5));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_ENDED);
  ExpectOutcome(r, v1::RESULT_WHITE_WINS, v1::TERMINATION_DEFAULT);
}

// 6.13a over gRPC: only an arbiter stops the clocks; while they stand a move is refused with
// ERR_GAME_PAUSED; the view says paused; the arbiter restarts them and play goes on.
TEST_P(ArbitrationServerTest, OnlyTheArbiterPausesAndResumes) {
  const std::string game = GameId("g");
  Ready(game, "5400");
  v1::PauseGameRequest pause;
  pause.set_game_id(game);
  pause.set_command_id("pause-1");
  pause.set_reason("fire alarm");
  v1::GameReply resp;
  grpc::Status st =
      Unary(Stub().get(), &S::PauseGame, pause, PlayerToken(game, v1::COLOR_WHITE), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::PauseGame, pause, Token(Role::kArbiter), &resp)));
  EXPECT_TRUE(resp.game().paused());
  EXPECT_EQ(resp.game().clock_running(), v1::COLOR_UNSPECIFIED);
  // The retry with the same command id is answered from the record, not paused twice.
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::PauseGame, pause, Token(Role::kArbiter), &resp)));
  EXPECT_TRUE(resp.replayed());
  auto move = ForSide<v1::SubmitMoveRequest>(game, v1::COLOR_WHITE);
  move.set_move("e4");
  st = Unary(Stub().get(), &S::SubmitMove, move, PlayerToken(game, v1::COLOR_WHITE), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_GAME_PAUSED");
  v1::ResumeGameRequest resume;
  resume.set_game_id(game);
  resume.set_command_id("resume-1");
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::ResumeGame, resume, Token(Role::kArbiter), &resp)));
  EXPECT_FALSE(resp.game().paused());
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::SubmitMove, move, PlayerToken(game, v1::COLOR_WHITE), &resp)));
  EXPECT_EQ(resp.game().moves_san_size(), 1);
}

TEST_P(ArbitrationServerTest, PlayersActOnlyInTheirGameAndColour) {
  const std::string game = GameId("g");
  const std::string other = GameId("other");
  Ready(game, "5400");
  Ready(other, "5400");
  auto req = ForSide<v1::SubmitMoveRequest>(game, v1::COLOR_WHITE);
  req.set_move("e4");
  v1::GameReply resp;
  auto submit = [&](const std::string& token) {
    return Unary(Stub().get(), &S::SubmitMove, req, token, &resp);
  };
  grpc::Status st = submit(PlayerToken(game, v1::COLOR_BLACK));  // Black's token for White
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Code(st), "ERR_PERMISSION_DENIED");
  // White's token of another game; an observer.
  EXPECT_EQ(submit(PlayerToken(other, v1::COLOR_WHITE)).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(submit(Token(Role::kObserver)).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(submit("").error_code(), grpc::StatusCode::UNAUTHENTICATED);  // no token
  // A player may not create games.
  st = Unary(Stub().get(), &S::CreateGame, EventGame(GameId("mine"), "5400"),
             PlayerToken(game, v1::COLOR_WHITE), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // Nothing changed; White's own token moves, with the side left to the token.
  EXPECT_EQ(Get(game).game().moves_san_size(), 0);
  req.clear_side();
  ASSERT_TRUE(Succeeded(submit(PlayerToken(game, v1::COLOR_WHITE))));
  EXPECT_EQ(resp.game().moves_san_size(), 1);
}

// A player's token for an event (no game, no colour) acts in each game of the event that names
// its subject, for that colour only; the per-game token keeps working beside it.
TEST_P(ArbitrationServerTest, EventTokensActForTheColourTheGameNamesTheirHolder) {
  const std::string game = GameId("g");
  Ready(game, "5400");  // alice (White) v bob (Black) at "Integration"
  auto person = [](const std::string& subject, const std::string& event = "Integration") {
    service::TokenClaims c = Claims(Role::kPlayer);
    c.subject = subject;
    c.game_id.clear();
    c.color.reset();
    c.event = event;
    return Sign(c);
  };
  auto submit = [&](const std::string& token, const std::string& move,
                    v1::Color side = v1::COLOR_UNSPECIFIED) {
    auto req = ForSide<v1::SubmitMoveRequest>(game, side);
    req.set_move(move);
    v1::GameReply resp;
    return Unary(Stub().get(), &S::SubmitMove, req, token, &resp);
  };
  // Bob may not move for White; carol plays in neither colour; alice's token of another event.
  grpc::Status st = submit(person("bob"), "e4", v1::COLOR_WHITE);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Code(st), "ERR_PERMISSION_DENIED");
  st = submit(person("carol"), "e4");
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Code(st), "ERR_NOT_YOUR_GAME");
  st = submit(person("alice", "Other"), "e4");
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  v1::GameReply after;
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(game),
                              person("alice"), &after)));
  EXPECT_EQ(after.game().moves_san_size(), 0);  // nothing changed
  st = Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(game), person("carol"));
  EXPECT_EQ(Code(st), "ERR_NOT_YOUR_GAME");

  // Alice moves as White with the side left to the game, Bob as Black.
  ASSERT_TRUE(Succeeded(submit(person("alice"), "e4")));
  ASSERT_TRUE(Succeeded(submit(person("bob"), "e5")));
  // The old per-game token still moves.
  ASSERT_TRUE(Succeeded(submit(PlayerToken(game, v1::COLOR_WHITE), "Nf3")));
  EXPECT_EQ(Get(game).game().moves_san_size(), 3);
  // A watch by the person's token is his game's.
  Call call(person("bob"), absl::Milliseconds(5000));
  auto reader = Stub()->WatchGame(&call, ForGame<v1::WatchGameRequest>(game));
  v1::GameUpdate update;
  ASSERT_TRUE(reader->Read(&update));
  EXPECT_EQ(update.version(), 1);
  call.TryCancel();
  // 5.1b: Bob resigns with his event token; the game is White's.
  auto resign = ForSide<v1::ResignRequest>(game, v1::COLOR_UNSPECIFIED);
  EXPECT_EQ(Code(Unary(Stub().get(), &S::Resign, resign, person("carol"))), "ERR_NOT_YOUR_GAME");
  v1::GameReply resigned;
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::Resign, resign, person("bob"), &resigned)));
  EXPECT_EQ(resigned.game().outcome().winner(), v1::COLOR_WHITE);
}

TEST_P(ArbitrationServerTest, RetriedCommandAppliesOnce) {
  const std::string game = GameId("g");
  Ready(game, "5400");
  v1::GameReply first, again;
  ASSERT_TRUE(Move(game, v1::COLOR_WHITE, "e4", &first, false, "cmd-1").ok());
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "e4", &again, false, "cmd-1")));
  EXPECT_FALSE(first.replayed());
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(again.game().version(), first.game().version());
  EXPECT_EQ(Get(game).game().moves_san_size(), 1);
  // The same id for another request.
  grpc::Status st = Move(game, v1::COLOR_WHITE, "d4", nullptr, false, "cmd-1");
  EXPECT_EQ(Code(st), "ERR_COMMAND_ID_REUSED");
}

// A game that is over leaves the live store once the platform has its record; its
// tombstone (result, digest of the record) stays, and so does its id.
TEST_P(ArbitrationServerTest, ArchiveGameKeepsOnlyTheTombstone) {
  const std::string game = GameId("archived");
  Ready(game, "5400");
  ASSERT_TRUE(Move(game, v1::COLOR_WHITE, "e4").ok());
  auto archive = [&](const std::string& id, v1::ArchiveGameReply* reply) {
    return Unary(Stub().get(), &S::ArchiveGame, ForGame<v1::ArchiveGameRequest>(id),
                 Token(Role::kPlatform), reply);
  };
  // In play: its log is still needed.
  grpc::Status st = archive(game, nullptr);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_GAME_NOT_OVER");
  st = archive(GameId("never-created"), nullptr);
  EXPECT_EQ(Code(st), "ERR_GAME_NOT_FOUND");

  ASSERT_TRUE(Resign(game, v1::COLOR_BLACK, nullptr).ok());  // 5.1b: 1-0
  const std::string record = Pgn(game);                      // as the arbiter reads it
  const std::int64_t version = Get(game).game().version();
  const std::string sha256 = base::Sha256Hex(record);

  v1::ArchiveGameReply first;
  ASSERT_TRUE(Succeeded(archive(game, &first)));
  EXPECT_FALSE(first.replayed());
  EXPECT_EQ(first.archived().game_id(), game);
  EXPECT_EQ(first.archived().result(), "1-0");
  EXPECT_EQ(first.archived().termination(), v1::TERMINATION_RESIGNATION);
  EXPECT_EQ(first.archived().article(), "5.1b");
  EXPECT_EQ(first.archived().version(), version);
  EXPECT_EQ(first.archived().record_sha256(), sha256);
  EXPECT_EQ(first.archived().archived_by().role(), "platform");

  // Gone from the live store: every read and command says so.
  st = Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(game), Token(Role::kArbiter));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Code(st), "ERR_GAME_ARCHIVED");
  st = Unary(Stub().get(), &S::ExportPgn, ForGame<v1::ExportPgnRequest>(game),
             Token(Role::kArbiter));
  EXPECT_EQ(Code(st), "ERR_GAME_ARCHIVED");
  st = Move(game, v1::COLOR_BLACK, "e5");
  EXPECT_EQ(Code(st), "ERR_GAME_ARCHIVED");
  // Its id stays taken.
  st = Create(EventGame(game, "5400"));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  // Archiving it again answers the same tombstone.
  v1::ArchiveGameReply again;
  ASSERT_TRUE(Succeeded(archive(game, &again)));
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(again.archived().SerializeAsString(), first.archived().SerializeAsString());
}

TEST_P(ArbitrationServerTest, ErrorsAreStable) {
  grpc::Status st = Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(GameId("nope")),
                          Token(Role::kArbiter));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Code(st), "ERR_GAME_NOT_FOUND");
  const std::string game = GameId("g");
  Ready(game, "5400");
  st = Move(game, v1::COLOR_WHITE, "e5");
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << Code(st);
  st = Move(game, v1::COLOR_WHITE, std::string(1000, 'e'));
  EXPECT_EQ(Code(st), "ERR_BAD_ARGUMENT");
  st = Move(game, v1::COLOR_BLACK, "e5");
  EXPECT_EQ(Code(st), "ERR_NOT_YOUR_TURN");
  {
    v1::CreateGameRequest again = EventGame(game, "5400");
    st = Create(again);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  }
  {
    v1::CreateGameRequest bad = EventGame(GameId("bad"), "not a time control");
    st = Create(bad);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  {
    auto req = ForSide<v1::SubmitMoveRequest>(game, v1::COLOR_WHITE);
    req.set_move("e4");
    req.set_expected_version(1);
    st = Unary(Stub().get(), &S::SubmitMove, req, PlayerToken(game, v1::COLOR_WHITE));
    EXPECT_EQ(st.error_code(), grpc::StatusCode::ABORTED);
    EXPECT_EQ(Code(st), "ERR_VERSION_CONFLICT");
  }
  EXPECT_EQ(Get(game).game().moves_san_size(), 0);
}

TEST_P(ArbitrationServerTest, ObserversSeeMovesAfterTheDelay) {
  const std::string game = GameId("plies");
  v1::CreateGameRequest req = EventGame(game, "5400");
  req.set_broadcast_delay_plies(2);
  ASSERT_TRUE(Create(req).ok());
  ASSERT_TRUE(Start(game).ok());
  Play(game, {"e4", "e5", "Nf3", "Nc6"});
  EXPECT_EQ(Get(game, Role::kArbiter).game().moves_san_size(), 4);
  v1::GameReply seen = Get(game, Role::kObserver);
  ASSERT_EQ(seen.game().moves_san_size(), 2);
  EXPECT_EQ(seen.game().moves_san(1), "e5");
  EXPECT_FALSE(absl::StrContains(Pgn(game, Role::kObserver), "Nf3"));
  EXPECT_TRUE(absl::StrContains(Pgn(game, Role::kArbiter), "Nf3"));

  // By time: a move is seen 1.5 s after it was made, on GetGame and on the watch.
  const std::string timed = GameId("ms");
  req = EventGame(timed, "5400");
  req.set_broadcast_delay_ms(1500);
  ASSERT_TRUE(Create(req).ok());
  ASSERT_TRUE(Start(timed).ok());
  Call call(Token(Role::kObserver), absl::Milliseconds(10'000));
  auto reader = Stub()->WatchGame(&call, ForGame<v1::WatchGameRequest>(timed));
  const absl::Time moved = absl::Now();
  Play(timed, {"d4"});
  EXPECT_EQ(Get(timed, Role::kObserver).game().moves_san_size(), 0);
  v1::GameUpdate update;
  bool saw_move = false;
  while (reader->Read(&update)) {
    if (update.event().has_move()) {
      saw_move = true;
      EXPECT_GE(absl::Now() - moved, absl::Milliseconds(1400));
      EXPECT_EQ(update.event().move().san(), "d4");
      break;
    }
  }
  call.TryCancel();
  EXPECT_TRUE(saw_move);
  EXPECT_EQ(Get(timed, Role::kObserver).game().moves_san_size(), 1);
}

TEST_P(ArbitrationServerTest, WatchResumesFromAVersion) {
  const std::string game = GameId("g");
  Ready(game, "5400");
  Play(game, {"e4", "e5"});
  const std::int64_t head = Get(game).game().version();
  auto watch = ForGame<v1::WatchGameRequest>(game);
  watch.set_after_version(head);
  Call call(Token(Role::kPlayer, game, chess::Color::kWhite), absl::Milliseconds(5000));
  auto reader = Stub()->WatchGame(&call, watch);
  Play(game, {"Nf3"});
  v1::GameUpdate update;
  ASSERT_TRUE(reader->Read(&update));
  EXPECT_EQ(update.version(), head + 1);
  call.TryCancel();
  {
    watch.set_after_version(head + 100);
    Call bad(Token(Role::kArbiter));
    auto r = Stub()->WatchGame(&bad, watch);
    while (r->Read(&update)) {
    }
    EXPECT_EQ(r->Finish().error_code(), grpc::StatusCode::OUT_OF_RANGE);
  }
}

// --- Endings by the move (5.2a, 5.2b / 9.6, 2023 9.6.1-2) ---------------------------------------

TEST_P(ArbitrationServerTest, StalemateDraws) {  // 5.2a
  const std::string game = GameId("g");
  Ready(FenRequest(game, "5400", "7k/8/6Q1/8/8/8/8/K7 w - - 0 1"));
  v1::GameReply last;
  Play(game, {"Qf7"}, &last);
  ExpectEnded(last, v1::RESULT_DRAW, v1::TERMINATION_STALEMATE);
  EXPECT_EQ(last.game().outcome().article(), "5.2a");
  EXPECT_EQ(last.game().white_points(), 0.5);
  EXPECT_EQ(last.game().deadline_ms(), 0);
  ExpectNoMoreMoves(game, v1::COLOR_BLACK, "Kh7");
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, DeadPositionBySearchAfterAPawnMove) {  // 5.2b: locked pawns
  const std::string game = GameId("g");
  Ready(FenRequest(game, "5400", "8/2k5/8/p1p1p1p1/P1P1P3/6P1/4K3/8 w - - 0 1"));
  v1::GameReply last;
  Play(game, {"g4"}, &last);
  ExpectEnded(last, v1::RESULT_DRAW, v1::TERMINATION_DEAD_POSITION);
  EXPECT_EQ(last.game().outcome().article(), "5.2b");
  // The search's proof is kept in the record.
  EXPECT_TRUE(absl::StrContains(EndedEvent(game).proof(), "locked")) << EndedEvent(game).proof();
  ExpectNoMoreMoves(game, v1::COLOR_BLACK, "Kd6");
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, DeadPositionByMaterialAfterACapture) {  // 5.2b, 9.6
  const std::string game = GameId("g");
  Ready(FenRequest(game, "5400", "4k3/8/8/8/8/8/3nb3/4K3 w - - 0 1"));
  v1::GameReply last;
  Play(game, {"Kxe2"}, &last);
  ExpectEnded(last, v1::RESULT_DRAW, v1::TERMINATION_DEAD_POSITION);
  EXPECT_FALSE(EndedEvent(game).proof().empty());
  ExpectNoMoreMoves(game, v1::COLOR_BLACK, "Kd7");
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, FivefoldRepetitionEndsTheGameIn2023) {  // 2023 9.6.1
  const std::string game = GameId("g");
  Ready(game, "5400", v1::EDITION_FIDE_2023);
  std::vector<std::string> dance;
  for (int i = 0; i < 4; ++i) {
    for (const char* m : {"Nf3", "Nf6", "Ng1", "Ng8"}) dance.push_back(m);
  }
  dance.pop_back();
  v1::GameReply last;
  Play(game, dance, &last);  // the initial position has stood four times
  EXPECT_EQ(last.game().status(), v1::GAME_STATUS_ONGOING);
  ASSERT_TRUE(Move(game, v1::COLOR_BLACK, "Ng8", &last).ok());  // the fifth time
  ExpectEnded(last, v1::RESULT_DRAW, v1::TERMINATION_FIVEFOLD_REPETITION);
  EXPECT_EQ(last.game().outcome().article(), "9.6.1");
  ExpectNoMoreMoves(game, v1::COLOR_WHITE, "Nf3");
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, SeventyFiveMovesEndTheGameUnlessTheMoveMates) {  // 2023 9.6.2
  const std::string game = GameId("quiet");
  Ready(FenRequest(game, "5400", "4k3/8/8/8/8/8/8/R3K3 w - - 149 80"));
  v1::GameReply last;
  Play(game, {"Ra2"}, &last);
  ExpectEnded(last, v1::RESULT_DRAW, v1::TERMINATION_SEVENTY_FIVE_MOVES);
  ExpectNoMoreMoves(game, v1::COLOR_BLACK, "Kd7");
  ExpectPgnReplays(game, "1/2-1/2");
  // Mate on the 75th move takes precedence.
  const std::string mate = GameId("mate");
  Ready(FenRequest(mate, "5400", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 80"));
  Play(mate, {"Ra8"}, &last);
  ExpectOutcome(last, v1::RESULT_WHITE_WINS, v1::TERMINATION_CHECKMATE);
  ExpectPgnReplays(mate, "1-0");
}

// --- 9.3, 9.5: draw claims and their penalties ---------------------------------------------------

TEST_P(ArbitrationServerTest, FiftyMoveClaimCorrect) {  // 9.3b, and 9.3a with the intended move
  const std::string game = GameId("now");
  Ready(FenRequest(game, "5400", "4k3/8/8/8/8/8/8/R3K3 w - - 100 80"));
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_FIFTY, &resp)));
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_CORRECT);
  ExpectEnded(resp, v1::RESULT_DRAW, v1::TERMINATION_FIFTY_MOVES);
  EXPECT_EQ(resp.game().outcome().article(), "9.3b");
  ExpectNoMoreMoves(game, v1::COLOR_WHITE, "Ra2");
  ExpectPgnReplays(game, "1/2-1/2");

  // Black, on move at 99 half-moves, claims with the move that makes the fiftieth (9.3a).
  const std::string by_move = GameId("by-move");
  Ready(FenRequest(by_move, "5400", "4k3/8/8/8/8/8/8/R3K3 b - - 99 80"));
  ASSERT_TRUE(Succeeded(Claim(by_move, v1::COLOR_BLACK, v1::CLAIM_KIND_FIFTY, &resp, "Kd7")));
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_EQ(resp.game().outcome().termination(), v1::TERMINATION_FIFTY_MOVES);
  EXPECT_EQ(resp.game().outcome().article(), "9.3a");
  ExpectPgnReplays(by_move, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, FiftyMoveClaimIncorrect2001Penalty) {  // 9.3, 9.5b (2001)
  const std::string game = GameId("g");
  Ready(FenRequest(game, "5400", "4k3/8/8/8/8/8/8/R3K3 w - - 60 80", v1::EDITION_FIDE_2001));
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_FIFTY, &resp, "Ra2")));
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ONGOING);
  // 9.5b (2001): the opponent +3 min; the claimant (90 min left) loses 3 min.
  EXPECT_GT(resp.game().white_ms(), 5'400'000 - 180'000 - 10'000);
  EXPECT_LE(resp.game().white_ms(), 5'400'000 - 180'000);
  EXPECT_GT(resp.game().black_ms(), 5'400'000 + 180'000 - 10'000);
  EXPECT_LE(resp.game().black_ms(), 5'400'000 + 180'000);
  // The declared move was played; 9.1c: the claim stands as a draw offer.
  ASSERT_EQ(resp.game().moves_san_size(), 1);
  EXPECT_EQ(resp.game().moves_san(0), "Ra2");
  EXPECT_EQ(resp.game().to_move(), v1::COLOR_BLACK);
  EXPECT_EQ(resp.game().draw_offer(), v1::COLOR_WHITE);
  // The game goes on to an end; the record replays.
  ASSERT_TRUE(Resign(game, v1::COLOR_BLACK, &resp).ok());
  EXPECT_EQ(resp.game().outcome().result(), v1::RESULT_WHITE_WINS);
  ExpectPgnReplays(game, "1-0");
}

TEST_P(ArbitrationServerTest, IncorrectClaimPenaltyBands2001) {  // 9.5b (2001)
  v1::GameReply resp;
  {  // The claimant has between one and two minutes: set to one minute.
    const std::string game = GameId("90s");
    Ready(game, "90", v1::EDITION_FIDE_2001);
    ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_THREEFOLD, &resp, "Nf3")));
    EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_INCORRECT);
    EXPECT_EQ(resp.game().white_ms(), 60'000);
    EXPECT_GT(resp.game().black_ms(), 90'000 + 180'000 - 5'000);
    EXPECT_LE(resp.game().black_ms(), 90'000 + 180'000);
    EXPECT_EQ(resp.game().moves_san(0), "Nf3");
  }
  {  // Under one minute: unchanged.
    const std::string game = GameId("50s");
    Ready(game, "50", v1::EDITION_FIDE_2001);
    ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_FIFTY, &resp)));
    EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_INCORRECT);
    EXPECT_GT(resp.game().white_ms(), 45'000);
    EXPECT_LE(resp.game().white_ms(), 50'000);
    EXPECT_EQ(resp.game().black_ms(), 50'000 + 180'000);
    EXPECT_EQ(resp.game().to_move(), v1::COLOR_WHITE);  // no declared move
    ASSERT_TRUE(Resign(game, v1::COLOR_WHITE, &resp).ok());
    ExpectPgnReplays(game, "0-1");
  }
}

TEST_P(ArbitrationServerTest, ClaimsThatDoNotApplyAreRefusedAndChangeNothing) {
  v1::GameReply resp;
  const std::string game = GameId("standard");
  Ready(game, "5400");
  const std::int64_t version = Get(game).game().version();
  // 10.2: the claimant has more than two minutes.
  grpc::Status st = Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &resp);
  EXPECT_EQ(Code(st), "ERR_CLAIM_NOT_ALLOWED");
  // 2023: flags count when they fall; there is no time claim (B7).
  st = Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_TIME, &resp);
  EXPECT_EQ(Code(st), "ERR_CLAIM_NOT_ALLOWED");
  // 9.2 / 9.3: only the player on move claims.
  st = Claim(game, v1::COLOR_BLACK, v1::CLAIM_KIND_THREEFOLD, &resp);
  EXPECT_EQ(Code(st), "ERR_NOT_YOUR_TURN");
  st = Claim(game, v1::COLOR_BLACK, v1::CLAIM_KIND_FIFTY, &resp);
  EXPECT_EQ(Code(st), "ERR_NOT_YOUR_TURN");
  // A player's token claims only for his colour.
  {
    auto req = ForSide<v1::ClaimRequest>(game, v1::COLOR_WHITE);
    req.set_kind(v1::CLAIM_KIND_THREEFOLD);
    st = Unary(Stub().get(), &S::Claim, req, PlayerToken(game, v1::COLOR_BLACK), &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  // An intended move that is not legal: the claim is refused, not ruled.
  st = Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_THREEFOLD, &resp, "Ke2");
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << Code(st);
  // No claim awaits a ruling.
  st = Rule(game, v1::RULING_DECISION_DRAW, &resp);
  EXPECT_EQ(Code(st), "ERR_NO_PENDING_CLAIM");
  EXPECT_EQ(Get(game).game().version(), version);
  EXPECT_EQ(Get(game).game().status(), v1::GAME_STATUS_ONGOING);

  // 10.2 is the claim of the player on move (with an arbiter present).
  const std::string quick = GameId("quick");
  ReadyForQuickplay(quick, 60'000);
  st = Claim(quick, v1::COLOR_BLACK, v1::CLAIM_KIND_QUICKPLAY, &resp);
  EXPECT_EQ(Code(st), "ERR_NOT_YOUR_TURN");
  // Not in blitz (2001 C4): White has under two minutes in "G/1.5".
  const std::string blitz = GameId("blitz");
  v1::GameReply created;
  ASSERT_TRUE(Create(EventGame(blitz, "G/1.5", v1::EDITION_FIDE_2001), &created).ok());
  EXPECT_EQ(created.game().ruleset().game_type(), v1::GAME_TYPE_BLITZ);
  ASSERT_TRUE(Start(blitz).ok());
  st = Claim(blitz, v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &resp);
  EXPECT_EQ(Code(st), "ERR_CLAIM_NOT_ALLOWED");
  EXPECT_EQ(Get(blitz).game().status(), v1::GAME_STATUS_ONGOING);
}

TEST_P(ArbitrationServerTest, RetriedIncorrectClaimIsPenalisedOnce) {  // 2023 9.5.2, retries
  const std::string game = GameId("g");
  Ready(game, "5400");
  v1::GameReply first, again;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_THREEFOLD, &first, "e4",
                              v1::QUICKPLAY_GROUND_UNSPECIFIED, "claim-1")));
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_THREEFOLD, &again, "e4",
                              v1::QUICKPLAY_GROUND_UNSPECIFIED, "claim-1")));
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(again.game().version(), first.game().version());
  const v1::GameReply now = Get(game);
  EXPECT_EQ(now.game().version(), first.game().version());
  EXPECT_EQ(now.game().moves_san_size(), 1);
  EXPECT_LE(now.game().black_ms(), 5'400'000 + 120'000);
  EXPECT_GT(now.game().black_ms(), 5'400'000 + 120'000 - 10'000);
}

TEST_P(ArbitrationServerTest, IncorrectClaimWhoseIntendedMoveMates) {  // 9.5b, then 5.1a
  const std::string game = GameId("g");
  Ready(FenRequest(game, "5400", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", v1::EDITION_FIDE_2001));
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_THREEFOLD, &resp, "Ra8")));
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_INCORRECT);
  // The penalty, then the declared move is played: it mates.
  ExpectEnded(resp, v1::RESULT_WHITE_WINS, v1::TERMINATION_CHECKMATE);
  EXPECT_EQ(resp.game().black_ms(), 5'400'000 + 180'000);
  EXPECT_EQ(resp.game().deadline_ms(), 0);
  ExpectNoMoreMoves(game, v1::COLOR_BLACK, "h6");
  ExpectPgnReplays(game, "1-0");
}

// --- 10.2 and Appendix D: quickplay finish ----------------------------------------------------

// 12.2: the players and observers never see the advice on a pending 10.2 claim.
TEST_P(ArbitrationServerTest, QuickplayAdviceIsNotShownToPlayersOrObservers) {
  const std::string game = GameId("g");
  ReadyForQuickplay(game, 60'000);
  v1::GameReply resp;
  ASSERT_TRUE(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &resp).ok());
  EXPECT_TRUE(resp.game().pending_claim().advice().empty());
  EXPECT_TRUE(Get(game, Role::kPlayer).game().pending_claim().advice().empty());
  EXPECT_TRUE(Get(game, Role::kObserver).game().pending_claim().advice().empty());
  EXPECT_FALSE(absl::StrContains(Pgn(game, Role::kObserver), "advice"));
}

// 10.2: a claim awaits the ruling with the search analysis's advice attached (labelled as
// advice; arbiters only, 12.2): the arbiter sees it, and in the PGN.
TEST_P(ArbitrationServerTest, QuickplayClaimCarriesAdviceForTheArbiter) {
  const std::string game = GameId("g");
  ReadyForQuickplay(game, 60'000);
  v1::GameReply resp;
  ASSERT_TRUE(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &resp).ok());
  const v1::GameReply seen = Get(game, Role::kArbiter);
  EXPECT_EQ(seen.game().status(), v1::GAME_STATUS_AWAITING_RULING);
  EXPECT_FALSE(seen.game().pending_claim().advice().empty());
  EXPECT_TRUE(absl::StrContains(seen.game().pending_claim().advice(), "advice"));
  // The engine's evaluation (Stockfish, started at the first claim) beside the proof.
  EXPECT_TRUE(absl::StrContains(seen.game().pending_claim().advice(), "engine evaluation for"))
      << seen.game().pending_claim().advice();
  // The PGN wraps its movetext at 80 columns: compare with the line breaks as spaces.
  EXPECT_TRUE(absl::StrContains(absl::StrReplaceAll(Pgn(game, Role::kArbiter), {{"\n", " "}}),
                                "advice for the arbiter"));
}

// Two seconds each in the only (last) period of a 2023 game without increment: 10.2 applies,
// and White's flag falls two seconds into play.
TEST_P(ArbitrationServerTest, QuickplayPostponedWithTimeThenFlagArbiterRulesDraw) {  // 10.2b
  const std::string game = GameId("g");
  ReadyForQuickplay(game, 2'000);
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &resp)));
  ASSERT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_PENDING);
  ASSERT_TRUE(Succeeded(Rule(game, v1::RULING_DECISION_POSTPONE, &resp, /*add_time=*/true)));
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ONGOING);
  // 10.2b: the opponent got two minutes; White's clock runs again.
  EXPECT_EQ(resp.game().black_ms(), 2'000 + 120'000);
  EXPECT_EQ(resp.game().clock_running(), v1::COLOR_WHITE);
  EXPECT_GT(resp.game().deadline_ms(), 0);
  // White's flag falls (the server records it by itself): the arbiter fixes the result.
  v1::GameReply r = Await(
      game, [](const v1::GameView& g) { return g.status() != v1::GAME_STATUS_ONGOING; },
      absl::Seconds(6));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_AWAITING_RULING);
  EXPECT_EQ(r.game().white_ms(), 0);
  grpc::Status st = Move(game, v1::COLOR_WHITE, "e4");
  EXPECT_EQ(Code(st), "ERR_AWAITING_RULING");
  st = Rule(game, v1::RULING_DECISION_POSTPONE, &resp);
  EXPECT_EQ(Code(st), "ERR_BAD_RULING");
  ASSERT_TRUE(Succeeded(Rule(game, v1::RULING_DECISION_DRAW, &resp)));
  ExpectEnded(resp, v1::RESULT_DRAW, v1::TERMINATION_QUICKPLAY_FINISH_CLAIM);
  EXPECT_EQ(resp.game().outcome().article(), "10.2b");
  ExpectNoMoreMoves(game, v1::COLOR_WHITE, "e4");
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, QuickplayPostponedWithoutTimeThenFlagArbiterRejects) {  // 10.2b
  const std::string game = GameId("g");
  ReadyForQuickplay(game, 2'000);
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &resp)));
  ASSERT_TRUE(Succeeded(Rule(game, v1::RULING_DECISION_POSTPONE, &resp, /*add_time=*/false)));
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ONGOING);
  EXPECT_EQ(resp.game().black_ms(), 2'000);  // no time added
  v1::GameReply r = Await(
      game, [](const v1::GameView& g) { return g.status() != v1::GAME_STATUS_ONGOING; },
      absl::Seconds(6));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_AWAITING_RULING);
  // The arbiter rejects the claim: the flag decides (6.10), Black can mate.
  ASSERT_TRUE(Succeeded(Rule(game, v1::RULING_DECISION_REJECT, &resp)));
  ExpectEnded(resp, v1::RESULT_BLACK_WINS, v1::TERMINATION_TIME_FORFEIT);
  ExpectNoMoreMoves(game, v1::COLOR_WHITE, "e4");
  ExpectPgnReplays(game, "0-1");
}

TEST_P(ArbitrationServerTest, QuickplayRejectedGivesTheOpponentTwoMinutes) {  // 10.2c
  const std::string game = GameId("g");
  ReadyForQuickplay(game, 60'000);
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &resp)));
  EXPECT_EQ(resp.game().clock_running(), v1::COLOR_UNSPECIFIED);  // the clocks stopped
  EXPECT_EQ(resp.game().deadline_ms(), 0);                        // no flag can fall
  ASSERT_TRUE(Succeeded(Rule(game, v1::RULING_DECISION_REJECT, &resp)));
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ONGOING);
  EXPECT_EQ(resp.game().black_ms(), 60'000 + 120'000);
  EXPECT_GT(resp.game().white_ms(), 50'000);
  EXPECT_LE(resp.game().white_ms(), 60'000);
  EXPECT_EQ(resp.game().to_move(), v1::COLOR_WHITE);
  EXPECT_EQ(resp.game().clock_running(), v1::COLOR_WHITE);
  // Play goes on.
  Play(game, {"e4"}, &resp);
  EXPECT_EQ(resp.game().moves_san_size(), 1);
  ASSERT_TRUE(Resign(game, v1::COLOR_WHITE, &resp).ok());
  ExpectPgnReplays(game, "0-1");
}

// Appendix D (no arbiter present): the claim ends the game; an arbiter decides the result later.
TEST_P(ArbitrationServerTest, AppendixDClaimEndsPlayAndTheArbiterDecides) {  // D1
  for (const bool draw : {true, false}) {
    SCOPED_TRACE(draw ? "draw" : "reject");
    const std::string game = GameId(draw ? "draw" : "reject");
    // 2023, 90 minutes without increment (Guidelines III.2.2), the clocks set to 30 s each
    // (6.14): White has under two minutes in the only (last) period.
    v1::CreateGameRequest req = EventGame(game, "5400");
    req.mutable_ruleset()->mutable_regulations()->set_arbiter_present(false);
    Ready(req);
    auto clocks = ForGame<v1::SetClocksRequest>(game);
    clocks.set_white_ms(30'000);
    clocks.set_black_ms(30'000);
    clocks.set_reason("the clocks of a quickplay finish");
    ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::SetClocks, clocks, Token(Role::kArbiter))));
    Play(game, {"e4"});
    v1::GameReply resp;
    // D1 asks no turn: White claims with Black on move.
    ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &resp, "",
                                v1::QUICKPLAY_GROUND_CANNOT_WIN)));
    EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_PENDING);
    EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_AWAITING_RULING);
    EXPECT_EQ(resp.game().pending_claim().article(), "D1");
    EXPECT_EQ(resp.game().pending_claim().final_fen(), resp.game().fen());
    EXPECT_EQ(resp.game().clock_running(), v1::COLOR_UNSPECIFIED);
    grpc::Status st = Move(game, v1::COLOR_BLACK, "e5");
    EXPECT_EQ(Code(st), "ERR_AWAITING_RULING");
    st = Rule(game, v1::RULING_DECISION_POSTPONE, &resp);
    EXPECT_EQ(Code(st), "ERR_BAD_RULING");
    ASSERT_TRUE(
        Succeeded(Rule(game, draw ? v1::RULING_DECISION_DRAW : v1::RULING_DECISION_REJECT, &resp)));
    EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ENDED);
    EXPECT_EQ(resp.game().outcome().article(), "D1");
    if (draw) {
      ExpectOutcome(resp, v1::RESULT_DRAW, v1::TERMINATION_QUICKPLAY_FINISH_CLAIM);
    } else {
      ExpectOutcome(resp, v1::RESULT_BLACK_WINS, v1::TERMINATION_ARBITER_DECISION);
    }
    ExpectNoMoreMoves(game, v1::COLOR_BLACK, "e5");
    ExpectPgnReplays(game, draw ? "1/2-1/2" : "0-1");
  }
}

// --- Flags and defaults fired by the server (6.7, 6.9, 6.10, B6-B8) -----------------------------

TEST_P(ArbitrationServerTest, FlagAgainstALoneKingDraws) {  // 6.10
  const std::string game = GameId("g");
  // One second sudden death under 2023 (the flag counts when it falls); Black has a bare king.
  Ready(FenRequest(game, "1", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"));
  const v1::GameReply r = AwaitEnd(game, absl::Seconds(5));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_ENDED);
  ExpectOutcome(r, v1::RESULT_DRAW, v1::TERMINATION_TIMEOUT_VS_INSUFFICIENT);
  EXPECT_EQ(r.game().white_ms(), 0);
  EXPECT_FALSE(r.game().review());
  const std::vector<v1::ArbitrationEvent> log = Log(game);
  ASSERT_FALSE(log.empty());
  EXPECT_TRUE(log.back().has_ended());
  EXPECT_EQ(log.back().actor().role(), "server");
  EXPECT_FALSE(log.back().ended().proof().empty());
  EXPECT_EQ(std::count_if(log.begin(), log.end(),
                          [](const v1::ArbitrationEvent& e) { return e.has_flag(); }),
            1);
  // Recorded once: the timers append nothing more.
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(Get(game).game().version(), r.game().version());
  ExpectNoMoreMoves(game, v1::COLOR_WHITE, "Qd7");
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, FlagLosesWhenTheOpponentCanMate) {  // 6.9, 6.10
  const std::string game = GameId("g");
  // "G/0.02": 1.2 seconds. The position of FlagAgainstALoneKingDraws, but Black's flag falls:
  // White's queen mates.
  Ready(FenRequest(game, "G/0.02", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"));
  v1::GameReply moved;
  Play(game, {"Qd2"}, &moved);
  EXPECT_EQ(moved.game().clock_running(), v1::COLOR_BLACK);
  const v1::GameReply r = AwaitEnd(game, absl::Seconds(7));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_ENDED);
  ExpectOutcome(r, v1::RESULT_WHITE_WINS, v1::TERMINATION_TIME_FORFEIT);
  EXPECT_EQ(r.game().black_ms(), 0);
  EXPECT_FALSE(r.game().review());
  ExpectNoMoreMoves(game, v1::COLOR_BLACK, "Ke7");
  ExpectPgnReplays(game, "1-0");
}

// "40/1:900" under 2001: 901 s for all moves, rapid (B1), and each side's first period is one
// second: a flag falls at once. B6: the fallen flag is recorded and counts only on a claim (B7).
TEST_P(ArbitrationServerTest, RapidFlagCountsOnlyOnTheOpponentsClaim2001) {  // B6, B7
  const std::string game = GameId("g");
  v1::GameReply created;
  ASSERT_TRUE(Create(EventGame(game, "40/1:900", v1::EDITION_FIDE_2001), &created).ok());
  EXPECT_EQ(created.game().ruleset().game_type(), v1::GAME_TYPE_RAPID);
  ASSERT_TRUE(Start(game).ok());
  v1::GameReply resp;
  // B7: no flag has fallen; the claim is incorrect and the game goes on.
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_BLACK, v1::CLAIM_KIND_TIME, &resp)));
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ONGOING);
  Play(game, {"e4"}, &resp);
  const std::int64_t version = resp.game().version();
  // Black's flag falls; the server records it without ending the game.
  v1::GameReply r = Await(
      game, [&](const v1::GameView& g) { return g.version() > version; }, absl::Seconds(5));
  ASSERT_GT(r.game().version(), version);
  EXPECT_EQ(r.game().status(), v1::GAME_STATUS_ONGOING);
  const std::vector<v1::ArbitrationEvent> log = Log(game);
  ASSERT_TRUE(log.back().has_flag());
  EXPECT_EQ(log.back().flag().side(), v1::COLOR_BLACK);
  EXPECT_FALSE(log.back().flag().counts());
  EXPECT_EQ(log.back().flag().article(), "B6");
  EXPECT_EQ(log.back().actor().role(), "server");
  // Play goes on; then White, his own flag up, claims (B7).
  ASSERT_TRUE(Move(game, v1::COLOR_BLACK, "e5").ok());
  ASSERT_TRUE(Succeeded(Claim(game, v1::COLOR_WHITE, v1::CLAIM_KIND_TIME, &resp)));
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_CORRECT);
  ExpectEnded(resp, v1::RESULT_WHITE_WINS, v1::TERMINATION_TIME_FORFEIT);
  EXPECT_EQ(resp.game().outcome().article(), "B7");
  ExpectNoMoreMoves(game, v1::COLOR_WHITE, "Nf3");
  ExpectPgnReplays(game, "1-0");
}

// B6: both flags down and nobody has claimed, play goes on; B8: a claim that finds both down is
// drawn.
TEST_P(ArbitrationServerTest, RapidBothFlagsDownIsADrawOnAClaim2001) {  // B6, B8
  const std::string game = GameId("g");
  Ready(game, "40/1:900", v1::EDITION_FIDE_2001);
  v1::GameReply resp;
  Play(game, {"e4"}, &resp);
  const std::int64_t version = resp.game().version();
  Await(
      game, [&](const v1::GameView& g) { return g.version() > version; }, absl::Seconds(5));
  // Black moves after his flag fell (nobody claimed it); White's flag falls in turn.
  ASSERT_TRUE(Move(game, v1::COLOR_BLACK, "e5", &resp).ok());
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ONGOING);
  const std::int64_t moved = resp.game().version();
  const v1::GameReply r = Await(
      game, [&](const v1::GameView& g) { return g.version() > moved; }, absl::Seconds(5));
  EXPECT_EQ(r.game().status(), v1::GAME_STATUS_ONGOING);
  ASSERT_TRUE(Move(game, v1::COLOR_WHITE, "Nf3", &resp).ok());
  ASSERT_TRUE(Claim(game, v1::COLOR_BLACK, v1::CLAIM_KIND_TIME, &resp).ok());
  ExpectEnded(resp, v1::RESULT_DRAW, v1::TERMINATION_BOTH_FLAGS);
  EXPECT_EQ(resp.game().outcome().article(), "B8");
  ExpectNoMoreMoves(game, v1::COLOR_BLACK, "Nc6");
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, RapidFlagCountsAtOnceIn2023) {  // 2023: the arbiter calls flags
  const std::string game = GameId("g");
  // "1+15" under 2023: 1 s + 60 x 15 s = 15 min 1 s, rapid; White's flag falls after a second.
  v1::GameReply created;
  ASSERT_TRUE(Create(EventGame(game, "1+15", v1::EDITION_FIDE_2023), &created).ok());
  EXPECT_EQ(created.game().ruleset().game_type(), v1::GAME_TYPE_RAPID);
  ASSERT_TRUE(Start(game).ok());
  const v1::GameReply r = AwaitEnd(game, absl::Seconds(5));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_ENDED);
  ExpectOutcome(r, v1::RESULT_BLACK_WINS, v1::TERMINATION_TIME_FORFEIT);
  const std::vector<v1::ArbitrationEvent> log = Log(game);
  ASSERT_GE(log.size(), 2u);
  ASSERT_TRUE(log[log.size() - 2].has_flag());
  EXPECT_TRUE(log[log.size() - 2].flag().counts());
  // B7 has nothing to claim here.
  v1::GameReply resp;
  EXPECT_EQ(Code(Claim(game, v1::COLOR_BLACK, v1::CLAIM_KIND_TIME, &resp)), "ERR_GAME_OVER");
  ExpectNoMoreMoves(game, v1::COLOR_WHITE, "e4");
  ExpectPgnReplays(game, "0-1");
}

TEST_P(ArbitrationServerTest, BothAbsentBothLose) {  // 6.7
  const std::string game = GameId("g");
  v1::CreateGameRequest req = EventGame(game, "5400");
  req.mutable_ruleset()->mutable_regulations()->set_default_time_ms(200);
  ASSERT_TRUE(Create(req).ok());
  ASSERT_TRUE(Start(game, {v1::COLOR_WHITE, v1::COLOR_BLACK}).ok());
  const v1::GameReply r = AwaitEnd(game, absl::Seconds(5));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_ENDED);
  ExpectOutcome(r, v1::RESULT_DOUBLE_FORFEIT, v1::TERMINATION_DEFAULT);
  EXPECT_EQ(r.game().white_points(), 0);
  EXPECT_EQ(r.game().black_points(), 0);
  ExpectNoMoreMoves(game, v1::COLOR_WHITE, "e4");
}

// SubmitMoves: two games' moves on one stream, answered one by one (each names its request by
// sequence); a move that ends a game ends it (5.1a Fool's mate), the other game goes on.
TEST_P(ArbitrationServerTest, SubmitMovesCarriesManyGamesOnOneStream) {
  const std::string a = GameId("a"), b = GameId("b");
  Ready(a, "5400");
  Ready(b, "5400");
  constexpr v1::Color W = v1::COLOR_WHITE, B = v1::COLOR_BLACK;
  const std::vector<v1::SubmitMoveRequest> moves = {
      MoveRequest(a, W, "f3"),  MoveRequest(b, W, "d4"), MoveRequest(a, B, "e5"),
      MoveRequest(b, B, "d5"),  MoveRequest(a, W, "g4"), MoveRequest(b, W, "c4"),
      MoveRequest(a, B, "Qh4#")};
  // One game's moves must be answered before its next is sent (a move is decided on the game as
  // its previous move left it): a stream per ply pair would not show that, so send them one at a
  // time and read each reply before the next.
  Call call(Token(Role::kPlatform));
  auto stream = Stub()->SubmitMoves(&call);
  for (size_t i = 0; i < moves.size(); ++i) {
    ASSERT_TRUE(stream->Write(moves[i]));
    v1::SubmitMovesReply reply;
    ASSERT_TRUE(stream->Read(&reply));
    EXPECT_EQ(reply.sequence(), static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(reply.game_id(), moves[i].game_id());
    ASSERT_EQ(reply.code(), 0) << reply.error().code() << " " << reply.error().message();
    EXPECT_EQ(reply.game().game().moves_san_size(), static_cast<int>(i / 2 + 1)) << i;
  }
  stream->WritesDone();
  EXPECT_TRUE(Succeeded(stream->Finish()));
  const v1::GameReply ra = Get(a);
  EXPECT_EQ(ra.game().status(), v1::GAME_STATUS_ENDED);
  ExpectOutcome(ra, v1::RESULT_BLACK_WINS, v1::TERMINATION_CHECKMATE);
  const v1::GameReply rb = Get(b);
  EXPECT_EQ(rb.game().status(), v1::GAME_STATUS_ONGOING);
  EXPECT_EQ(rb.game().moves_san_size(), 3);
  ExpectPgnReplays(a, "0-1");
}

// SubmitMoves: a relay sends one game's moves one after the other without waiting for the replies
// (the players moved faster than a round trip). Each is decided on the position the one before it
// left, in the order sent, so none is refused as out of turn (1.1: the players move alternately;
// the order is the relay's) and the record is the game as played.
TEST_P(ArbitrationServerTest, SubmitMovesDecidesOneGamesMovesInTheirOrder) {
  const std::string g = GameId("g");
  Ready(g, "5400");
  const std::vector<std::string> sans = {"e4",  "e5",  "Nf3", "Nc6", "Bb5", "a6",  "Ba4",
                                         "Nf6", "O-O", "Be7", "Re1", "b5",  "Bb3", "d6",
                                         "c3",  "O-O", "h3",  "Nb8", "d4",  "Nbd7"};
  std::vector<v1::SubmitMoveRequest> moves;
  for (size_t i = 0; i < sans.size(); ++i) {
    moves.push_back(MoveRequest(g, i % 2 == 0 ? v1::COLOR_WHITE : v1::COLOR_BLACK, sans[i],
                                absl::StrCat("ply-", i + 1)));
  }
  std::vector<v1::SubmitMovesReply> replies;
  ASSERT_TRUE(Succeeded(StreamMoves(Token(Role::kPlatform), moves, &replies)));
  ASSERT_EQ(replies.size(), sans.size());
  std::sort(replies.begin(), replies.end(),
            [](const auto& x, const auto& y) { return x.sequence() < y.sequence(); });
  for (size_t i = 0; i < replies.size(); ++i) {
    EXPECT_EQ(replies[i].code(), 0)
        << sans[i] << ": " << replies[i].error().code() << " " << replies[i].error().message();
    EXPECT_EQ(replies[i].game().game().moves_san_size(), static_cast<int>(i + 1)) << sans[i];
  }
  const v1::GameReply got = Get(g);
  ASSERT_EQ(got.game().moves_san_size(), static_cast<int>(sans.size()));
  for (size_t i = 0; i < sans.size(); ++i) EXPECT_EQ(got.game().moves_san(i), sans[i]);
}

// A refused move is a reply with its code and stable error, not the end of the stream; a retried
// command id applies once; everything the stream carried is in the record once.
TEST_P(ArbitrationServerTest, SubmitMovesRefusalsAndRetriesDoNotEndTheStream) {
  const std::string g = GameId("g");
  Ready(g, "5400");
  std::vector<v1::SubmitMovesReply> replies;
  grpc::Status st = StreamMoves(Token(Role::kPlatform),
                                {MoveRequest(g, v1::COLOR_WHITE, "e5"),  // illegal (Art. 3)
                                 MoveRequest(g, v1::COLOR_BLACK, "e5"),  // not Black's turn
                                 MoveRequest("no-such-game", v1::COLOR_WHITE, "e4"),
                                 MoveRequest(g, v1::COLOR_WHITE, std::string(100, 'x'))},
                                &replies);
  ASSERT_TRUE(Succeeded(st));
  ASSERT_EQ(replies.size(), 4u);
  std::sort(replies.begin(), replies.end(),
            [](const auto& x, const auto& y) { return x.sequence() < y.sequence(); });
  EXPECT_EQ(replies[0].code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(replies[0].error().code(), "ERR_ILLEGAL_MOVE");
  EXPECT_EQ(replies[1].code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_FALSE(replies[1].error().code().empty());
  EXPECT_EQ(replies[2].code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(replies[2].game_id(), "no-such-game");
  EXPECT_EQ(replies[3].code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(replies[3].error().code(), "ERR_BAD_ARGUMENT");
  EXPECT_EQ(Get(g).game().moves_san_size(), 0);

  // The same command twice (a relay that retries after a lost reply), then the reply to it.
  replies.clear();
  st = StreamMoves(Token(Role::kPlatform), {MoveRequest(g, v1::COLOR_WHITE, "e4", "m1")}, &replies);
  ASSERT_TRUE(Succeeded(st));
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_FALSE(replies[0].game().replayed());
  replies.clear();
  st = StreamMoves(Token(Role::kPlatform), {MoveRequest(g, v1::COLOR_WHITE, "e4", "m1")}, &replies);
  ASSERT_TRUE(Succeeded(st));
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].code(), 0);
  EXPECT_TRUE(replies[0].game().replayed());
  EXPECT_EQ(replies[0].command_id(), "m1");
  EXPECT_EQ(Get(g).game().moves_san_size(), 1);
}

// A player's stream moves only in his game and for his colour: each other move is refused as
// SubmitMove would refuse it, and the stream goes on. An observer cannot open one.
TEST_P(ArbitrationServerTest, SubmitMovesKeepsAPlayerToHisGameAndColour) {
  const std::string g = GameId("g"), other = GameId("other");
  Ready(g, "5400");
  Ready(other, "5400");
  std::vector<v1::SubmitMovesReply> replies;
  grpc::Status st =
      StreamMoves(PlayerToken(g, v1::COLOR_WHITE),
                  {MoveRequest(other, v1::COLOR_WHITE, "e4"), MoveRequest(g, v1::COLOR_BLACK, "e5"),
                   MoveRequest(g, v1::COLOR_WHITE, "e4")},
                  &replies);
  ASSERT_TRUE(Succeeded(st));
  ASSERT_EQ(replies.size(), 3u);
  std::sort(replies.begin(), replies.end(),
            [](const auto& x, const auto& y) { return x.sequence() < y.sequence(); });
  EXPECT_EQ(replies[0].code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(replies[1].code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(replies[2].code(), 0) << replies[2].error().message();
  EXPECT_EQ(Get(other).game().moves_san_size(), 0);
  EXPECT_EQ(Get(g).game().moves_san_size(), 1);

  replies.clear();
  st = StreamMoves(Token(Role::kObserver, g), {MoveRequest(g, v1::COLOR_BLACK, "e5")}, &replies);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(replies.empty());
  EXPECT_EQ(Get(g).game().moves_san_size(), 1);
}

// What each role gets from each method; bad tokens are refused (auth_matrix.h). Each call acts on
// a fresh game in the state its method needs; a player's token is for that game and the colour
// the call acts for.
TEST_P(ArbitrationServerTest, AuthMatrix) {
  // Appendix A: admitted, then refused by the domain (this server has no seal key, the games no
  // sessions); tests/integration/adjournment_server_test.cc runs them through.
  constexpr grpc::StatusCode FP = grpc::StatusCode::FAILED_PRECONDITION;
  // clang-format off
  const std::vector<AuthRow> matrix = {
      // method           platform  player  arbiter  observer  service
      {"CreateGame",      OK,       NO,     NO,      NO,       OK},
      {"StartGame",       OK,       NO,     OK,      NO,       OK},
      {"Arrive",          OK,       OK,     OK,      NO,       OK},
      {"SubmitMove",      OK,       OK,     NO,      NO,       OK},
      {"SubmitMoves",     OK,       OK,     NO,      NO,       OK},
      {"Resign",          OK,       OK,     NO,      NO,       OK},
      {"OfferDraw",       OK,       OK,     NO,      NO,       OK},
      {"RespondDraw",     OK,       OK,     NO,      NO,       OK},
      {"Claim",           OK,       OK,     NO,      NO,       OK},
      {"Rule",            NO,       NO,     OK,      NO,       OK},
      {"ConfirmResult",   OK,       OK,     NO,      NO,       OK},
      {"SetResult",       NO,       NO,     OK,      NO,       OK},
      {"PauseGame",       NO,       NO,     OK,      NO,       OK},
      {"ResumeGame",      NO,       NO,     OK,      NO,       OK},
      {"AdjustTime",      NO,       NO,     OK,      NO,       OK},
      {"SetClocks",       NO,       NO,     OK,      NO,       OK},
      {"SubmitBoardFeed", NO,       NO,     OK,      NO,       OK},
      {"ReportIllegalMove", FP,     FP,     OK,      NO,       OK},
      {"CompleteIllegalMove", OK,   OK,     NO,      NO,       OK},
      {"RuleIrregularity", NO,      NO,     OK,      NO,       OK},
      {"StopClocks",      OK,       OK,     NO,      NO,       OK},
      {"RuleStop",        NO,       NO,     OK,      NO,       OK},
      {"UsePower",        NO,       NO,     OK,      NO,       OK},
      {"SealMove",        FP,       FP,     NO,      NO,       FP},
      {"AdjournGame",     NO,       NO,     FP,      NO,       FP},
      {"ResumeAdjournedGame", NO,   NO,     FP,      NO,       FP},
      {"ReportEnvelopeLost", NO,    NO,     FP,      NO,       FP},
      {"GetGame",         OK,       OK,     OK,      OK,       OK},
      {"WatchGame",       OK,       OK,     OK,      OK,       OK},
      {"WatchGames",      OK,       OK,     OK,      OK,       OK},
      {"ExportPgn",       OK,       OK,     OK,      OK,       OK},
      {"ArchiveGame",     OK,       NO,     NO,      NO,       OK},
      // This server has no signing key: whoever may read the record is told so.
      {"GetSignedRecord", FP,       FP,     FP,      NO,       FP},
      {"GetRecordKeys",   OK,       OK,     OK,      OK,       OK},
      // A player lists his own games; observers may not list (the broadcast delay).
      {"ListGames",       OK,       OK,     OK,      NO,       OK},
      {"PauseEvent",      NO,       NO,     OK,      NO,       OK},  // 6.13a
      {"ResumeEvent",     NO,       NO,     OK,      NO,       OK},
      {"ListArbiterCalls", NO,      NO,     OK,      NO,       OK},  // the console's queue
      // Events and rounds: the platform and the event's arbiter set them up; the rules are public.
      {"CreateEvent",     OK,       NO,     OK,      NO,       OK},
      {"GetEvent",        OK,       OK,     OK,      OK,       OK},
      {"CreateRound",     OK,       NO,     OK,      NO,       OK},
      {"GetEventResults", OK,       NO,     OK,      NO,       OK},
      {"ExportEventPgn",  OK,       NO,     OK,      NO,       OK},
  };
  // clang-format on
  auto stub = Stub();
  constexpr chess::Color kWhite = chess::Color::kWhite, kBlack = chess::Color::kBlack;
  int n = 0;
  auto fresh = [&] { return GameId(absl::StrCat("m", n++)); };
  // A fresh game, created (90 minutes) and started, White to move.
  auto ready = [&] {
    const std::string game = fresh();
    Ready(game, "5400");
    return game;
  };
  // The request for a fresh started game, for White; made with White's token (or the role's).
  auto for_white = [&]<typename Request>(Request) {
    return ForSide<Request>(ready(), v1::COLOR_WHITE);
  };
  auto as_white = [&](auto method, const auto& req, const TokenFor& t) {
    return Unary(stub.get(), method, req, t(req.game_id(), kWhite));
  };
  // A fresh event (90 minutes, 2023), created by the platform; with a round of one game.
  auto event_request = [&] {
    v1::CreateEventRequest req;
    req.set_event(GameId(absl::StrCat("event-", ++n)));
    req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
    req.set_time_control("5400");
    return req;
  };
  auto round_request = [&](const std::string& event) {
    v1::CreateRoundRequest req;
    req.set_event(event);
    req.set_command_id("round-1");
    req.set_round(1);
    v1::RoundPairing* p = req.add_pairings();
    p->set_white_id("alice");
    p->set_black_id("bob");
    return req;
  };
  auto event_with_round = [&] {
    v1::CreateEventRequest event = event_request();
    EXPECT_TRUE(
        Succeeded(Unary(stub.get(), &S::CreateEvent, event, Token(service::Role::kPlatform))));
    EXPECT_TRUE(Succeeded(Unary(stub.get(), &S::CreateRound, round_request(event.event()),
                                Token(service::Role::kPlatform))));
    return event.event();
  };
  ExpectAuthMatrix(
      arbitration_service::ArbitrationService::kName, matrix,
      {
          {"CreateGame",
           [&](auto& t) {
             const std::string game = fresh();
             return Unary(stub.get(), &S::CreateGame, EventGame(game, "5400"), t(game, kWhite));
           }},
          {"StartGame",
           [&](auto& t) {
             auto req = ForGame<v1::StartGameRequest>(fresh());
             EXPECT_TRUE(Create(EventGame(req.game_id(), "5400")).ok());
             return as_white(&S::StartGame, req, t);
           }},
          {"Arrive",
           [&](auto& t) {  // Black absent at the start, within the default time of an hour (6.7)
             auto req = ForSide<v1::ArriveRequest>(fresh(), v1::COLOR_BLACK);
             v1::CreateGameRequest create = EventGame(req.game_id(), "5400");
             create.mutable_ruleset()->mutable_regulations()->set_default_time_ms(3'600'000);
             EXPECT_TRUE(Create(create).ok());
             EXPECT_TRUE(Start(req.game_id(), {v1::COLOR_BLACK}).ok());
             return Unary(stub.get(), &S::Arrive, req, t(req.game_id(), kBlack));
           }},
          {"SubmitMove",
           [&](auto& t) {
             v1::SubmitMoveRequest req = for_white(v1::SubmitMoveRequest());
             req.set_move("e4");
             return as_white(&S::SubmitMove, req, t);
           }},
          {"SubmitMoves",
           [&](auto& t) {  // one move on a stream: the stream's refusal, or the move's
             v1::SubmitMoveRequest req = for_white(v1::SubmitMoveRequest());
             req.set_move("e4");
             std::vector<v1::SubmitMovesReply> replies;
             grpc::Status st = StreamMoves(t(req.game_id(), kWhite), {req}, &replies);
             if (!st.ok()) return st;
             EXPECT_EQ(replies.size(), 1u);
             if (replies.empty() || replies[0].code() == 0) return st;
             return grpc::Status(static_cast<grpc::StatusCode>(replies[0].code()),
                                 replies[0].error().message());
           }},
          {"Resign",
           [&](auto& t) { return as_white(&S::Resign, for_white(v1::ResignRequest()), t); }},
          {"OfferDraw",
           [&](auto& t) { return as_white(&S::OfferDraw, for_white(v1::OfferDrawRequest()), t); }},
          {"RespondDraw",
           [&](auto& t) {
             auto req = ForSide<v1::RespondDrawRequest>(ready(), v1::COLOR_BLACK);
             EXPECT_TRUE(
                 Move(req.game_id(), v1::COLOR_WHITE, "e4", nullptr, /*offer_draw=*/true).ok());
             return Unary(stub.get(), &S::RespondDraw, req, t(req.game_id(), kBlack));
           }},
          {"Claim",
           [&](auto& t) {  // an incorrect claim: ruled at once, the intended move played
             v1::ClaimRequest req = for_white(v1::ClaimRequest());
             req.set_kind(v1::CLAIM_KIND_THREEFOLD);
             req.set_intended_move("e4");
             return as_white(&S::Claim, req, t);
           }},
          {"Rule",
           [&](auto& t) {  // on a pending 10.2 claim (see QuickplayClaimRuledByTheArbiter)
             auto req = ForGame<v1::RuleRequest>(fresh());
             req.set_decision(v1::RULING_DECISION_DRAW);
             req.set_reason("auth matrix");
             ReadyForQuickplay(req.game_id(), 60'000);
             v1::GameReply claimed;
             EXPECT_TRUE(
                 Claim(req.game_id(), v1::COLOR_WHITE, v1::CLAIM_KIND_QUICKPLAY, &claimed).ok());
             return as_white(&S::Rule, req, t);
           }},
          {"ConfirmResult",
           [&](auto& t) {
             v1::ConfirmResultRequest req = for_white(v1::ConfirmResultRequest());
             v1::GameReply resigned;
             EXPECT_TRUE(Resign(req.game_id(), v1::COLOR_BLACK, &resigned).ok());
             return as_white(&S::ConfirmResult, req, t);
           }},
          {"SetResult",
           [&](auto& t) {
             auto req = ForGame<v1::SetResultRequest>(ready());
             req.set_result(v1::RESULT_DRAW);
             req.set_article("12.9");
             req.set_reason("auth matrix");
             return as_white(&S::SetResult, req, t);
           }},
          {"PauseGame",
           [&](auto& t) {
             auto req = ForGame<v1::PauseGameRequest>(ready());
             req.set_reason("auth matrix");
             return as_white(&S::PauseGame, req, t);
           }},
          {"AdjustTime",
           [&](auto& t) {
             auto req = ForGame<v1::AdjustTimeRequest>(ready());
             req.set_side(v1::COLOR_BLACK);
             req.set_delta_ms(60'000);
             req.set_article("13.4b");
             req.set_reason("auth matrix");
             return as_white(&S::AdjustTime, req, t);
           }},
          {"SetClocks",
           [&](auto& t) {
             auto req = ForGame<v1::SetClocksRequest>(ready());
             req.set_white_ms(600'000);
             req.set_black_ms(600'000);
             req.set_reason("auth matrix");
             return as_white(&S::SetClocks, req, t);
           }},
          {"SubmitBoardFeed",
           [&](auto& t) {
             auto req = ForGame<v1::SubmitBoardFeedRequest>(ready());
             req.add_placements()->set_placement("rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR");
             return as_white(&S::SubmitBoardFeed, req, t);
           }},
          // Article 7, 6.13b/d, 12, 13.4.
          {"ReportIllegalMove",
           [&](auto& t) {
             // The arbiter finds Black's knight jump after 1. e4; White's (or the platform's)
             // report is a claim, and the record holds no such move (ERR_MOVE_NOT_IN_RECORD).
             auto req = ForSide<v1::ReportIllegalMoveRequest>(ready(), v1::COLOR_BLACK);
             EXPECT_TRUE(Succeeded(Move(req.game_id(), v1::COLOR_WHITE, "e4")));
             req.set_from("g8");
             req.set_to("g6");
             return as_white(&S::ReportIllegalMove, req, t);
           }},
          {"CompleteIllegalMove",
           [&](auto& t) {  // C3: blitz under 2001
             auto req = ForSide<v1::CompleteIllegalMoveRequest>(fresh(), v1::COLOR_WHITE);
             Ready(req.game_id(), "300", v1::EDITION_FIDE_2001);
             req.set_from("e1");
             req.set_to("e3");
             return as_white(&S::CompleteIllegalMove, req, t);
           }},
          {"RuleIrregularity",
           [&](auto& t) {
             auto req = ForGame<v1::RuleIrregularityRequest>(ready());
             req.set_article("7.1b");
             req.set_reason("auth matrix");
             return as_white(&S::RuleIrregularity, req, t);
           }},
          {"StopClocks",
           [&](auto& t) {
             v1::StopClocksRequest req = for_white(v1::StopClocksRequest());
             req.set_reason("auth matrix");
             return as_white(&S::StopClocks, req, t);
           }},
          {"RuleStop",
           [&](auto& t) {
             v1::StopClocksRequest stop = for_white(v1::StopClocksRequest());
             stop.set_reason("auth matrix");
             EXPECT_TRUE(Succeeded(Unary(stub.get(), &S::StopClocks, stop,
                                         PlayerToken(stop.game_id(), v1::COLOR_WHITE))));
             auto req = ForGame<v1::RuleStopRequest>(stop.game_id());
             req.set_valid(true);
             req.set_reason("auth matrix");
             return as_white(&S::RuleStop, req, t);
           }},
          {"UsePower",
           [&](auto& t) {
             auto req = ForGame<v1::UsePowerRequest>(ready());
             req.set_power(v1::ARBITER_POWER_WARNING);
             req.set_side(v1::COLOR_BLACK);
             req.set_reason("auth matrix");
             return as_white(&S::UsePower, req, t);
           }},
          {"ResumeGame",
           [&](auto& t) {
             auto pause = ForGame<v1::PauseGameRequest>(ready());
             pause.set_reason("auth matrix");
             v1::GameReply paused;
             EXPECT_TRUE(Succeeded(
                 Unary(stub.get(), &S::PauseGame, pause, Token(Role::kArbiter), &paused)));
             return as_white(&S::ResumeGame, ForGame<v1::ResumeGameRequest>(pause.game_id()), t);
           }},
          // Appendix A.
          {"SealMove",
           [&](auto& t) {
             v1::SealMoveRequest req = for_white(v1::SealMoveRequest());
             req.set_move("e4");
             req.set_stop_clock(true);
             return as_white(&S::SealMove, req, t);
           }},
          {"AdjournGame",
           [&](auto& t) {
             auto req = ForGame<v1::AdjournGameRequest>(ready());
             req.set_reason("auth matrix");
             return as_white(&S::AdjournGame, req, t);
           }},
          {"ResumeAdjournedGame",
           [&](auto& t) {
             return as_white(&S::ResumeAdjournedGame,
                             ForGame<v1::ResumeAdjournedGameRequest>(ready()), t);
           }},
          {"ReportEnvelopeLost",
           [&](auto& t) {
             auto req = ForGame<v1::ReportEnvelopeLostRequest>(ready());
             req.set_reason("auth matrix");
             return as_white(&S::ReportEnvelopeLost, req, t);
           }},
          {"GetGame",
           [&](auto& t) { return as_white(&S::GetGame, ForGame<v1::GetGameRequest>(ready()), t); }},
          {"WatchGame",
           [&](auto& t) {
             const auto req = ForGame<v1::WatchGameRequest>(ready());
             Call call(t(req.game_id(), kWhite));
             return FirstMessage(&call, stub->WatchGame(&call, req).get());
           }},
          {"WatchGames",
           [&](auto& t) {
             Call call(t(ready(), kWhite));
             return FirstMessage(&call, stub->WatchGames(&call, v1::WatchGamesRequest()).get());
           }},
          {"ExportPgn",
           [&](auto& t) {
             return as_white(&S::ExportPgn, ForGame<v1::ExportPgnRequest>(ready()), t);
           }},
          {"ArchiveGame",
           [&](auto& t) {  // a game that is over (White resigned)
             auto req = ForGame<v1::ArchiveGameRequest>(ready());
             EXPECT_TRUE(Resign(req.game_id(), v1::COLOR_WHITE, nullptr).ok());
             return as_white(&S::ArchiveGame, req, t);
           }},
          {"GetSignedRecord",
           [&](auto& t) {
             return as_white(&S::GetSignedRecord, ForGame<v1::GetSignedRecordRequest>(ready()), t);
           }},
          {"GetRecordKeys",
           [&](auto& t) {
             return Unary(stub.get(), &S::GetRecordKeys, v1::GetRecordKeysRequest(),
                          t(fresh(), kWhite));
           }},
          {"ListGames",
           [&](auto& t) {
             return Unary(stub.get(), &S::ListGames, v1::ListGamesRequest(), t(ready(), kWhite));
           }},
          {"PauseEvent",
           [&](auto& t) {
             v1::PauseEventRequest req;
             req.set_event(GameId(absl::StrCat("event-", ++n)));
             req.set_command_id("pause");
             req.set_reason("outage");
             return Unary(stub.get(), &S::PauseEvent, req, t(fresh(), kWhite));
           }},
          {"ListArbiterCalls",
           [&](auto& t) {
             v1::ListArbiterCallsRequest req;
             req.set_event(GameId(absl::StrCat("event-", ++n)));
             return Unary(stub.get(), &S::ListArbiterCalls, req, t(fresh(), kWhite));
           }},
          {"ResumeEvent",
           [&](auto& t) {
             v1::ResumeEventRequest req;
             req.set_event(GameId(absl::StrCat("event-", ++n)));
             req.set_command_id("resume");
             return Unary(stub.get(), &S::ResumeEvent, req, t(fresh(), kWhite));
           }},
          {"CreateEvent",
           [&](auto& t) {
             return Unary(stub.get(), &S::CreateEvent, event_request(), t(fresh(), kWhite));
           }},
          {"GetEvent",
           [&](auto& t) {
             v1::GetEventRequest req;
             req.set_event(event_with_round());
             return Unary(stub.get(), &S::GetEvent, req, t(fresh(), kWhite));
           }},
          {"CreateRound",
           [&](auto& t) {
             v1::CreateEventRequest event = event_request();
             EXPECT_TRUE(Succeeded(
                 Unary(stub.get(), &S::CreateEvent, event, Token(service::Role::kPlatform))));
             return Unary(stub.get(), &S::CreateRound, round_request(event.event()),
                          t(fresh(), kWhite));
           }},
          {"GetEventResults",
           [&](auto& t) {
             v1::GetEventResultsRequest req;
             req.set_event(event_with_round());
             return Unary(stub.get(), &S::GetEventResults, req, t(fresh(), kWhite));
           }},
          {"ExportEventPgn",
           [&](auto& t) {
             v1::ExportEventPgnRequest req;
             req.set_event(event_with_round());
             return Unary(stub.get(), &S::ExportEventPgn, req, t(fresh(), kWhite));
           }},
      });
}

INSTANTIATE_TEST_SUITE_P(Stores, ArbitrationServerTest, kEachStore, StoreName);

// An arbitration server alone on a real Redis that a test may pause (no /metrics), `tweak`
// applied to its configuration, with the platform's token and its way to ready a game.
struct OnRedis {
  explicit OnRedis(const std::function<void(service::ServerConfig&)>& tweak) {
    TestServerOptions options = WithoutMetrics({Service::kArbitration}, Store::kRedis);
    tweak(options.config);
    server = TestServer::StartOrDie(options);
    stub = server->Stub<v1::Arbitration>();
  }
  // Created by the platform, started by the arbiter.
  void Ready(const std::string& game) {
    using S = v1::Arbitration::Stub;
    ASSERT_TRUE(Succeeded(Unary(stub.get(), &S::CreateGame, AliceBobGame(game), platform)));
    ASSERT_TRUE(Succeeded(Unary(stub.get(), &S::StartGame, ForGame<v1::StartGameRequest>(game),
                                Token(Role::kArbiter))));
  }
  std::unique_ptr<TestServer> server;
  std::unique_ptr<v1::Arbitration::Stub> stub;
  const std::string platform = Token(Role::kPlatform);
};

// The game commands are served from the completion queues: with every thread of the synchronous
// server held by reads waiting for a paused Redis (a further synchronous call is refused
// RESOURCE_EXHAUSTED at once), a draw offer (decided on the queue's thread) and a confirmation
// (made on the service's worker pool) are still taken, and answered once Redis is back. Served by
// gRPC's thread pool they would be refused as the read is.
TEST(CompletionQueuePathTest, GameCommandsNeedNoThreadOfTheSynchronousServer) {
  OnRedis on_redis([](service::ServerConfig& c) { c.grpc_max_threads = 4; });
  using S = v1::Arbitration::Stub;
  const std::unique_ptr<TestServer>& server = on_redis.server;
  const std::unique_ptr<S>& stub = on_redis.stub;
  const std::string& platform = on_redis.platform;
  const std::string offered = GameId("offered");
  const std::string resigned = GameId("resigned");
  for (const std::string& game : {offered, resigned}) {
    on_redis.Ready(game);
    if (HasFatalFailure()) return;
  }
  ASSERT_TRUE(Succeeded(Unary(stub.get(), &S::Resign,
                              ForSide<v1::ResignRequest>(resigned, v1::COLOR_BLACK), platform)));

  ASSERT_TRUE(server->redis()->Pause().ok());
  // Reads that wait for the store (GetGame reads it, never the cache) until every thread is held.
  std::vector<std::thread> readers;
  for (int i = 0; i < 16; ++i) {
    readers.emplace_back([&] {
      Unary(stub.get(), &S::GetGame, ForGame<v1::GetGameRequest>(offered), platform, nullptr,
            absl::Seconds(10));
    });
  }
  grpc::Status read;
  for (const absl::Time until = absl::Now() + absl::Seconds(1); absl::Now() < until;) {
    read = Unary(stub.get(), &S::GetGame, ForGame<v1::GetGameRequest>(offered), platform, nullptr,
                 absl::Milliseconds(100));
    if (read.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) break;
  }
  EXPECT_EQ(read.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << read.error_message();

  v1::GameReply offer_reply, confirm_reply;
  grpc::Status offer, confirm;
  std::thread offering([&] {
    offer =
        Unary(stub.get(), &S::OfferDraw, ForSide<v1::OfferDrawRequest>(offered, v1::COLOR_WHITE),
              platform, &offer_reply, absl::Seconds(10));
  });
  std::thread confirming([&] {
    confirm = Unary(stub.get(), &S::ConfirmResult,
                    ForSide<v1::ConfirmResultRequest>(resigned, v1::COLOR_WHITE), platform,
                    &confirm_reply, absl::Seconds(10));
  });
  absl::SleepFor(absl::Milliseconds(300));  // both arrive while the threads are held
  ASSERT_TRUE(server->redis()->Resume().ok());
  offering.join();
  confirming.join();
  for (std::thread& t : readers) t.join();
  EXPECT_TRUE(Succeeded(offer));
  EXPECT_EQ(offer_reply.game().draw_offer(), v1::COLOR_WHITE);
  EXPECT_TRUE(Succeeded(confirm));
  EXPECT_TRUE(confirm_reply.game().white_confirmed());
}

// An overloaded server refuses at once what it cannot serve in time (--max_calls_in_flight):
// with four moves held by a paused Redis, a fifth is refused RESOURCE_EXHAUSTED ERR_OVERLOADED
// before any work, while the four are answered once Redis is back; the refused move changed
// nothing, so the same command sent again is taken, once.
TEST(OverloadTest, ACallBeyondTheCallsInFlightIsRefusedAtOnceAndChangesNothing) {
  OnRedis on_redis([](service::ServerConfig& c) { c.max_calls_in_flight = 4; });
  using S = v1::Arbitration::Stub;
  const std::unique_ptr<TestServer>& server = on_redis.server;
  const std::unique_ptr<S>& stub = on_redis.stub;
  const std::string& platform = on_redis.platform;
  std::vector<std::string> games;
  for (int i = 0; i < 5; ++i) {
    games.push_back(GameId(absl::StrCat("overload-", i)));
    on_redis.Ready(games.back());
    if (HasFatalFailure()) return;
  }
  auto e4 = [&](int i) {
    auto req = ForSide<v1::SubmitMoveRequest>(games[i], v1::COLOR_WHITE);
    req.set_move("e4");
    req.set_command_id(absl::StrCat("e4-", i));
    return req;
  };

  ASSERT_TRUE(server->redis()->Pause().ok());
  std::vector<grpc::Status> held(4);
  std::vector<std::thread> movers;
  for (int i = 0; i < 4; ++i) {
    movers.emplace_back([&, i] {
      held[i] = Unary(stub.get(), &S::SubmitMove, e4(i), platform, nullptr, absl::Seconds(20));
    });
  }
  // The four are in flight, waiting for Redis.
  for (const absl::Time until = absl::Now() + absl::Seconds(10);
       server->env()->calls_in_flight() < 4 && absl::Now() < until;) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(server->env()->calls_in_flight(), 4);
  const absl::Time sent = absl::Now();
  const grpc::Status refused =
      Unary(stub.get(), &S::SubmitMove, e4(4), platform, nullptr, absl::Seconds(20));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_EQ(Code(refused), "ERR_OVERLOADED");
  EXPECT_LT(absl::Now() - sent, absl::Seconds(5));  // at once, not after Redis comes back
  ASSERT_TRUE(server->redis()->Resume().ok());
  for (std::thread& t : movers) t.join();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(Succeeded(held[i])) << i;

  auto plies = [&](int i) {
    v1::GameReply reply;
    EXPECT_TRUE(Succeeded(
        Unary(stub.get(), &S::GetGame, ForGame<v1::GetGameRequest>(games[i]), platform, &reply)));
    return reply.game().moves_san_size();
  };
  EXPECT_EQ(plies(0), 1);
  EXPECT_EQ(plies(4), 0);  // refused before any work
  v1::GameReply first, again;
  ASSERT_TRUE(Succeeded(Unary(stub.get(), &S::SubmitMove, e4(4), platform, &first)));
  ASSERT_TRUE(Succeeded(Unary(stub.get(), &S::SubmitMove, e4(4), platform, &again)));
  EXPECT_FALSE(first.replayed());
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(plies(4), 1);
}

}  // namespace
}  // namespace integration
