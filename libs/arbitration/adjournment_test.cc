// Appendix A (adjourned games) by article: each case gives the position, the sessions, the clock
// times and the expected ruling. The sealed move goes through the service's seal
// (sealed_move.h, a generated master key), as the server does it.
#include "libs/arbitration/adjournment.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/sealed_move.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/seal/seal.h"

namespace arbitration::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::int64_t kMin = 60'000;
constexpr std::int64_t kHour = 60 * kMin;
constexpr std::int64_t kDay = 24 * kHour;
// Session 1 from 1 s to 4 h; session 2 the next day (in Hall B); session 3 the day after.
constexpr std::int64_t kStart1 = 1000;
constexpr std::int64_t kEnd1 = kStart1 + 4 * kHour;
constexpr std::int64_t kStart2 = kDay;
constexpr std::int64_t kStart3 = 2 * kDay;
constexpr char kGameId[] = "g-adjourned";

struct Options {
  std::string fen;
  int sessions = 3;
  std::string time_control = "G/300";  // 5 hours each: no flag in a 4-hour session
};

// The request of a table: Anna (White) and Berta (Black), 2001, the sessions from kStart1.
v1::CreateGameRequest RequestOf(const Options& o) {
  v1::CreateGameRequest req =
      GameRequest({.time_control = o.time_control, .fen = o.fen, .scheduled_start_ms = kStart1});
  req.set_white_name("Anna");
  req.set_black_name("Berta");
  const std::int64_t starts[] = {kStart1, kStart2, kStart3};
  AddSessions(req, absl::MakeConstSpan(starts).first(o.sessions), 4 * kHour,
              {"Hall A", "Hall B", "Hall A"});
  return req;
}

// A game driven through Decide with the service's seal, as the server and `game simulate` do.
class Table : public GameTable {
 public:
  explicit Table(const Options& o = {})
      : GameTable(RequestOf(o)), sealer_(seal::MasterKey::Generate()) {}

  absl::Status Start(std::vector<Color> absent = {}) { return GameTable::Start(kStart1, absent); }
  // A1: the service seals `text` (encrypted) and hands the rulings the box.
  absl::Status Seal(Color side, const std::string& text, std::int64_t at_ms, bool stop = true) {
    absl::StatusOr<v1::MoveSealed> box = sealer_.Seal(kGameId, *game_, text);
    if (!box.ok()) return box.status();
    return Do({.kind = CommandKind::kSealMove, .side = side, .seal = *box, .stop_clock = stop},
              at_ms);
  }
  absl::Status Adjourn(std::int64_t at_ms) {
    return Do({.kind = CommandKind::kAdjourn, .reason = "session over"}, at_ms);
  }
  // The commands that may open the envelope get the sealed move in clear (the service's part).
  absl::Status Resume(std::int64_t at_ms, std::vector<Color> absent = {}) {
    Command c{.kind = CommandKind::kResumeAdjourned, .absent = absent};
    c.opened_move = *sealer_.Open(kGameId, *game_);
    return Do(c, at_ms);
  }
  absl::Status Arrive(Color side, std::int64_t at_ms) {
    Command c{.kind = CommandKind::kArrive, .side = side};
    c.opened_move = *sealer_.Open(kGameId, *game_);
    return Do(c, at_ms);
  }
  absl::Status Lost(std::int64_t at_ms, bool unknown) {
    return Do({.kind = CommandKind::kReportEnvelopeLost,
               .reason = "the envelope is not in the safe",
               .position_unknown = unknown},
              at_ms);
  }
  absl::Status SetClocks(std::int64_t white_ms, std::int64_t black_ms, std::int64_t at_ms) {
    v1::ClocksSet clocks;
    clocks.set_white_ms(white_ms);
    clocks.set_black_ms(black_ms);
    return Do({.kind = CommandKind::kSetClocks,
               .reason = "A12: the clock was set wrongly",
               .article = "6.14",
               .clocks = clocks},
              at_ms);
  }
  // The deadline path with the service's key (GameAuthority::CheckDeadline with the envelope
  // opener): the sealed move in clear when the default may open the envelope (A10).
  void SettleOpeningTo(std::int64_t at_ms) {
    std::optional<std::string> opened;
    if (DefaultOpensEnvelope(*game_)) opened = Sealed();
    SettleTo(at_ms, opened);
  }
  // The sealed move the service would open now.
  std::optional<std::string> Sealed() const { return *sealer_.Open(kGameId, *game_); }
  // Everything the log and the record hold: the events as stored, and the PGN.
  std::string Everything() const {
    std::string out;
    for (const v1::ArbitrationEvent& e : game_->events()) {
      out += e.SerializeAsString();
      out += e.DebugString();
    }
    return out + ExportPgn(*game_);
  }

  const v1::GameAdjourned& envelope() const { return *game_->adjournment().envelope; }
  std::string fen() const { return chess::ToFen(game_->position()); }
  std::string last_san() const { return std::string(game_->san(game_->plies() - 1)); }
  const SealedMoves& sealer() const { return sealer_; }

 private:
  SealedMoves sealer_;
};

// The PGN on one line (the exporter wraps at 80 columns).
std::string Pgn(const GameState& game) {
  std::string pgn = ExportPgn(game);
  for (char& c : pgn) {
    if (c == '\n') c = ' ';
  }
  return pgn;
}

// 1. e4 e5 2. Nf3 Nc6 (the last at 5 s), White to play his third move.
std::int64_t Opening(Table& t) {
  EXPECT_OK(t.Start());
  return t.Play({"e4", "e5", "Nf3", "Nc6"}, 2000);
}
constexpr char kFenBeforeSeal[] =
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

// Adjourned at the end of session 1 with 3. Bb5 sealed.
void Adjourned(Table& t) {
  Opening(t);
  ASSERT_OK(t.Seal(kW, "Bb5", kEnd1 + 10'000));
  ASSERT_EQ(t.game().status(), GameStatus::kAdjourned);
}

void ExpectEnded(const Table& t, Result result, Termination termination,
                 const std::string& article) {
  EXPECT_EQ(t.game().status(), GameStatus::kEnded);
  EXPECT_EQ(t.game().outcome().result, result);
  EXPECT_EQ(t.game().outcome().termination, termination);
  EXPECT_EQ(t.game().outcome().article, article);
}

// --- A1, A2, A3: sealing and the envelope -------------------------------------------------------

TEST(AppendixA1, ThePlayerOnMoveSealsAndMayChangeItUntilHisClockStops) {
  Table t;
  Opening(t);
  EXPECT_THAT(t.Seal(kB, "a6", kEnd1), HasErrorCode("ERR_NOT_YOUR_TURN"));
  ASSERT_OK(t.Seal(kW, "Bb5", kEnd1 + 10'000, /*stop=*/false));
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);  // his clock still runs
  EXPECT_EQ(t.Sealed(), "Bb5");
  EXPECT_FALSE(t.game().adjournment().sealed->early());
  // "Solange er die Uhren noch nicht angehalten hat, behält der Spieler das Recht, seinen
  // Abgabezug zu ändern."
  ASSERT_OK(t.Seal(kW, "Bc4", kEnd1 + 20'000, /*stop=*/false));
  EXPECT_EQ(t.Sealed(), "Bc4");
  // A move on the board now is refused: the move goes into the envelope.
  EXPECT_THAT(t.Move(kW, "Bc4", kEnd1 + 25'000), HasErrorCode("ERR_SEAL_CALLED"));
  const std::int64_t white_at_stop = t.ms(kW, kEnd1 + 30'000);
  const std::int64_t black_at_stop = t.ms(kB, kEnd1 + 30'000);
  // The arbiter sees the envelope sealed and the clock stopped.
  ASSERT_OK(t.Adjourn(kEnd1 + 30'000));
  EXPECT_EQ(t.game().status(), GameStatus::kAdjourned);
  EXPECT_EQ(GameStatusName(t.game().status()), "adjourned");
  // A2: the envelope's record.
  const v1::GameAdjourned& env = t.envelope();
  EXPECT_EQ(env.white_name(), "Anna");
  EXPECT_EQ(env.black_name(), "Berta");
  EXPECT_EQ(env.fen_before(), kFenBeforeSeal);
  EXPECT_EQ(env.sealer(), v1::COLOR_WHITE);
  EXPECT_EQ(env.move_number(), 3);
  EXPECT_EQ(env.white_ms(), white_at_stop);
  EXPECT_EQ(env.black_ms(), black_at_stop);
  // White used 1 s for each of his two moves and his third from 5 s to the stop.
  EXPECT_EQ(env.white_used_ms(), 2000 + (kEnd1 + 30'000 - 5000));
  EXPECT_EQ(env.black_used_ms(), 2000);
  EXPECT_EQ(env.resume_at_ms(), kStart2);
  EXPECT_EQ(env.resume_place(), "Hall B");
  EXPECT_EQ(env.session(), 1);
  EXPECT_EQ(env.draw_offer(), v1::COLOR_UNSPECIFIED);
  // The clocks stand still until the resumption (A5).
  EXPECT_EQ(t.ms(kW, kEnd1 + 31'000), t.ms(kW, kStart2 - 1));
  EXPECT_EQ(t.ms(kB, kEnd1 + 31'000), black_at_stop);
  EXPECT_THAT(t.Seal(kW, "Bb5", kEnd1 + 40'000), HasErrorCode("ERR_GAME_ADJOURNED"));
  EXPECT_THAT(t.Move(kW, "Bc4", kEnd1 + 40'000), HasErrorCode("ERR_GAME_ADJOURNED"));
}

TEST(AppendixA1, TheSealedMoveIsNowhereInClearUntilOpened) {  // A3: the arbiter keeps it safe
  Table t;
  Adjourned(t);
  const std::string all = t.Everything();
  for (const char* text : {"Bb5", "f1b5", "Lb5"}) EXPECT_THAT(all, Not(HasSubstr(text))) << text;
  EXPECT_THAT(Pgn(t.game()), HasSubstr("A1, A2: the game is adjourned, White has sealed"));
  EXPECT_THAT(Pgn(t.game()), HasSubstr("resumption"));
  // The box opens only with the game's id (the associated data) and the server's key.
  EXPECT_THAT(t.sealer().Open("another-game", t.game()).status(),
              HasErrorCode("ERR_SEAL_UNREADABLE"));
  EXPECT_THAT(SealedMoves(seal::MasterKey::Generate()).Open(kGameId, t.game()).status(),
              HasErrorCode("ERR_SEAL_UNREADABLE"));
  EXPECT_THAT(SealedMoves(std::nullopt).Open(kGameId, t.game()).status(),
              HasErrorCode("ERR_SEAL_KEY_MISSING"));
  // Opened at the resumption: now in the record, in clear.
  ASSERT_OK(t.Resume(kStart2));
  EXPECT_THAT(t.Everything(), HasSubstr("Bb5"));
  EXPECT_THAT(Pgn(t.game()), HasSubstr("3. Bb5"));
  EXPECT_THAT(Pgn(t.game()), HasSubstr("A9: the sealed move, opened by the arbiter"));
}

// A3: the sealed move is the sealer's and the arbiter's secret; its box's size must not tell
// "a3" from "exd8=Q+" (nor "O-O" from "O-O-O").
TEST(AppendixA1, EveryBoxHasTheSameSize) {
  Table t;
  Opening(t);
  std::set<std::size_t> sizes;
  for (const char* move : {"a3", "Bb5", "O-O", "exd8=Q+", "Nbd2", "d2d4", "Lxf7+"}) {
    absl::StatusOr<v1::MoveSealed> box = t.sealer().Seal(kGameId, t.game(), move);
    ASSERT_OK(box.status()) << move;
    sizes.insert(box->box().size());
  }
  EXPECT_EQ(sizes.size(), 1u);
  EXPECT_EQ(*sizes.begin(), kSealedPlaintextBytes + seal::kNonceBytes + seal::kTagBytes);
  ASSERT_OK(t.Seal(kW, "Bb5", kEnd1 + 10'000));
  EXPECT_EQ(t.Sealed(), "Bb5");  // opens to the text alone
}

// Boxes sealed before the padding hold the bare text and still open.
TEST(AppendixA1, AnUnpaddedBoxStillOpens) {
  EXPECT_EQ(*UnpadSealedMove("Bb5"), "Bb5");
  EXPECT_EQ(*UnpadSealedMove(std::string(32, 'x')), std::string(32, 'x'));
  EXPECT_EQ(*UnpadSealedMove(PadSealedMove("exd8=Q+")), "exd8=Q+");
  std::string damaged = PadSealedMove("Bb5");
  damaged[1] = 40;
  EXPECT_FALSE(UnpadSealedMove(damaged).ok());
}

TEST(AppendixA1, WithoutASealKeyNothingIsSealed) {
  Table t;
  Opening(t);
  EXPECT_THAT(SealedMoves(std::nullopt).Seal(kGameId, t.game(), "Bb5").status(),
              HasErrorCode("ERR_SEAL_KEY_MISSING"));
}

TEST(AppendixA1, ABoxIsBoundToTheVersionItWasSealedOn) {
  Table t;
  Opening(t);
  absl::StatusOr<v1::MoveSealed> box = t.sealer().Seal(kGameId, t.game(), "Bb5");
  ASSERT_OK(box.status());
  ASSERT_OK(t.Do({.kind = CommandKind::kOfferDraw, .side = kB}, kEnd1));
  EXPECT_THAT(
      t.Do({.kind = CommandKind::kSealMove, .side = kW, .seal = *box, .stop_clock = true}, kEnd1),
      HasErrorCode("ERR_VERSION_CONFLICT"));
}

TEST(AppendixA1, TheArbiterCallsForTheSeal) {  // A1a
  Table t;
  Opening(t);
  ASSERT_OK(t.Adjourn(kEnd1));
  EXPECT_TRUE(t.game().adjournment().seal_called);
  EXPECT_THAT(t.Move(kW, "Bb5", kEnd1 + 1000), HasErrorCode("ERR_SEAL_CALLED"));
  EXPECT_THAT(t.Adjourn(kEnd1 + 2000), HasErrorCode("ERR_SEAL_CALLED"));
  ASSERT_OK(t.Seal(kW, "Bb5", kEnd1 + 60'000));  // he stops his clock: the envelope closes
  EXPECT_EQ(t.game().status(), GameStatus::kAdjourned);
  EXPECT_FALSE(t.game().adjournment().seal_called);
}

TEST(AppendixA1, LeavingEarlyIsSealingAtTheSessionsEnd) {  // A1b
  Table t;
  Opening(t);
  const std::int64_t white_at_end = t.ms(kW, kEnd1);
  ASSERT_OK(t.Seal(kW, "Bb5", kEnd1 - 10 * kMin));
  EXPECT_TRUE(t.game().adjournment().sealed->early());
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);  // his clock runs to the scheduled end
  EXPECT_EQ(NextDeadline(t.game()), kEnd1);
  t.SettleTo(kEnd1 + 1);
  ASSERT_EQ(t.game().status(), GameStatus::kAdjourned);
  EXPECT_EQ(t.envelope().white_ms(), white_at_end);  // charged until the end
  EXPECT_EQ(t.game().last_event_ms(), kEnd1);
}

TEST(AppendixA1, LeavingEarlyHisFlagMayFallBeforeTheEnd) {  // A1b with 6.9
  Table t;
  Opening(t);
  ASSERT_OK(t.SetClocks(5 * kMin, 2 * kHour, kEnd1 - 10 * kMin));
  ASSERT_OK(t.Seal(kW, "Bb5", kEnd1 - 10 * kMin));
  t.SettleTo(kEnd1 + 1);
  ExpectEnded(t, Result::kBlackWins, Termination::kTimeForfeit, "6.10");
  EXPECT_EQ(t.game().ended_at_ms(), kEnd1 - 5 * kMin);
}

// --- A2f, A4, A6: offers, agreement and resignation across the adjournment -----------------------

TEST(AppendixA2, APendingDrawOfferIsOnTheEnvelope) {  // A2f
  Table t;
  ASSERT_OK(t.Start());
  t.Play({"e4", "e5", "Nf3"}, 2000);
  ASSERT_OK(t.Move(kB, "Nc6", 5000, /*offer=*/true));
  ASSERT_OK(t.Seal(kW, "Bb5", kEnd1));
  EXPECT_EQ(t.envelope().draw_offer(), v1::COLOR_BLACK);
  EXPECT_THAT(Pgn(t.game()), HasSubstr("Black's draw offer stands"));
}

TEST(AppendixA4, AnOfferAfterTheSealStandsUntilAnswered) {
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Do({.kind = CommandKind::kOfferDraw, .side = kB}, kEnd1 + kHour));
  EXPECT_EQ(t.game().draw_offer(), kB);
  ASSERT_OK(t.Resume(kStart2));
  EXPECT_EQ(t.last_san(), "Bb5");
  EXPECT_EQ(t.game().draw_offer(), kB);  // the sealed move does not reject it
  ASSERT_OK(t.Do({.kind = CommandKind::kAcceptDraw, .side = kW}, kStart2 + kMin));
  ExpectEnded(t, Result::kDraw, Termination::kAgreement, "9.1");
}

TEST(AppendixA6, AgreementBeforeTheResumptionEndsTheGame) {
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Do({.kind = CommandKind::kOfferDraw, .side = kW}, kEnd1 + kHour));
  ASSERT_OK(t.Do({.kind = CommandKind::kAcceptDraw, .side = kB}, kEnd1 + 2 * kHour));
  ExpectEnded(t, Result::kDraw, Termination::kAgreement, "9.1");
  EXPECT_THAT(t.Everything(), Not(HasSubstr("Bb5")));
}

TEST(AppendixA6, ResignationBeforeTheResumptionEndsTheGameTheMoveStaysSealed) {
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Do({.kind = CommandKind::kResign, .side = kB}, kEnd1 + kHour));
  ExpectEnded(t, Result::kWhiteWins, Termination::kResignation, "5.1b");
  EXPECT_THAT(t.Everything(), Not(HasSubstr("Bb5")));
  EXPECT_THAT(t.Resume(kStart2), HasErrorCode("ERR_NOT_ADJOURNED"));
}

// --- A5, A7, A9, A13: the resumption -------------------------------------------------------------

TEST(AppendixA5, ThePositionAndTheTimesAtTheResumption) {  // A5, A7, A9a, A13
  Table t;
  Adjourned(t);
  const v1::GameAdjourned env = t.envelope();
  // A13: the arbiter's clock governs the session's start.
  EXPECT_THAT(t.Resume(kStart2 - 1), HasErrorCode("ERR_SESSION_NOT_STARTED"));
  EXPECT_EQ(t.fen(), kFenBeforeSeal);
  ASSERT_OK(t.Resume(kStart2 + 5000));
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  // A9a: opened, played on the board, the replier's clock runs.
  EXPECT_EQ(t.last_san(), "Bb5");
  EXPECT_EQ(t.game().event(t.game().version() - 1).move().sealed(), true);
  EXPECT_EQ(t.game().to_move(), kB);
  EXPECT_EQ(t.ms(kW, kStart2 + kHour), env.sealer_clock_ms());
  EXPECT_EQ(t.ms(kB, kStart2 + 65'000), env.black_ms() - 60'000);
  ASSERT_OK(t.Move(kB, "a6", kStart2 + 65'000));
  EXPECT_EQ(t.ms(kB, kStart2 + kHour), env.black_ms() - 60'000);
  // The log replays to the same game (a restarted server).
  absl::StatusOr<GameState> replayed = GameState::Replay(t.game().events());
  ASSERT_OK(replayed.status());
  EXPECT_EQ(chess::ToFen(replayed->position()), t.fen());
  EXPECT_EQ(replayed->RemainingMs(kW, kStart2 + kHour), t.ms(kW, kStart2 + kHour));
}

TEST(AppendixA9, TheReplierAbsentHisClockRunsTheEnvelopeWaits) {  // A7, A9b
  Table t;
  Adjourned(t);
  const v1::GameAdjourned env = t.envelope();
  ASSERT_OK(t.Resume(kStart2, {kB}));
  EXPECT_EQ(t.fen(), kFenBeforeSeal);  // A7: not opened without him
  EXPECT_TRUE(t.game().adjournment().envelope.has_value());
  EXPECT_EQ(t.game().clock().running(), kB);
  EXPECT_THAT(t.Move(kB, "a6", kStart2 + kMin), HasErrorCode("ERR_SEALED_MOVE_UNOPENED"));
  EXPECT_THAT(t.Move(kW, "Bc4", kStart2 + kMin), HasErrorCode("ERR_SEALED_MOVE_UNOPENED"));
  EXPECT_THAT(t.Everything(), Not(HasSubstr("Bb5")));
  ASSERT_OK(t.Arrive(kB, kStart2 + 20 * kMin));
  EXPECT_EQ(t.last_san(), "Bb5");
  EXPECT_EQ(t.ms(kB, kStart2 + 20 * kMin), env.black_ms() - 20 * kMin);
  ASSERT_OK(t.Move(kB, "a6", kStart2 + 21 * kMin));
}

TEST(AppendixA9, TheSealerAbsentTheReplyGoesIntoASecondEnvelope) {  // A9c
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Resume(kStart2, {kW}));
  EXPECT_EQ(t.last_san(), "Bb5");  // the replier is present: A9a
  const std::int64_t white_before = t.ms(kW, kStart2 + 10 * kMin);
  ASSERT_OK(t.Seal(kB, "a6", kStart2 + 10 * kMin, /*stop=*/false));  // closes at once
  EXPECT_TRUE(t.game().adjournment().envelope->reply());
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  EXPECT_EQ(t.game().clock().running(), kW);  // he started the sealer's clock
  EXPECT_EQ(t.ms(kW, kStart2 + 20 * kMin), white_before - 10 * kMin);
  EXPECT_THAT(t.Everything(), Not(HasSubstr("a7a6")));
  EXPECT_THAT(Pgn(t.game()), HasSubstr("A9c: Black seals his reply"));
  ASSERT_OK(t.Arrive(kW, kStart2 + 30 * kMin));  // opened on the sealer's arrival
  EXPECT_EQ(t.last_san(), "a6");
  EXPECT_EQ(t.game().to_move(), kW);
  ASSERT_OK(t.Move(kW, "Ba4", kStart2 + 31 * kMin));
  absl::StatusOr<GameState> replayed = GameState::Replay(t.game().events());
  ASSERT_OK(replayed.status());
  EXPECT_EQ(chess::ToFen(replayed->position()), t.fen());
}

// White seals `text` at the end of session 1; the game resumes with both present (A9).
void SealAndResume(Table& t, const std::string& text) {
  ASSERT_OK(t.Seal(kW, text, kEnd1));
  ASSERT_OK(t.Resume(kStart2));
}

// --- A8: a sealed move that loses ----------------------------------------------------------------

TEST(AppendixA8, AnIllegalSealedMoveLoses) {
  Table t;
  Opening(t);
  SealAndResume(t, "Bb6");
  ExpectEnded(t, Result::kBlackWins, Termination::kSealedMoveInvalid, "A8");
  EXPECT_THAT(t.game().proof(), HasSubstr("\"Bb6\""));
}

TEST(AppendixA8, AnAmbiguousSealedMoveLoses) {
  Table t;
  ASSERT_OK(t.Start());
  t.Play({"d4", "d5", "Nf3", "Nf6"}, 2000);  // Nb1 and Nf3 both reach d2
  SealAndResume(t, "Nd2");
  ExpectEnded(t, Result::kBlackWins, Termination::kSealedMoveInvalid, "A8");
}

TEST(AppendixA8, AnUnreadableSealedMoveLosesOnArrival) {  // A8b with A9b
  Table t;
  Opening(t);
  ASSERT_OK(t.Seal(kW, "xyz", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kB}));
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  ASSERT_OK(t.Arrive(kB, kStart2 + kMin));
  ExpectEnded(t, Result::kBlackWins, Termination::kSealedMoveInvalid, "A8");
}

TEST(AppendixA8, ExceptWhereTheOpponentCannotMate) {    // A8 with 9.6
  Table t({.fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 40"});  // Black has a lone king
  ASSERT_OK(t.Start());
  SealAndResume(t, "Ra9");
  ExpectEnded(t, Result::kDraw, Termination::kSealedMoveInvalid, "A8");
  EXPECT_THAT(t.game().proof(), HasSubstr("9.6"));
}

// --- A10: more than an hour late -----------------------------------------------------------------

TEST(AppendixA10, TheAbsentSealerLosesAnHourAfterTheSessionsStart) {
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Resume(kStart2, {kW}));
  ASSERT_OK(t.Move(kB, "a6", kStart2 + 5 * kMin));
  EXPECT_EQ(NextDeadline(t.game()), kStart2 + kHour + 1);  // counted from the session's start
  t.SettleTo(kStart2 + kHour);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  t.SettleTo(kStart2 + kHour + 1);
  ExpectEnded(t, Result::kBlackWins, Termination::kDefault, "6.7");
}

TEST(AppendixA10, TheAbsentReplierLosesTheMoveStaysSealed) {
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Resume(kStart2, {kB}));
  t.SettleTo(kStart2 + kHour + 1);
  ExpectEnded(t, Result::kWhiteWins, Termination::kDefault, "6.7");
  EXPECT_THAT(t.Everything(), Not(HasSubstr("Bb5")));
}

TEST(AppendixA10, TheAbsentSealerWhoseMoveMatesWins) {  // A10a
  Table t({.fen = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Seal(kW, "Qxf7#", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kW}));
  ExpectEnded(t, Result::kWhiteWins, Termination::kCheckmate, "5.1a");
}

TEST(AppendixA10, TheAbsentSealerWhoseMoveStalematesDraws) {  // A10b
  Table t({.fen = "7k/8/6Q1/8/8/8/8/K7 w - - 0 1"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Seal(kW, "Qf7", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kW}));
  EXPECT_EQ(t.game().outcome().result, Result::kDraw);
  EXPECT_EQ(t.game().outcome().termination, Termination::kStalemate);
}

TEST(AppendixA10, UnlessThePresentPlayerLostOnTime) {  // A10c, 6.9; A12 sets his clock
  Table t;
  Adjourned(t);
  ASSERT_OK(t.SetClocks(2 * kHour, 5 * kMin, kEnd1 + kHour));
  ASSERT_OK(t.Resume(kStart2, {kW}));
  t.SettleTo(kStart2 + kHour + 1);
  ExpectEnded(t, Result::kWhiteWins, Termination::kTimeForfeit, "6.10");
  EXPECT_EQ(t.game().ended_at_ms(), kStart2 + 5 * kMin);
}

// A10 with both players absent at the resumption: the envelope waits for the replier (A9b), so it
// is still closed when the default falls; the server opens it to see whether the absent sealer's
// move mates (A10a), stalemates or reaches a dead position (A10b).
constexpr char kMateInOne[] = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

TEST(AppendixA10, BothAbsentTheEnvelopeIsOpenedAndTheSealedMateWins) {  // A10a
  Table t({.fen = kMateInOne});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Seal(kW, "Qxf7#", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kW, kB}));
  EXPECT_EQ(t.fen(), kMateInOne);  // A7: not opened without the replier
  EXPECT_TRUE(DefaultOpensEnvelope(t.game()));
  EXPECT_EQ(NextDeadline(t.game()), kStart2 + kHour + 1);
  t.SettleOpeningTo(kStart2 + kHour);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  EXPECT_THAT(t.Everything(), Not(HasSubstr("f3f7")));
  t.SettleOpeningTo(kStart2 + kHour + 1);
  ExpectEnded(t, Result::kWhiteWins, Termination::kCheckmate, "5.1a");
  EXPECT_EQ(t.last_san(), "Qxf7#");
  EXPECT_EQ(t.game().ended_at_ms(), kStart2 + kHour + 1);
  EXPECT_THAT(t.game().proof(), HasSubstr("A10a"));
  EXPECT_THAT(Pgn(t.game()), HasSubstr("4. Qxf7#"));
}

TEST(AppendixA10, BothAbsentTheSealedStalemateDraws) {  // A10b
  Table t({.fen = "7k/8/6Q1/8/8/8/8/K7 w - - 0 1"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Seal(kW, "Qf7", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kW, kB}));
  t.SettleOpeningTo(kStart2 + kHour + 1);
  ExpectEnded(t, Result::kDraw, Termination::kStalemate, "5.2a");
  EXPECT_THAT(t.game().proof(), HasSubstr("A10b"));
}

TEST(AppendixA10, BothAbsentTheSealedMoveReachesADeadPosition) {  // A10b with 9.6
  // White takes Black's last piece: king and bishop against king, no mate possible.
  Table t({.fen = "4k3/8/8/8/8/8/3n4/4K2B w - - 0 50"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Seal(kW, "Kxd2", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kW, kB}));
  t.SettleOpeningTo(kStart2 + kHour + 1);
  EXPECT_EQ(t.game().status(), GameStatus::kEnded);
  EXPECT_EQ(t.game().outcome().result, Result::kDraw);
  EXPECT_EQ(t.game().outcome().termination, Termination::kDeadPosition);
  EXPECT_EQ(t.last_san(), "Kxd2");
  EXPECT_THAT(t.game().proof(), HasSubstr("A10b"));
}

TEST(AppendixA10, BothAbsentAnOrdinarySealedMoveBothLose) {
  Table t;
  Adjourned(t);  // 3. Bb5 sealed
  ASSERT_OK(t.Resume(kStart2, {kW, kB}));
  t.SettleOpeningTo(kStart2 + kHour + 1);
  ExpectEnded(t, Result::kDoubleForfeit, Termination::kDefault, "6.7");
  EXPECT_EQ(t.fen(), kFenBeforeSeal);  // no exception: not played on the board
  EXPECT_THAT(t.game().proof(), HasSubstr("3. Bb5 neither mates"));
}

TEST(AppendixA10, BothAbsentAnIllegalSealedMoveBothLose) {  // A10 with A8
  Table t;
  Opening(t);
  ASSERT_OK(t.Seal(kW, "Bb6", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kW, kB}));
  t.SettleOpeningTo(kStart2 + kHour + 1);
  ExpectEnded(t, Result::kDoubleForfeit, Termination::kDefault, "6.7");
  EXPECT_THAT(t.game().proof(), HasSubstr("(A8)"));
}

TEST(AppendixA10, BothAbsentWithoutASealKeyTheEnvelopeStaysClosedBothLose) {
  Table t({.fen = kMateInOne});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Seal(kW, "Qxf7#", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kW, kB}));
  t.SettleTo(kStart2 + kHour + 1);  // the server cannot open it: today's ruling, said so
  ExpectEnded(t, Result::kDoubleForfeit, Termination::kDefault, "6.7");
  EXPECT_THAT(t.game().proof(), HasSubstr("no seal key"));
  EXPECT_THAT(t.Everything(), Not(HasSubstr("f3f7")));
}

TEST(AppendixA10, ACommandAfterTheHourFindsTheSealedMateFirst) {  // A10a before the command
  Table t({.fen = kMateInOne});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Seal(kW, "Qxf7#", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kW, kB}));
  // The sealer comes 2 hours late: the default fell before, with his mate (the service opened
  // the envelope for the command, as for the deadline path).
  EXPECT_THAT(t.Arrive(kW, kStart2 + 2 * kHour), HasErrorCode("ERR_GAME_OVER"));
  ExpectEnded(t, Result::kWhiteWins, Termination::kCheckmate, "5.1a");
  EXPECT_EQ(t.game().ended_at_ms(), kStart2 + kHour + 1);
}

TEST(AppendixA10, TheSealerArrivedInTimeTheAbsentReplierLoses) {  // A10, one absent
  Table t({.fen = kMateInOne});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Seal(kW, "Qxf7#", kEnd1));
  ASSERT_OK(t.Resume(kStart2, {kW, kB}));
  ASSERT_OK(t.Arrive(kW, kStart2 + 10 * kMin));
  EXPECT_FALSE(DefaultOpensEnvelope(t.game()));  // the envelope waits for the replier (A7)
  t.SettleOpeningTo(kStart2 + kHour + 1);
  ExpectEnded(t, Result::kWhiteWins, Termination::kDefault, "6.7");
  EXPECT_THAT(t.Everything(), Not(HasSubstr("f3f7")));
}

// --- A11: the envelope lost ----------------------------------------------------------------------

TEST(AppendixA11, ResumedFromTheRecordedPositionAndTimes) {  // A11a
  Table t;
  Adjourned(t);
  const v1::GameAdjourned env = t.envelope();
  ASSERT_OK(t.Lost(kEnd1 + kHour, /*unknown=*/false));
  EXPECT_EQ(t.game().status(), GameStatus::kAdjourned);
  EXPECT_FALSE(t.game().adjournment().envelope.has_value());
  EXPECT_EQ(t.game().clock().moves(kW), 2);  // the sealed move no longer counts
  ASSERT_OK(t.Resume(kStart2));
  EXPECT_EQ(t.fen(), kFenBeforeSeal);
  EXPECT_EQ(t.game().clock().running(), kW);  // the sealer makes his move on the board
  EXPECT_EQ(t.ms(kW, kStart2 + kMin), env.white_ms() - kMin);
  EXPECT_EQ(t.ms(kB, kStart2 + kMin), env.black_ms());
  ASSERT_OK(t.Move(kW, "Bb5", kStart2 + kMin));
  EXPECT_THAT(Pgn(t.game()), HasSubstr("A11: the envelope is lost"));
}

TEST(AppendixA11, ThePositionCannotBeEstablishedTheGameIsVoid) {  // A11b
  Table t;
  Adjourned(t);
  EXPECT_THAT(t.Do({.kind = CommandKind::kReportEnvelopeLost}, kEnd1 + kHour),
              HasErrorCode("ERR_BAD_ARGUMENT"));  // a reason is required
  ASSERT_OK(t.Lost(kEnd1 + kHour, /*unknown=*/true));
  ExpectEnded(t, Result::kAnnulled, Termination::kArbiterDecision, "A11b");
}

// "Wenn der Umschlag mit dem Abgabezug abhanden gekommen ist, wird die Partie aus der Stellung
// und mit den Uhrzeiten, wie sie bei Partieabbruch aufgezeichnet worden waren, fortgesetzt": the
// text does not stop at the resumption. The envelope that waits for the absent replier (A9b).
TEST(AppendixA11, LostAfterTheResumptionWhileItWaitsForTheReplier) {  // A11a with A9b
  Table t;
  Adjourned(t);
  const v1::GameAdjourned env = t.envelope();
  ASSERT_OK(t.Resume(kStart2, {kB}));
  EXPECT_EQ(t.game().clock().running(), kB);
  ASSERT_OK(t.Lost(kStart2 + 10 * kMin, /*unknown=*/false));
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  EXPECT_FALSE(t.game().adjournment().envelope.has_value());
  EXPECT_EQ(t.fen(), kFenBeforeSeal);
  // The recorded times of the adjournment; the sealer's clock runs, he plays his move.
  EXPECT_EQ(t.game().clock().running(), kW);
  EXPECT_EQ(t.game().clock().moves(kW), 2);
  EXPECT_EQ(t.ms(kB, kStart2 + 11 * kMin), env.black_ms());
  EXPECT_EQ(t.ms(kW, kStart2 + 11 * kMin), env.white_ms() - kMin);
  ASSERT_OK(t.Move(kW, "Bb5", kStart2 + 11 * kMin));
  // The replier is still absent: his default counts from the session's start (A10).
  t.SettleTo(kStart2 + kHour + 1);
  ExpectEnded(t, Result::kWhiteWins, Termination::kDefault, "6.7");
}

TEST(AppendixA11, TheRepliesSecondEnvelopeLost) {  // A11a with A9c
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Resume(kStart2, {kW}));  // 3. Bb5 opened: Black present
  ASSERT_OK(t.Seal(kB, "a6", kStart2 + 10 * kMin));
  const v1::GameAdjourned reply = t.envelope();
  ASSERT_TRUE(reply.reply());
  ASSERT_OK(t.Lost(kStart2 + 20 * kMin, /*unknown=*/false));
  EXPECT_EQ(t.game().clock().running(), kB);  // Black makes his reply on the board
  EXPECT_EQ(t.ms(kW, kStart2 + 21 * kMin), reply.white_ms());
  EXPECT_EQ(t.ms(kB, kStart2 + 21 * kMin), reply.black_ms() - kMin);
  ASSERT_OK(t.Move(kB, "a6", kStart2 + 21 * kMin));
  EXPECT_EQ(t.game().clock().running(), kW);
}

TEST(AppendixA11, LostAfterTheResumptionThePositionUnknownTheGameIsVoid) {  // A11b
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Resume(kStart2, {kB}));
  ASSERT_OK(t.Lost(kStart2 + 10 * kMin, /*unknown=*/true));
  ExpectEnded(t, Result::kAnnulled, Termination::kArbiterDecision, "A11b");
}

TEST(AppendixA11, OnlyAClosedEnvelopeIsLost) {
  Table t;
  Opening(t);
  EXPECT_THAT(t.Lost(kEnd1, false), HasErrorCode("ERR_NOT_ADJOURNED"));
  // Opened at the resumption (A9a): no envelope waits any more.
  ASSERT_OK(t.Seal(kW, "Bb5", kEnd1));
  ASSERT_OK(t.Resume(kStart2));
  EXPECT_THAT(t.Lost(kStart2 + kMin, false), HasErrorCode("ERR_NOT_ADJOURNED"));
}

// --- A12: a wrongly set clock
// ----------------------------------------------------------------------

TEST(AppendixA12, AWrongClockIsCorrectedBeforeTheFirstMove) {
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Resume(kStart2));  // Black to reply to 3. Bb5
  ASSERT_OK(t.SetClocks(2 * kHour, kHour, kStart2 + kMin));
  EXPECT_EQ(t.ms(kB, kStart2 + 2 * kMin), kHour - kMin);
  EXPECT_EQ(t.ms(kW, kStart2 + 2 * kMin), 2 * kHour);
}

// --- A13: the sessions
// ----------------------------------------------------------------------------

TEST(AppendixA13, SessionsAreInOrderAndAGameNeedsALaterOneToAdjourn) {
  v1::CreateGameRequest req;
  req.set_white_id("w");
  req.set_black_id("b");
  req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2001);
  req.set_time_control("G/300");
  v1::Session* a = req.add_sessions();
  a->set_start_ms(1000);
  a->set_end_ms(5000);
  v1::Session* b = req.add_sessions();
  b->set_start_ms(4000);  // overlaps the first
  b->set_end_ms(9000);
  EXPECT_THAT(NewGame(req, 0, v1::Actor()).status(), HasErrorCode("ERR_BAD_ARGUMENT"));

  Table t({.sessions = 1});
  Opening(t);
  EXPECT_THAT(t.Seal(kW, "Bb5", kEnd1), HasErrorCode("ERR_NO_SESSION"));
  EXPECT_THAT(t.Adjourn(kEnd1), HasErrorCode("ERR_NO_SESSION"));
}

TEST(AppendixA13, AGameAdjournsAgainInALaterSession) {
  Table t;
  Adjourned(t);
  ASSERT_OK(t.Resume(kStart2));
  ASSERT_OK(t.Move(kB, "a6", kStart2 + kMin));
  // The arbiter may adjourn before the session's end (A1a): the seal is then not early.
  ASSERT_OK(t.Adjourn(kStart2 + 30 * kMin));
  ASSERT_OK(t.Seal(kW, "Ba4", kStart2 + 31 * kMin));
  EXPECT_EQ(t.envelope().resume_at_ms(), kStart3);
  EXPECT_EQ(t.envelope().session(), 2);
  EXPECT_THAT(t.Resume(kStart2 + 5 * kHour), HasErrorCode("ERR_SESSION_NOT_STARTED"));
  ASSERT_OK(t.Resume(kStart3));
  EXPECT_EQ(t.last_san(), "Ba4");
}

}  // namespace
}  // namespace arbitration::testing
