// `arbiterctl game get` (Article 4) against a fake arbitration service on loopback: the
// pieces touched this turn and the move they oblige, in the text and the JSON output, only when
// the view has them (other games' output stays as it was).
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tools/arbiterctl/game_client_testing.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;

class FakeArbitration final : public v1::Arbitration::Service {
 public:
  grpc::Status GetGame(grpc::ServerContext*, const v1::GetGameRequest* req,
                       v1::GameReply* reply) override {
    *reply->mutable_game() = view;
    reply->mutable_game()->set_game_id(req->game_id());
    return grpc::Status::OK;
  }
  v1::GameView view;
};

class GameGetTouchesTest : public FakeGameServiceTest<FakeArbitration> {
 protected:
  void SetUp() override {
    fake_.view.set_status(v1::GAME_STATUS_ONGOING);
    fake_.view.set_to_move(v1::COLOR_WHITE);
    fake_.view.set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  }

  std::string Get(bool json) {
    std::vector<std::string> words = {"get", "--game", "g1"};
    if (json) words.push_back("--json");
    const GameRun run = Run(words);
    EXPECT_EQ(run.rc, 0) << run.err;
    return run.out;
  }
};

// 2001 standard play: White touched his knight g1 (4.3a owed, the arbiter acts himself).
TEST_F(GameGetTouchesTest, TouchedAndOwedShown) {
  v1::PieceTouched* t = fake_.view.add_touched();
  t->set_side(v1::COLOR_WHITE);
  t->set_square("g1");
  t->set_piece("N");
  v1::MoveObligation* o = fake_.view.mutable_obligation();
  o->add_owed_uci("g1f3");
  o->add_owed_uci("g1h3");
  o->set_article("4.3a");
  o->set_reason("the knight g1 must be moved");
  o->set_enforced(true);

  const std::string text = Get(false);
  EXPECT_NE(text.find("  touched: N g1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  owed (4.3a): the knight g1 must be moved: g1f3 g1h3\n"), std::string::npos)
      << text;

  const nlohmann::json j = nlohmann::json::parse(Get(true));
  ASSERT_EQ(j["touched"].size(), 1u);
  EXPECT_EQ(j["touched"][0]["square"], "g1");
  EXPECT_EQ(j["touched"][0]["piece"], "N");
  EXPECT_EQ(j["touched"][0]["adjusting"], false);
  EXPECT_FALSE(j["touched"][0].contains("promotion"));
  EXPECT_EQ(j["obligation"]["owed"], nlohmann::json({"g1f3", "g1h3"}));
  EXPECT_EQ(j["obligation"]["article"], "4.3a");
  EXPECT_EQ(j["obligation"]["free"], false);
  EXPECT_EQ(j["obligation"]["enforced"], true);
}

// 2001 rapid: 4.5, nothing touched can move; only on the opponent's claim (B5a).
TEST_F(GameGetTouchesTest, FreeOnClaim) {
  v1::PieceTouched* t = fake_.view.add_touched();
  t->set_square("a1");
  t->set_piece("R");
  v1::MoveObligation* o = fake_.view.mutable_obligation();
  o->set_free(true);
  o->set_article("4.5");
  o->set_reason("no touched piece can be moved or captured: any legal move");
  const std::string text = Get(false);
  EXPECT_NE(text.find("  free (4.5, on claim): no touched piece can be moved or captured: any "
                      "legal move\n"),
            std::string::npos)
      << text;
}

// Nothing touched: neither line nor key.
TEST_F(GameGetTouchesTest, AbsentWhenNothingTouched) {
  const std::string text = Get(false);
  EXPECT_EQ(text.find("touched"), std::string::npos) << text;
  EXPECT_EQ(text.find("owed"), std::string::npos) << text;
  const nlohmann::json j = nlohmann::json::parse(Get(true));
  EXPECT_FALSE(j.contains("touched"));
  EXPECT_FALSE(j.contains("obligation"));
}

}  // namespace
}  // namespace arbiterctl
