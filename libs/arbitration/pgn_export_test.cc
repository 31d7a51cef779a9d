#include "libs/arbitration/pgn_export.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/pgn.h"

namespace arbitration::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// 2023-11-14 22:13:20 UTC.
constexpr std::int64_t kStart = 1'700'000'000'000;

v1::Actor Platform() { return Who("platform", "platform"); }

v1::CreateGameRequest Request(v1::Edition edition, const std::string& tc,
                              const std::string& fen = "") {
  v1::CreateGameRequest r;
  r.set_game_id("g1");
  r.set_white_id("w-id");
  r.set_black_id("b-id");
  r.mutable_ruleset()->set_edition(edition);
  r.mutable_ruleset()->mutable_regulations()->set_arbiter_present(true);
  r.set_time_control(tc);
  r.set_start_fen(fen);
  return r;
}

GameState NewState(const v1::CreateGameRequest& request, std::int64_t at = kStart - 60'000) {
  absl::StatusOr<v1::ArbitrationEvent> created = NewGame(request, at, Platform());
  EXPECT_OK(created);
  absl::StatusOr<GameState> game = GameState::Create(*created);
  EXPECT_OK(game);
  return *game;
}

// The PGN has the tag `name` with `value`: [Name "value"].
::testing::Matcher<const std::string&> Tag(absl::string_view name, absl::string_view value) {
  return HasSubstr(absl::StrCat("[", name, " \"", value, "\"]"));
}

// Hand-made log entries, as the rulings would record them.
class Log {
 public:
  explicit Log(GameState game) : game_(std::move(game)) {}
  GameState& game() { return game_; }

  void Add(std::int64_t at, v1::ArbitrationEvent e) {
    e.set_at_ms(at);
    *e.mutable_actor() = Platform();
    ASSERT_OK(game_.Apply(e)) << e.DebugString();
  }
  void Start(std::int64_t at, std::vector<v1::Color> absent = {}) {
    v1::ArbitrationEvent e;
    for (v1::Color c : absent) e.mutable_started()->add_absent(c);
    e.mutable_started();
    Add(at, e);
  }
  void Move(std::int64_t at, v1::Color side, const std::string& uci, const std::string& san,
            bool offer = false, bool ends = false) {
    v1::ArbitrationEvent e;
    v1::MoveMade* m = e.mutable_move();
    m->set_side(side);
    m->set_uci(uci);
    m->set_san(san);
    m->set_offer_draw(offer);
    m->set_ends_game(ends);
    const chess::Color c = side == v1::COLOR_WHITE ? chess::Color::kWhite : chess::Color::kBlack;
    m->set_clock_ms(game_.RemainingMs(c, at) + (ends ? 0 : Increment()));
    m->set_elapsed_ms(at - game_.last_event_ms());
    Add(at, e);
  }
  void End(std::int64_t at, v1::Result result, v1::Termination termination, v1::Color winner,
           const std::string& article, const std::string& proof = "") {
    v1::ArbitrationEvent e;
    v1::Outcome* o = e.mutable_ended()->mutable_outcome();
    o->set_result(result);
    o->set_termination(termination);
    o->set_winner(winner);
    o->set_article(article);
    e.mutable_ended()->set_proof(proof);
    Add(at, e);
  }

 private:
  std::int64_t Increment() const {
    return game_.time_control().period(0).bonus.ms;  // the tests use Fischer increments
  }
  GameState game_;
};

// The export wraps movetext at 80 columns; the tests read it as one line.
std::string Flat(std::string pgn) {
  for (char& c : pgn) {
    if (c == '\n') c = ' ';
  }
  return pgn;
}

// What `arbiterctl pgn check` does: the syntax, then the moves by the Laws.
chess::PgnGame Check(const std::string& pgn) {
  absl::StatusOr<std::vector<chess::PgnGame>> games = chess::ParsePgn(pgn);
  EXPECT_OK(games) << pgn;
  if (!games.ok() || games->size() != 1) {
    ADD_FAILURE() << "expected one game:\n" << pgn;
    return {};
  }
  chess::PgnGame game = (*games)[0];
  EXPECT_OK(chess::ReplayGame(&game)) << pgn;
  return game;
}

TEST(FormatPgnClockTest, TenthsAlways) {
  EXPECT_EQ(FormatPgnClock(0), "0:00:00.0");
  EXPECT_EQ(FormatPgnClock(298'000), "0:04:58.0");
  EXPECT_EQ(FormatPgnClock(5'400'000 + 1'234), "1:30:01.2");
  EXPECT_EQ(FormatPgnClock(99), "0:00:00.0");  // truncated, as the clock shows it
  EXPECT_EQ(FormatPgnClock(-5), "0:00:00.0");
}

TEST(PgnTerminationTest, PgnStandardValues) {
  using laws::Outcome;
  const chess::Color w = chess::Color::kWhite;
  EXPECT_EQ(PgnTermination(Outcome{}), "unterminated");
  EXPECT_EQ(PgnTermination(Outcome::Win(w, Termination::kCheckmate, "5.1a")), "normal");
  EXPECT_EQ(PgnTermination(Outcome::Draw(Termination::kAgreement, "5.2c")), "normal");
  EXPECT_EQ(PgnTermination(Outcome::Win(w, Termination::kTimeForfeit, "6.9")), "time forfeit");
  EXPECT_EQ(PgnTermination(Outcome::Draw(Termination::kTimeoutVsInsufficient, "6.10")),
            "time forfeit");
  EXPECT_EQ(PgnTermination(Outcome::Win(w, Termination::kDefault, "6.7")), "abandoned");
  EXPECT_EQ(PgnTermination(Outcome::Draw(Termination::kQuickplayFinishClaim, "10.2a")),
            "adjudication");
  EXPECT_EQ(PgnTermination(Outcome::Win(w, Termination::kIllegalMoves, "7.4b")),
            "rules infraction");
}

// 5.1a with the clocks: [%clk] and [%emt] after every move, "(=)" after a move with an offer.
TEST(ExportPgnTest, CheckmateWithClocksAndAnOffer) {
  Log log(NewState(Request(v1::EDITION_FIDE_2023, "300+2")));
  log.Start(kStart);
  log.Move(kStart + 2'000, v1::COLOR_WHITE, "e2e4", "e4");
  log.Move(kStart + 5'000, v1::COLOR_BLACK, "e7e5", "e5");
  log.Move(kStart + 9'000, v1::COLOR_WHITE, "f1c4", "Bc4");
  log.Move(kStart + 10'000, v1::COLOR_BLACK, "b8c6", "Nc6");
  log.Move(kStart + 12'500, v1::COLOR_WHITE, "d1h5", "Qh5", /*offer=*/true);
  log.Move(kStart + 20'000, v1::COLOR_BLACK, "g8f6", "Nf6");
  log.Move(kStart + 21'000, v1::COLOR_WHITE, "h5f7", "Qxf7#", false, /*ends=*/true);
  log.End(kStart + 21'000, v1::RESULT_WHITE_WINS, v1::TERMINATION_CHECKMATE, v1::COLOR_WHITE,
          "5.1a");

  const std::string pgn = Flat(ExportPgn(log.game()));
  EXPECT_THAT(pgn, AllOf(Tag("Event", "?"), Tag("Date", "2023.11.14"), Tag("White", "w-id"),
                         Tag("Black", "b-id"), Tag("Result", "1-0"), Tag("TimeControl", "300+2"),
                         Tag("Termination", "normal")))
      << pgn;
  // White: 300 s - 2 s + 2 s increment.
  EXPECT_THAT(pgn, HasSubstr("1. e4 {[%clk 0:05:00.0] [%emt 0:00:02.0]}")) << pgn;
  EXPECT_THAT(pgn, HasSubstr("3. Qh5 {[%clk 0:04:57.5] [%emt 0:00:02.5]} {(=)}")) << pgn;
  EXPECT_THAT(pgn, HasSubstr("5.1a")) << pgn;
  EXPECT_THAT(pgn, Not(HasSubstr("SetUp")));

  chess::PgnGame game = Check(pgn);
  ASSERT_EQ(game.moves.size(), 7u);
  EXPECT_EQ(game.result, "1-0");
  EXPECT_EQ(game.moves[0].clock_ms, 300'000);
  EXPECT_EQ(game.moves[1].clock_ms, 299'000);  // 300 s - 3 s + 2 s
  EXPECT_EQ(game.Tag("Termination"), "normal");
}

// A set-up position (FEN / SetUp), names over ids, an incorrect 9.2 claim with its 9.5b penalty,
// then a resignation: everything the arbiter did is a comment citing the article.
TEST(ExportPgnTest, FromFenWithClaimPenaltyAndResignation) {
  v1::CreateGameRequest req =
      Request(v1::EDITION_FIDE_2001, "40/5400+30:1800+30", "4k3/8/8/8/8/8/4P3/4K2R b K - 3 40");
  req.set_white_name("Alice");
  req.set_black_name("Bob");
  req.set_event("Club Championship");
  req.set_site("Berlin");
  req.set_round("3");
  Log log(NewState(req));
  log.Start(kStart);
  log.Move(kStart + 10'000, v1::COLOR_BLACK, "e8d7", "Kd7");
  {
    v1::ArbitrationEvent e;
    v1::ClaimMade* c = e.mutable_claim();
    c->set_side(v1::COLOR_WHITE);
    c->set_kind(v1::CLAIM_KIND_THREEFOLD);
    c->set_intended_uci("e1f1");
    c->set_intended_san("Kf1");
    c->set_ruling(v1::CLAIM_RULING_INCORRECT);
    c->set_article("9.2");
    c->set_reason("the position would not stand for the third time");
    log.Add(kStart + 20'000, e);
  }
  {
    v1::ArbitrationEvent e;
    e.mutable_adjusted()->set_side(v1::COLOR_BLACK);
    e.mutable_adjusted()->set_delta_ms(180'000);
    e.mutable_adjusted()->set_article("9.5b");
    log.Add(kStart + 20'000, e);
  }
  log.Move(kStart + 21'000, v1::COLOR_WHITE, "e1f1", "Kf1");
  {
    v1::ArbitrationEvent e;
    e.mutable_resigned()->set_side(v1::COLOR_BLACK);
    log.Add(kStart + 30'000, e);
  }
  log.End(kStart + 30'000, v1::RESULT_WHITE_WINS, v1::TERMINATION_RESIGNATION, v1::COLOR_WHITE,
          "5.1b");

  const std::string pgn = Flat(ExportPgn(log.game()));
  EXPECT_THAT(pgn, AllOf(Tag("Event", "Club Championship"), Tag("Site", "Berlin"),
                         Tag("Round", "3"), Tag("White", "Alice"), Tag("Black", "Bob"),
                         Tag("SetUp", "1"), Tag("FEN", "4k3/8/8/8/8/8/4P3/4K2R b K - 3 40"),
                         Tag("TimeControl", "40/5400+30:1800+30")))
      << pgn;
  EXPECT_THAT(pgn, HasSubstr("40... Kd7")) << pgn;
  EXPECT_THAT(pgn, HasSubstr("9.2: White claims a draw by threefold repetition with the intended "
                             "move Kf1: incorrect"))
      << pgn;
  EXPECT_THAT(pgn, HasSubstr("9.5b: Black's clock +0:03:00.0")) << pgn;
  EXPECT_THAT(pgn, HasSubstr("5.1b: Black resigns")) << pgn;
  EXPECT_THAT(pgn, HasSubstr("White wins by resignation (5.1b)")) << pgn;

  chess::PgnGame game = Check(pgn);
  EXPECT_EQ(game.moves.size(), 2u);
  EXPECT_EQ(game.result, "1-0");
}

// 6.7: no move at all; the record is comments only, and the PGN says "abandoned".
TEST(ExportPgnTest, DefaultWithoutMoves) {
  Log log(NewState(Request(v1::EDITION_FIDE_2023, "5400+30")));
  log.Start(kStart, {v1::COLOR_BLACK});
  log.End(kStart, v1::RESULT_WHITE_WINS, v1::TERMINATION_DEFAULT, v1::COLOR_WHITE, "6.7");
  const std::string pgn = Flat(ExportPgn(log.game()));
  EXPECT_THAT(pgn, AllOf(Tag("Termination", "abandoned"), Tag("Result", "1-0"),
                         HasSubstr("6.6: Black absent at the start"),
                         HasSubstr("White wins by default (6.7)")))
      << pgn;
  chess::PgnGame game = Check(pgn);
  EXPECT_TRUE(game.moves.empty());
  EXPECT_EQ(game.result, "1-0");
}

// 6.7, both absent: 0-0 has no PGN result; the record says "*" and explains it.
TEST(ExportPgnTest, DoubleForfeitIsStarWithAComment) {
  Log log(NewState(Request(v1::EDITION_FIDE_2023, "5400+30")));
  log.Start(kStart, {v1::COLOR_WHITE, v1::COLOR_BLACK});
  log.End(kStart, v1::RESULT_DOUBLE_FORFEIT, v1::TERMINATION_DEFAULT, v1::COLOR_UNSPECIFIED, "6.7");
  const std::string pgn = Flat(ExportPgn(log.game()));
  EXPECT_THAT(pgn, AllOf(Tag("Result", "*"), HasSubstr("both players lose (0-0)"))) << pgn;
  EXPECT_EQ(Check(pgn).result, "*");
}

// 6.9 / 6.10: a flag, then the outcome with its proof; the Termination is "time forfeit".
TEST(ExportPgnTest, FlagAgainstInsufficientMaterial) {
  Log log(NewState(Request(v1::EDITION_FIDE_2023, "60+0", "7k/8/8/8/8/8/8/KQ6 w - - 0 1")));
  log.Start(kStart);
  log.Move(kStart + 1'000, v1::COLOR_WHITE, "b1b2", "Qb2+");
  {
    v1::ArbitrationEvent e;
    e.mutable_flag()->set_side(v1::COLOR_BLACK);
    e.mutable_flag()->set_fell_at_ms(kStart + 61'000);
    e.mutable_flag()->set_counts(true);
    e.mutable_flag()->set_article("6.9");
    log.Add(kStart + 61'000, e);
  }
  log.End(kStart + 61'000, v1::RESULT_DRAW, v1::TERMINATION_TIMEOUT_VS_INSUFFICIENT,
          v1::COLOR_UNSPECIFIED, "6.9", "material: a lone king cannot mate");
  const std::string pgn = Flat(ExportPgn(log.game()));
  EXPECT_THAT(pgn, AllOf(Tag("Termination", "time forfeit"), Tag("Result", "1/2-1/2"),
                         HasSubstr("6.9: Black's flag has fallen"),
                         HasSubstr("drawn by timeout vs insufficient (6.9); proof: material")))
      << pgn;
  Check(pgn);
}

// An ongoing game is "unterminated" with result "*"; options leave clocks and comments out.
TEST(ExportPgnTest, OngoingAndOptions) {
  Log log(NewState(Request(v1::EDITION_FIDE_2005, "5400+30")));
  log.Start(kStart);
  log.Move(kStart + 1'000, v1::COLOR_WHITE, "g1f3", "Nf3");
  {
    v1::ArbitrationEvent e;
    e.mutable_draw_offered()->set_side(v1::COLOR_WHITE);
    e.mutable_draw_offered()->set_outside_move(true);
    log.Add(kStart + 5'000, e);
  }
  std::string pgn = Flat(ExportPgn(log.game()));
  EXPECT_THAT(pgn, AllOf(Tag("Termination", "unterminated"), Tag("Result", "*"),
                         Tag("TimeControl", "5400+30"), HasSubstr("{(=)}"),
                         HasSubstr("9.1b: White offers a draw outside the move")))
      << pgn;
  Check(pgn);
  pgn = Flat(ExportPgn(log.game(), {.clocks = false, .arbiter_comments = false}));
  EXPECT_THAT(pgn, Not(HasSubstr("%clk")));
  EXPECT_THAT(pgn, Not(HasSubstr("9.1b")));
  EXPECT_THAT(pgn, HasSubstr("{(=)}"));  // the offer is part of the record itself (8.1)
  Check(pgn);
}

// --- Through the rulings (Decide), as the service and `game simulate` build games.

class DecidedGame {
 public:
  explicit DecidedGame(const v1::CreateGameRequest& request) : game_(NewState(request, 0)) {}
  GameState& game() { return game_; }

  Decision Do(Command command, std::int64_t at) {
    absl::StatusOr<Decision> d = Decide(game_, command, at, analyst_);
    EXPECT_OK(d);
    if (!d.ok()) return {};
    if (d->after.has_value()) game_ = *d->after;
    return *d;
  }
  void Start(std::int64_t at) { Do({.kind = CommandKind::kStart}, at); }
  void Move(chess::Color side, const std::string& move, std::int64_t at, bool offer = false) {
    Decision d =
        Do({.kind = CommandKind::kMove, .side = side, .move = move, .offer_draw = offer}, at);
    EXPECT_OK(d.refused) << move;
  }

 private:
  GameState game_;
  LocalAnalyst analyst_;
};

constexpr chess::Color kW = chess::Color::kWhite;
constexpr chess::Color kB = chess::Color::kBlack;

TEST(ExportPgnDecidedTest, IncorrectThreefoldClaimThenAgreement) {
  DecidedGame g(Request(v1::EDITION_FIDE_2001, "5400+30"));
  g.Start(1'000);
  g.Move(kW, "Nf3", 2'000);
  g.Move(kB, "Nf6", 3'000);
  // 9.2: nothing has repeated yet; 9.5b: Black gets three minutes.
  Decision claim = g.Do(
      {.kind = CommandKind::kClaim, .side = kW, .move = "Ng1", .claim = v1::CLAIM_KIND_THREEFOLD},
      4'000);
  EXPECT_EQ(claim.claim_ruling, v1::CLAIM_RULING_INCORRECT);
  g.Move(kB, "Ng8", 5'000);  // rejects the claim's offer (9.1c, 9.1b)
  g.Move(kW, "Nf3", 6'000, /*offer=*/true);
  g.Do({.kind = CommandKind::kAcceptDraw, .side = kB}, 7'000);
  ASSERT_EQ(g.game().status(), GameStatus::kEnded);

  const std::string pgn = Flat(ExportPgn(g.game()));
  EXPECT_THAT(
      pgn, AllOf(Tag("Result", "1/2-1/2"), Tag("Termination", "normal"), Tag("Date", "????.??.??"),
                 HasSubstr("9.2: White claims"), HasSubstr("incorrect"),
                 HasSubstr("Black's clock +0:03:00.0"), HasSubstr("{(=)}"),
                 HasSubstr("accepts the draw offer"), HasSubstr("drawn by agreement")))
      << pgn;
  // 9.1c: the incorrect claim stands as an offer: "(=)" after its intended move, before Black's.
  const size_t intended = pgn.find("Ng1");
  ASSERT_NE(intended, std::string::npos) << pgn;
  EXPECT_LT(pgn.find("{(=)}", intended), pgn.find("Ng8", intended)) << pgn;
  chess::PgnGame game = Check(pgn);
  EXPECT_EQ(game.moves.size(), 5u);  // Nf3 Nf6 Ng1 (the intended move) Ng8 Nf3
  EXPECT_THAT(game.moves[2].comments, ::testing::Contains("(=)"));
  EXPECT_THAT(game.moves[1].comments, ::testing::Not(::testing::Contains("(=)")));
}

TEST(ExportPgnDecidedTest, FoolsMate) {
  DecidedGame g(Request(v1::EDITION_FIDE_2023, "180+2"));
  g.Start(0);
  g.Move(kW, "f3", 1'000);
  g.Move(kB, "e5", 2'000);
  g.Move(kW, "g4", 3'000);
  g.Move(kB, "Dh4", 4'500);  // German letters
  ASSERT_EQ(g.game().status(), GameStatus::kEnded);
  const std::string pgn = Flat(ExportPgn(g.game()));
  EXPECT_THAT(pgn, AllOf(Tag("Result", "0-1"), HasSubstr("2... Qh4#"),
                         HasSubstr("Black wins by checkmate (5.1a)")))
      << pgn;
  Check(pgn);
}

// 2001, 90 minutes: started at kStart, 1. e4 a second later.
Log AfterE4() {
  Log log(NewState(Request(v1::EDITION_FIDE_2001, "5400")));
  log.Start(kStart);
  log.Move(kStart + 1000, v1::COLOR_WHITE, "e2e4", "e4");
  return log;
}

// 9.1a: a draw offer the regulations refused is in the record with its code, after the move
// that stood; no "(=)" marks it.
TEST(ExportPgnTest, RefusedOfferIsRecordedWithItsCode) {
  Log log = AfterE4();
  v1::ArbitrationEvent e;
  e.mutable_draw_offer_refused()->set_side(v1::COLOR_WHITE);
  e.mutable_draw_offer_refused()->set_code("ERR_DRAW_OFFER_REFUSED");
  e.mutable_draw_offer_refused()->set_regulation("no_draw_offers_before_move");
  e.mutable_draw_offer_refused()->set_reason("the regulations allow no draw offers before move 30");
  log.Add(kStart + 1000, e);
  const std::string pgn = Flat(ExportPgn(log.game()));
  EXPECT_THAT(pgn, HasSubstr("} {ERR_DRAW_OFFER_REFUSED: White's draw offer with this move"));
  EXPECT_THAT(pgn, Not(HasSubstr("(=)")));
  EXPECT_FALSE(log.game().draw_offer().has_value());
  Check(ExportPgn(log.game()));
}

// 11.1, 13.4e: the points go in a comment where the pair is not the result's 1 / ½ / 0.
TEST(ExportPgnTest, PointsWhereTheyAreNotTheResults) {
  Log log = AfterE4();
  v1::ArbitrationEvent p;
  p.mutable_power_used()->set_power(v1::ARBITER_POWER_REDUCE_POINTS);
  p.mutable_power_used()->set_side(v1::COLOR_WHITE);
  p.mutable_power_used()->set_points(0.5);
  p.mutable_power_used()->set_article("13.4e");
  p.mutable_power_used()->set_reason("a mobile phone rang");
  log.Add(kStart + 2000, p);
  log.End(kStart + 3000, v1::RESULT_WHITE_WINS, v1::TERMINATION_RESIGNATION, v1::COLOR_WHITE,
          "5.1b");
  EXPECT_THAT(Flat(ExportPgn(log.game())), HasSubstr("points: White 0.5, Black 0"));
  Check(ExportPgn(log.game()));
  // A plain 1-0 says nothing of points.
  Log plain = AfterE4();
  plain.End(kStart + 3000, v1::RESULT_WHITE_WINS, v1::TERMINATION_RESIGNATION, v1::COLOR_WHITE,
            "5.1b");
  EXPECT_THAT(Flat(ExportPgn(plain.game())), Not(HasSubstr("points:")));
}

}  // namespace
}  // namespace arbitration::testing
