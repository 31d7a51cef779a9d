// Flags in rapid and blitz by edition and event: B6-B8 (1997-2005) and 2023 A.3 / A.4.5. Each
// case gives the position, the clocks and the expected ruling.
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"

namespace arbitration::testing {
namespace {

constexpr char kStart[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

class Table : public StartedTable {
 public:
  using StartedTable::StartedTable;
  absl::Status ClaimTime(Color side, std::int64_t at_ms) {
    return Do({.kind = CommandKind::kClaim, .side = side, .claim = v1::CLAIM_KIND_TIME}, at_ms);
  }
  const laws::Outcome& outcome() const { return game_->outcome(); }
  v1::ClaimMade last_claim() const {
    const std::vector<v1::ArbitrationEvent> events = game_->events();
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
      if (it->has_claim()) return it->claim();
    }
    return v1::ClaimMade();
  }
};

v1::CreateGameRequest Request(v1::Edition edition, std::string tc, std::string fen = kStart,
                              std::optional<bool> supervised = std::nullopt) {
  v1::CreateGameRequest req =
      GameRequest({.edition = edition, .time_control = std::move(tc), .fen = std::move(fen)});
  if (supervised.has_value())
    req.mutable_ruleset()->mutable_regulations()->set_supervised(*supervised);
  return req;
}

// G/15 under 2001 (rapid, B1): White plays e4 at 1 s; Black's flag falls at 901 s; Black plays e5
// at 1'000 s, after it; White's flag falls at 1'899 s. Both flags are down in a known order and
// nobody has claimed.
void LetBothRapidFlagsFall(Table& t) {
  ASSERT_OK(t.Move(kW, "e4", 1'000));
  t.SettleTo(1'000'000);
  ASSERT_OK(t.Move(kB, "e5", 1'000'000));
  t.SettleTo(2'000'000);
  ASSERT_EQ(t.game().flags().size(), 2u);
}

// B6 "Das Fallblättchen gilt als gefallen, sobald einer der Spieler mit Recht darauf hingewiesen
// hat. Der Schiedsrichter unterläßt es, das Fallen eines Blättchens anzuzeigen." Both flags down
// and unclaimed: the game goes on, moves are played.
TEST(AppendixB6, BothFlagsDownWithoutAClaimPlayGoesOn) {
  Table t(Request(v1::EDITION_FIDE_2001, "G/15"));
  LetBothRapidFlagsFall(t);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  for (const v1::FlagRecorded& f : t.game().flags()) {
    EXPECT_FALSE(f.counts());
    EXPECT_EQ(f.article(), "B6");
  }
  EXPECT_EQ(t.game().flags()[0].fell_at_ms(), 901'000);
  EXPECT_EQ(t.game().flags()[1].fell_at_ms(), 1'899'000);
  ASSERT_OK(t.Move(kW, "Nf3", 2'000'000));
  ASSERT_OK(t.Move(kB, "Nc6", 2'001'000));
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
}

// B7 / B8: a claim that finds both flags down is drawn, even by the player whose flag fell second
// ("nur ..., wenn nach Anhalten der Uhren das Fallblättchen des Antragstellers noch oben ...";
// "Falls beide Fallblättchen gefallen sind, ist die Partie remis").
TEST(AppendixB8, AClaimThatFindsBothFlagsDownIsADraw) {
  Table t(Request(v1::EDITION_FIDE_2001, "G/15"));
  LetBothRapidFlagsFall(t);
  ASSERT_OK(t.ClaimTime(kW, 2'000'000));  // Black's flag fell first, at 901 s
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(t.last_claim().article(), "B8");
  EXPECT_EQ(t.game().status(), GameStatus::kEnded);
  EXPECT_EQ(t.outcome().result, Result::kDraw);
  EXPECT_EQ(t.outcome().termination, Termination::kBothFlags);
  EXPECT_EQ(t.outcome().article, "B8");
}

// 1997 blitz (G/5): the same, by the 1997 appendices' articles.
TEST(AppendixB8, Blitz1997ClaimWithBothFlagsDownIsADraw) {
  Table t(Request(v1::EDITION_FIDE_1997, "G/5"));
  ASSERT_OK(t.Move(kW, "e4", 1'000));
  t.SettleTo(400'000);  // Black's flag at 301 s
  ASSERT_OK(t.Move(kB, "e5", 400'000));
  t.SettleTo(800'000);  // White's at 699 s
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  EXPECT_EQ(t.game().flags()[0].article(), "B6 (1997)");
  ASSERT_OK(t.ClaimTime(kB, 800'000));
  EXPECT_EQ(t.outcome().result, Result::kDraw);
  EXPECT_EQ(t.outcome().article, "B8");
}

// B6 with both flags down: a mate decides (5.1a), the flags never counted. G/15 (2001), White:
// Kg1 Ra1, Black: Kg8 f7 g7 h7. White moves at 901 s (his flag fell at 900 s), Black at 1'900 s
// (his fell at 1'801 s), then Ra8 mates.
TEST(AppendixB6, AMateAfterBothFlagsFellDecides) {
  Table t(Request(v1::EDITION_FIDE_2001, "G/15", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"));
  t.SettleTo(901'000);
  ASSERT_OK(t.Move(kW, "Kf1", 901'000));
  t.SettleTo(1'900'000);
  ASSERT_OK(t.Move(kB, "Kh8", 1'900'000));
  ASSERT_EQ(t.game().flags().size(), 2u);
  ASSERT_OK(t.Move(kW, "Ra8", 1'901'000));
  EXPECT_EQ(t.outcome().result, Result::kWhiteWins);
  EXPECT_EQ(t.outcome().termination, Termination::kCheckmate);
}

// 2023, adequate supervision (A.3; the default; blitz B.3): the Competition Rules apply and the
// flag counts the moment it falls, recorded under A.3 / B.3.
TEST(Edition2023, SupervisedFlagCountsAtOnceUnderA3) {
  Table rapid(Request(v1::EDITION_FIDE_2023, "G/15"));
  rapid.SettleTo(1'000'000);
  EXPECT_EQ(rapid.outcome().termination, Termination::kTimeForfeit);
  ASSERT_EQ(rapid.game().flags().size(), 1u);
  EXPECT_TRUE(rapid.game().flags()[0].counts());
  EXPECT_EQ(rapid.game().flags()[0].article(), "A.3 (2023)");
  Table blitz(Request(v1::EDITION_FIDE_2023, "G/5", kStart, true));
  blitz.SettleTo(400'000);
  EXPECT_EQ(blitz.outcome().termination, Termination::kTimeForfeit);
  EXPECT_EQ(blitz.game().flags()[0].article(), "B.3 (2023)");
}

// 2023 without adequate supervision (A.4.5, blitz through B.4): "The flag is considered to have
// fallen when a player has made a valid claim to that effect." G/5 blitz: White's flag falls at
// 300 s; play goes on until Black claims.
TEST(Edition2023, UnsupervisedBlitzFlagCountsOnlyOnAClaim) {
  Table t(Request(v1::EDITION_FIDE_2023, "G/5", kStart, false));
  t.SettleTo(310'000);
  ASSERT_EQ(t.game().flags().size(), 1u);
  EXPECT_FALSE(t.game().flags()[0].counts());
  EXPECT_EQ(t.game().flags()[0].article(), "A.4.5 (2023, B.4)");
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  ASSERT_OK(t.Move(kW, "e4", 310'000));
  ASSERT_OK(t.ClaimTime(kB, 311'000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_EQ(t.last_claim().article(), "A.4.5 (2023, B.4)");
  EXPECT_EQ(t.outcome().result, Result::kBlackWins);
  EXPECT_EQ(t.outcome().termination, Termination::kTimeForfeit);
}

// 2023 A.4.5 has no B8: both flags down, the server knows which fell first. G/15 (rapid):
// Black's flag fell first (901 s), White's second (1'899 s). Black's claim is not valid; White's
// is.
TEST(Edition2023, UnsupervisedBothFlagsDownTheFirstFlagDecides) {
  Table t(Request(v1::EDITION_FIDE_2023, "G/15", kStart, false));
  LetBothRapidFlagsFall(t);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  ASSERT_OK(t.ClaimTime(kB, 2'000'000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  ASSERT_OK(t.ClaimTime(kW, 2'001'000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_EQ(t.outcome().result, Result::kWhiteWins);
  EXPECT_EQ(t.outcome().article, "A.4.5 (2023)");
}

}  // namespace
}  // namespace arbitration::testing
