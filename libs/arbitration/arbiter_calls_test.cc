// The arbiter's queue, one kind at a time: each game view as the arbitration service fills it for
// an arbiter, the call it gives (kind, article, urgency, since) and the order of several.
#include "libs/arbitration/arbiter_calls.h"

#include <vector>

#include "gtest/gtest.h"

namespace arbitration {
namespace {

namespace v1 = arbiter::v1;

constexpr std::int64_t kNow = 1'000'000;

v1::GameView Game(const char* id, v1::GameStatus status, std::int64_t last_event_ms = 900'000) {
  v1::GameView game;
  game.set_game_id(id);
  game.set_status(status);
  game.set_last_event_ms(last_event_ms);
  game.set_event("open-2026");
  return game;
}

TEST(ArbiterCallsTest, OngoingGameNeedsNothing) {
  EXPECT_FALSE(ArbiterCallOf(Game("g1", v1::GAME_STATUS_ONGOING), kNow).has_value());
  EXPECT_FALSE(ArbiterCallOf(Game("g1", v1::GAME_STATUS_CREATED), kNow).has_value());
}

// 10.2: the claimant stopped the clocks; the arbiter sees the engine's advice beside the claim.
TEST(ArbiterCallsTest, QuickplayClaimAwaitingRulingCarriesAdviceAndProof) {
  v1::GameView game = Game("g1", v1::GAME_STATUS_AWAITING_RULING, 880'000);
  v1::ClaimMade* claim = game.mutable_pending_claim();
  claim->set_side(v1::COLOR_BLACK);
  claim->set_kind(v1::CLAIM_KIND_QUICKPLAY);
  claim->set_ruling(v1::CLAIM_RULING_PENDING);
  claim->set_article("10.2");
  claim->set_advice("engine: 0.00 at depth 16, a draw by normal means");
  claim->set_reason("White cannot win by normal means");
  std::optional<v1::ArbiterCall> call = ArbiterCallOf(game, kNow);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->kind(), v1::ARBITER_CALL_KIND_CLAIM);
  EXPECT_EQ(call->article(), "10.2");
  EXPECT_EQ(call->urgency(), 10);
  EXPECT_EQ(call->since_ms(), 880'000);
  EXPECT_EQ(call->side(), v1::COLOR_BLACK);
  EXPECT_EQ(call->advice(), "engine: 0.00 at depth 16, a draw by normal means");
  EXPECT_EQ(call->proof(), "White cannot win by normal means");
  EXPECT_EQ(call->game_id(), "g1");
}

// A claim already ruled is not in the queue.
TEST(ArbiterCallsTest, RuledClaimIsNoCall) {
  v1::GameView game = Game("g1", v1::GAME_STATUS_ONGOING);
  game.mutable_pending_claim()->set_kind(v1::CLAIM_KIND_QUICKPLAY);
  game.mutable_pending_claim()->set_ruling(v1::CLAIM_RULING_INCORRECT);
  EXPECT_FALSE(ArbiterCallOf(game, kNow).has_value());
}

// 6.13b: a player stopped the clocks; 6.13d: the arbiter rules.
TEST(ArbiterCallsTest, PlayersStopOfTheClocks) {
  v1::GameView game = Game("g1", v1::GAME_STATUS_ONGOING);
  game.set_stopped_by(v1::COLOR_WHITE);
  game.set_paused(true);
  std::optional<v1::ArbiterCall> call = ArbiterCallOf(game, kNow);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->kind(), v1::ARBITER_CALL_KIND_STOP);
  EXPECT_EQ(call->article(), "6.13b");
  EXPECT_EQ(call->urgency(), 20);
  EXPECT_EQ(call->side(), v1::COLOR_WHITE);
}

// 7.4a / B5: a player's claim that the opponent's move was illegal.
TEST(ArbiterCallsTest, ClaimedIllegalMove) {
  v1::GameView game = Game("g1", v1::GAME_STATUS_AWAITING_RULING);
  v1::ClaimMade* claim = game.mutable_pending_claim();
  claim->set_side(v1::COLOR_WHITE);
  claim->set_kind(v1::CLAIM_KIND_ILLEGAL_MOVE);
  claim->set_ruling(v1::CLAIM_RULING_PENDING);
  claim->set_article("7.4a");
  claim->set_illegal_from("e8");
  claim->set_illegal_to("e6");
  std::optional<v1::ArbiterCall> call = ArbiterCallOf(game, kNow);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->kind(), v1::ARBITER_CALL_KIND_ILLEGAL_MOVE);
  EXPECT_EQ(call->article(), "7.4a");
  EXPECT_EQ(call->urgency(), 30);
  EXPECT_NE(call->summary().find("e8-e6"), std::string::npos) << call->summary();
}

// 6.13a: the clocks stopped by the arbiter (or a board's illegal move that stood) until he rules.
TEST(ArbiterCallsTest, ClocksStoppedForAnIrregularity) {
  v1::GameView game = Game("g1", v1::GAME_STATUS_ONGOING);
  game.set_paused(true);
  std::optional<v1::ArbiterCall> call = ArbiterCallOf(game, kNow);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->kind(), v1::ARBITER_CALL_KIND_IRREGULARITY);
  EXPECT_EQ(call->article(), "6.13a");
  EXPECT_EQ(call->urgency(), 40);
}

// 6.9: a flag fell where the opponent may not be able to mate: the result is under review.
TEST(ArbiterCallsTest, FlagUnderReview) {
  v1::GameView game = Game("g1", v1::GAME_STATUS_ENDED);
  game.set_review(true);
  game.mutable_outcome()->set_article("6.9");
  std::optional<v1::ArbiterCall> call = ArbiterCallOf(game, kNow);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->kind(), v1::ARBITER_CALL_KIND_FLAG_REVIEW);
  EXPECT_EQ(call->article(), "6.9");
  EXPECT_EQ(call->urgency(), 50);
}

// Appendix A: the adjourned game comes forward as its resumption nears (A9: the envelope opens).
TEST(ArbiterCallsTest, AdjournedGameDueSoonIsMoreUrgentThanOneDueTomorrow) {
  v1::GameView soon = Game("g1", v1::GAME_STATUS_ADJOURNED);
  soon.mutable_envelope()->set_resume_at_ms(kNow + 30 * 60 * 1000);
  soon.mutable_envelope()->set_sealer(v1::COLOR_BLACK);
  v1::GameView later = Game("g2", v1::GAME_STATUS_ADJOURNED);
  later.mutable_envelope()->set_resume_at_ms(kNow + 24 * 60 * 60 * 1000);
  std::optional<v1::ArbiterCall> a = ArbiterCallOf(soon, kNow);
  std::optional<v1::ArbiterCall> b = ArbiterCallOf(later, kNow);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(a->kind(), v1::ARBITER_CALL_KIND_ADJOURNED);
  EXPECT_EQ(a->article(), "A9");
  EXPECT_EQ(a->urgency(), 60);
  EXPECT_EQ(a->due_ms(), kNow + 30 * 60 * 1000);
  EXPECT_EQ(a->side(), v1::COLOR_BLACK);
  EXPECT_EQ(b->urgency(), 80);
}

// 8.7: the game is over and a player has not yet confirmed the result.
TEST(ArbiterCallsTest, ResultToConfirmUntilBothConfirmed) {
  v1::GameView game = Game("g1", v1::GAME_STATUS_ENDED);
  game.set_white_confirmed(true);
  std::optional<v1::ArbiterCall> call = ArbiterCallOf(game, kNow);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->kind(), v1::ARBITER_CALL_KIND_RESULT_TO_CONFIRM);
  EXPECT_EQ(call->article(), "8.7");
  EXPECT_EQ(call->urgency(), 90);
  EXPECT_NE(call->summary().find("Black"), std::string::npos) << call->summary();
  game.set_black_confirmed(true);
  EXPECT_FALSE(ArbiterCallOf(game, kNow).has_value());
}

// The queue: by urgency, then the oldest first, then the game id.
TEST(ArbiterCallsTest, SortedByUrgencyThenAge) {
  std::vector<v1::GameView> games;
  games.push_back(Game("result", v1::GAME_STATUS_ENDED, 100));
  v1::GameView stop_new = Game("stop-new", v1::GAME_STATUS_ONGOING, 700);
  stop_new.set_stopped_by(v1::COLOR_BLACK);
  games.push_back(stop_new);
  v1::GameView stop_old = stop_new;
  stop_old.set_game_id("stop-old");
  stop_old.set_last_event_ms(500);
  games.push_back(stop_old);
  games.push_back(Game("quiet", v1::GAME_STATUS_ONGOING));
  v1::GameView claim = Game("claim", v1::GAME_STATUS_AWAITING_RULING, 900);
  claim.mutable_pending_claim()->set_kind(v1::CLAIM_KIND_QUICKPLAY);
  claim.mutable_pending_claim()->set_ruling(v1::CLAIM_RULING_PENDING);
  games.push_back(claim);
  std::vector<v1::ArbiterCall> calls = ArbiterCalls(games, kNow);
  std::vector<std::string> order;
  for (const v1::ArbiterCall& c : calls) order.push_back(c.game_id());
  EXPECT_EQ(order, (std::vector<std::string>{"claim", "stop-old", "stop-new", "result"}));
}

}  // namespace
}  // namespace arbitration
