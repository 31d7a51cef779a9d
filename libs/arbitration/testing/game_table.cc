#include "libs/arbitration/testing/game_table.h"

#include <utility>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/chess/pgn.h"

namespace arbitration::testing {

v1::CreateGameRequest GameRequest(const TableOptions& o) {
  v1::CreateGameRequest req;
  req.set_white_id("w");
  req.set_black_id("b");
  v1::Regulations* regulations = req.mutable_ruleset()->mutable_regulations();
  req.mutable_ruleset()->set_edition(o.edition);
  regulations->set_arbiter_present(o.arbiter_present);
  if (o.default_time_ms) regulations->set_default_time_ms(*o.default_time_ms);
  regulations->set_no_draw_offers_before_move(o.no_offers_before);
  regulations->set_max_draw_offers(o.max_offers);
  if (o.illegal_move_extra_ms) regulations->set_illegal_move_extra_ms(*o.illegal_move_extra_ms);
  req.set_time_control(o.time_control);
  req.set_start_fen(o.fen);
  req.set_scheduled_start_ms(o.scheduled_start_ms);
  return req;
}

void AddSessions(v1::CreateGameRequest& req, absl::Span<const std::int64_t> starts,
                 std::int64_t length_ms, absl::Span<const char* const> places) {
  for (std::size_t i = 0; i < starts.size(); ++i) {
    v1::Session* s = req.add_sessions();
    s->set_start_ms(starts[i]);
    s->set_end_ms(starts[i] + length_ms);
    if (i < places.size()) s->set_place(places[i]);
  }
}

v1::Actor Who(const std::string& subject, const std::string& role) {
  v1::Actor a;
  a.set_subject(subject);
  a.set_role(role);
  return a;
}

GameTable::GameTable(const v1::CreateGameRequest& req) {
  absl::StatusOr<v1::ArbitrationEvent> created = NewGame(req, 0, v1::Actor());
  EXPECT_OK(created.status());
  absl::StatusOr<GameState> state = GameState::Create(*created);
  EXPECT_OK(state.status());
  game_ = std::make_unique<GameState>(*std::move(state));
}

absl::Status GameTable::Do(Command c, std::int64_t at_ms) {
  absl::StatusOr<Decision> d = Decide(*game_, c, at_ms, analyst_);
  if (!d.ok()) return d.status();
  last_ruling_ = d->claim_ruling;
  *game_ = *d->after;
  return d->refused;
}

absl::Status GameTable::Start(std::int64_t at_ms, std::vector<Color> absent) {
  return Do({.kind = CommandKind::kStart, .absent = std::move(absent)}, at_ms);
}

absl::Status GameTable::Move(Color side, std::string move, std::int64_t at_ms, bool offer) {
  return Do(
      {.kind = CommandKind::kMove, .side = side, .move = std::move(move), .offer_draw = offer},
      at_ms);
}

std::int64_t GameTable::Play(const std::vector<std::string>& moves, std::int64_t at_ms) {
  for (const std::string& m : moves) {
    EXPECT_OK(Do({.kind = CommandKind::kMove, .side = game_->to_move(), .move = m}, at_ms)) << m;
    at_ms += 1000;
  }
  return at_ms;
}

void GameTable::SettleTo(std::int64_t at_ms, const std::optional<std::string>& opened_move) {
  for (const v1::ArbitrationEvent& e : Settle(*game_, at_ms, analyst_, opened_move)) {
    ASSERT_OK(game_->Apply(e));
  }
}

std::string GameTable::Comments() const {
  chess::PgnGame pgn = ToPgnGame(*game_);
  std::string out;
  for (const std::string& c : pgn.leading_comments) out += c + " | ";
  for (const chess::PgnMove& m : pgn.moves) {
    for (const std::string& c : m.comments) out += c + " | ";
  }
  return out;
}

StartedTable::StartedTable(const v1::CreateGameRequest& req) : GameTable(req) {
  EXPECT_OK(Start());
}

void ExpectEnded(const GameTable& t, Result result, Termination termination,
                 const std::string& article) {
  EXPECT_EQ(t.result(), result);
  EXPECT_EQ(t.termination(), termination);
  EXPECT_EQ(t.article(), article);
}

std::string Board::Lift(absl::string_view square) {
  placement_.squares[*chess::ParseSquare(square)] = chess::Piece::kNone;
  return PlacementText(placement_);
}

std::string Board::Put(absl::string_view square, char piece) {
  placement_.squares[*chess::ParseSquare(square)] = chess::PieceFromFenChar(piece);
  return PlacementText(placement_);
}

std::vector<std::string> Board::Slide(absl::string_view from, absl::string_view to) {
  const char piece = chess::FenChar(placement_.squares[*chess::ParseSquare(from)]);
  return {Lift(from), Put(to, piece)};
}

Command BoardFeedOf(const std::vector<std::string>& reports, std::int64_t at_ms, bool pressed,
                    bool adjust) {
  Command c{.kind = CommandKind::kBoardFeed};
  for (size_t i = 0; i < reports.size(); ++i) {
    v1::BoardPlacement* f = &c.feed.emplace_back();
    f->set_at_ms(at_ms + static_cast<std::int64_t>(i));
    f->set_placement(reports[i]);
    f->set_clock_pressed(pressed && i + 1 == reports.size());
    f->set_adjust(adjust && i == 0);
  }
  c.actor.set_role("service");
  return c;
}

std::int64_t FeedEndMs(const std::vector<std::string>& reports, std::int64_t at_ms) {
  return at_ms + static_cast<std::int64_t>(reports.size());
}

Command PlayerMove(Color side, std::string move) {
  return {.kind = CommandKind::kMove,
          .actor = Who(side == Color::kWhite ? "w" : "b", "player"),
          .side = side,
          .move = std::move(move)};
}

Command IllegalMoveClaim(Color claimant, std::string from, std::string to,
                         std::optional<std::int64_t> ply) {
  Command c{.kind = CommandKind::kClaimIllegalMove, .side = claimant};
  c.actor.set_role("player");
  c.irregular.from = std::move(from);
  c.irregular.to = std::move(to);
  c.irregular.ply = ply;
  return c;
}

Command CompletedIllegalMove(Color side, std::string from, std::string to) {
  Command c{.kind = CommandKind::kCompleteIllegalMove, .side = side};
  c.irregular.from = std::move(from);
  c.irregular.to = std::move(to);
  return c;
}

Command IllegalMoveReport(std::optional<Color> offender, std::string from, std::string to,
                          std::optional<std::int64_t> ply, std::string reason,
                          absl::string_view role) {
  Command c{.kind = CommandKind::kReportIllegalMove, .side = offender};
  if (!role.empty()) c.actor.set_role(std::string(role));
  c.irregular.from = std::move(from);
  c.irregular.to = std::move(to);
  c.irregular.ply = ply;
  c.reason = std::move(reason);
  return c;
}

Command IllegalMoveClaimOf(Color side) {
  Command c{.kind = CommandKind::kClaim, .side = side, .claim = v1::CLAIM_KIND_ILLEGAL_MOVE};
  c.actor.set_role("player");
  return c;
}

}  // namespace arbitration::testing
