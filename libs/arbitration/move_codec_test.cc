#include "libs/arbitration/move_codec.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/chess/position.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {
namespace {

namespace v1 = arbiter::v1;

constexpr char kTypeUrl[] = "type.googleapis.com/arbiter.v1.ArbitrationEvent";
constexpr std::int64_t kRecordedAt = 1'760'000'000'000;

v1::GameEvent EventOf(const v1::ArbitrationEvent& body, std::int64_t recorded_at = kRecordedAt) {
  v1::GameEvent e;
  e.set_version(7);
  e.set_schema_version(1);
  e.set_recorded_at_ms(recorded_at);
  e.mutable_body()->set_type_url(kTypeUrl);
  e.mutable_body()->set_value(body.SerializeAsString());
  return e;
}

// A move as the arbitration writes it (move_rulings.cc AddMove): side, UCI and SAN from the
// position, the mover's clock and thinking time, at the record's instant, by a player.
v1::ArbitrationEvent MoveEvent(const chess::Position& before, chess::Move move) {
  v1::ArbitrationEvent e;
  e.set_at_ms(kRecordedAt);
  e.mutable_actor()->set_subject("player-white-0042");
  e.mutable_actor()->set_role("player");
  v1::MoveMade* m = e.mutable_move();
  m->set_side(before.side_to_move() == chess::Color::kWhite ? v1::COLOR_WHITE : v1::COLOR_BLACK);
  m->set_uci(chess::ToUci(move));
  m->set_san(chess::ToSan(before, move));
  m->set_clock_ms(5'391'234);
  m->set_elapsed_ms(8'766);
  return e;
}

// The form, and that it reads back as the very bytes.
std::string Compact(const v1::GameEvent& event) {
  const auto codec = CompactMoveCodec();
  std::optional<std::string> form = codec->Encode(event);
  if (!form.has_value()) {
    ADD_FAILURE() << "no compact form for " << event.body().value().size() << " bytes";
    return "";
  }
  absl::StatusOr<std::string> back = codec->Decode(*form, event.recorded_at_ms());
  EXPECT_TRUE(back.ok()) << back.status();
  if (back.ok()) EXPECT_EQ(*back, event.body().value());
  return *form;
}

// Every legal move of `fen` and every reply to it, each said exactly by the form.
int CheckTwoPlies(absl::string_view fen) {
  absl::StatusOr<chess::Position> root = chess::ParseFen(fen);
  EXPECT_TRUE(root.ok()) << fen;
  if (!root.ok()) return 0;
  int moves = 0;
  for (chess::Move m : root->LegalMoves()) {
    v1::ArbitrationEvent e = MoveEvent(*root, m);
    const v1::GameEvent event = EventOf(e);
    EXPECT_EQ(CompactMoveCodec()->Decode(Compact(event), kRecordedAt).value_or(""),
              event.body().value())
        << fen << " " << e.move().san();
    ++moves;
    chess::Position after = *root;
    after.PlayUnchecked(m);
    for (chess::Move reply : after.LegalMoves()) {
      Compact(EventOf(MoveEvent(after, reply)));
      ++moves;
    }
  }
  return moves;
}

TEST(CompactMoveCodecTest, EveryMoveAndReplyOfThePerftPositionsIsSaidExactly) {
  // The standard perft positions: castling both ways, en passant, promotions and
  // underpromotions with and without capture, checks, pieces told apart by file, rank or both.
  int moves = 0;
  for (const char* fen : {
           "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
           "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
           "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
           "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
           "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
           "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
           // Three queens that reach one square: the SAN names file and rank (Qh4e1).
           "1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1",
           // Mate in one (#) by a promotion: "e8=Q#" and the underpromotions.
           "6k1/4P3/6K1/8/8/8/8/8 w - - 0 1",
       }) {
    moves += CheckTwoPlies(fen);
  }
  EXPECT_GT(moves, 6'000);
}

TEST(CompactMoveCodecTest, AMoveIsAFewBytesAndItsActorsSubject) {
  absl::StatusOr<chess::Position> start =
      chess::ParseFen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  ASSERT_TRUE(start.ok());
  v1::ArbitrationEvent e = MoveEvent(*start, chess::ParseSan(*start, "Nf3").value());
  const v1::GameEvent event = EventOf(e);
  const std::string form = Compact(event);
  // flags, move, SAN's shape (4), the clock (4), the thinking time (3), the role (1), the
  // subject's length and bytes (1 + 17).
  EXPECT_EQ(form.size(), 4u + 4u + 3u + 1u + 1u + e.actor().subject().size());
  // Without the subject, which both spell out: 12 bytes against 42.
  const size_t subject = e.actor().subject().size();
  EXPECT_GT(event.body().value().size() - subject, 3 * (form.size() - subject));
}

// The subject ends the form, where NameAt says (the store may keep it once per game): the
// subject's length and bytes; a move with no actor has no name.
TEST(CompactMoveCodecTest, TheActorsSubjectIsTheFormsName) {
  absl::StatusOr<chess::Position> start =
      chess::ParseFen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  ASSERT_TRUE(start.ok());
  v1::ArbitrationEvent e = MoveEvent(*start, chess::ParseSan(*start, "Nf3").value());
  for (const std::string role : {"player", "relay-of-board-7"}) {
    e.mutable_actor()->set_role(role);
    const std::string form = Compact(EventOf(e));
    const std::optional<std::size_t> at = CompactMoveCodec()->NameAt(form);
    ASSERT_TRUE(at.has_value()) << role;
    EXPECT_EQ(form.substr(*at), absl::StrCat("\x11", e.actor().subject())) << role;
  }
  e.clear_actor();
  EXPECT_EQ(CompactMoveCodec()->NameAt(Compact(EventOf(e))), std::nullopt);
  EXPECT_EQ(CompactMoveCodec()->NameAt("\x01"), std::nullopt);  // damaged
}

TEST(CompactMoveCodecTest, EveryFieldOfAMoveIsKept) {
  absl::StatusOr<chess::Position> start =
      chess::ParseFen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  ASSERT_TRUE(start.ok());
  v1::ArbitrationEvent base = MoveEvent(*start, chess::ParseSan(*start, "e4").value());
  std::vector<v1::ArbitrationEvent> variants;
  for (int i = 0; i < 10; ++i) variants.push_back(base);
  variants[0].mutable_move()->set_offer_draw(true);           // 9.1
  variants[1].mutable_move()->set_ends_game(true);            // 6.8a
  variants[2].mutable_move()->set_dead_position_asked(true);  // 5.2b
  variants[3].mutable_move()->set_sealed(true);               // A7, A9
  variants[4].set_at_ms(kRecordedAt - 1'234);                 // an instant of its own
  variants[5].mutable_move()->set_lag_ms(-17);                // reported lag
  variants[6].mutable_move()->set_lag_ms(350);
  variants[7].clear_actor();                                  // no actor
  variants[8].mutable_actor()->set_role("relay-of-board-7");  // a role spelled out
  variants[9].mutable_actor()->set_role("server");            // the server's own
  variants[9].mutable_actor()->set_subject("arbiter");
  variants[9].mutable_move()->set_clock_ms(-5);  // a clock past zero
  variants[9].mutable_move()->set_elapsed_ms(0);
  for (const v1::ArbitrationEvent& v : variants) {
    const v1::GameEvent event = EventOf(v);
    const std::string form = Compact(event);
    v1::ArbitrationEvent back;
    ASSERT_TRUE(back.ParseFromString(
        CompactMoveCodec()->Decode(form, event.recorded_at_ms()).value_or("")));
    EXPECT_EQ(back.SerializeAsString(), v.SerializeAsString()) << v.DebugString();
  }
}

TEST(CompactMoveCodecTest, OtherEventsAndUnsayableMovesKeepTheirBytes) {
  const auto codec = CompactMoveCodec();
  EXPECT_EQ(codec->type_url(), kTypeUrl);
  v1::ArbitrationEvent resigned;
  resigned.set_at_ms(kRecordedAt);
  resigned.mutable_resigned();
  EXPECT_FALSE(codec->Encode(EventOf(resigned)).has_value());
  v1::GameEvent garbage = EventOf(resigned);
  garbage.mutable_body()->set_value("\xff\xff\xff");
  EXPECT_FALSE(codec->Encode(garbage).has_value());
  v1::ArbitrationEvent odd;
  odd.mutable_move()->set_side(v1::COLOR_UNSPECIFIED);
  odd.mutable_move()->set_uci("e2e4");
  EXPECT_FALSE(codec->Encode(EventOf(odd)).has_value());
  odd.mutable_move()->set_side(v1::COLOR_WHITE);
  odd.mutable_move()->set_uci("e2e9");
  EXPECT_FALSE(codec->Encode(EventOf(odd)).has_value());
  // A SAN the form cannot say (an annotation): a form is made, but it does not read back as the
  // bytes, which is why the store keeps a form only after decoding it (record.cc CompactBody).
  odd.mutable_move()->set_uci("e2e4");
  odd.mutable_move()->set_san("e4!?");
  const v1::GameEvent annotated = EventOf(odd);
  std::optional<std::string> form = codec->Encode(annotated);
  ASSERT_TRUE(form.has_value());
  EXPECT_NE(codec->Decode(*form, kRecordedAt).value_or(""), annotated.body().value());
}

TEST(CompactMoveCodecTest, ADamagedFormIsRefused) {
  absl::StatusOr<chess::Position> start =
      chess::ParseFen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  ASSERT_TRUE(start.ok());
  const std::string form =
      Compact(EventOf(MoveEvent(*start, chess::ParseSan(*start, "d4").value())));
  const auto codec = CompactMoveCodec();
  for (size_t n = 0; n < form.size(); ++n) {
    EXPECT_FALSE(codec->Decode(form.substr(0, n), kRecordedAt).ok()) << n;
  }
  EXPECT_FALSE(codec->Decode(form + "x", kRecordedAt).ok());
  std::string bad_promotion = form;
  bad_promotion[2] = static_cast<char>(bad_promotion[2] | 0x70);  // promotion 7
  EXPECT_FALSE(codec->Decode(bad_promotion, kRecordedAt).ok());
  std::string bad_piece = form;
  bad_piece[3] = 7;
  EXPECT_FALSE(codec->Decode(bad_piece, kRecordedAt).ok());
}

}  // namespace
}  // namespace arbitration
