// The view of a game by who reads it: an observer through the broadcast delay (by plies, by
// time, after the end), what is recorded after a hidden move (an illegal move, an offer) hidden
// with it, the clocks and the deadline that would tell of a hidden move, a player's view of the
// moves and of the actors.
#include "libs/arbitration/observer_view.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"

namespace arbitration::testing {
namespace {

const Viewer kObserver{.delayed = true, .advice = false, .all_actors = false, .subject = "o"};
const Viewer kPlayer{.delayed = false, .advice = false, .all_actors = false, .subject = "w"};
const Viewer kArbiter{.delayed = false, .advice = true, .all_actors = true, .subject = "a"};

struct Delay {
  int plies = 0;
  std::int64_t ms = 0;
  std::string time_control = "G/90";
};

class Table : public StartedTable {
 public:
  explicit Table(const Delay& d) : StartedTable(RequestOf(d)) {}

  // The view `viewer` gets at `now_ms`.
  v1::GameView View(const Viewer& viewer, std::int64_t now_ms) const {
    absl::StatusOr<Seen> seen = SeenBy(viewer, std::make_shared<const GameState>(game()), now_ms);
    EXPECT_OK(seen.status());
    v1::GameView view;
    if (seen.ok()) FillView("g", *seen, viewer, &view);
    return view;
  }
  static std::vector<std::string> Moves(const v1::GameView& view) {
    return {view.moves_san().begin(), view.moves_san().end()};
  }

 private:
  static v1::CreateGameRequest RequestOf(const Delay& d) {
    v1::CreateGameRequest req = GameRequest({.time_control = d.time_control});
    req.set_broadcast_delay_plies(d.plies);
    req.set_broadcast_delay_ms(d.ms);
    return req;
  }
};

using Moves = std::vector<std::string>;

// The last two plies are held back from observers while the game goes on; a player and the
// arbiter see every move.
TEST(BroadcastDelay, ThePliesDelayHoldsBackTheLastPlies) {
  Table t({.plies = 2});
  const std::int64_t at = t.Play({"e4", "e5", "Nf3", "Nc6"}, 1000);
  const v1::GameView seen = t.View(kObserver, at);
  EXPECT_EQ(Table::Moves(seen), (Moves{"e4", "e5"}));
  EXPECT_LT(seen.version(), t.game().version());
  EXPECT_EQ(Table::Moves(t.View(kPlayer, at)), (Moves{"e4", "e5", "Nf3", "Nc6"}));
  EXPECT_EQ(Table::Moves(t.View(kArbiter, at)), (Moves{"e4", "e5", "Nf3", "Nc6"}));
  EXPECT_EQ(t.View(kPlayer, at).version(), t.game().version());
  EXPECT_EQ(VisibleEvents(t.game().events(), at), static_cast<std::size_t>(seen.version()));
}

// A move is seen once it is `broadcast_delay_ms` old, not before.
TEST(BroadcastDelay, TheTimeDelayReleasesAMoveWhenItIsOldEnough) {
  Table t({.ms = 1500});
  t.Play({"d4"}, 1000);
  EXPECT_TRUE(Table::Moves(t.View(kObserver, 2000)).empty());
  EXPECT_TRUE(Table::Moves(t.View(kObserver, 2499)).empty());
  EXPECT_EQ(Table::Moves(t.View(kObserver, 2500)), (Moves{"d4"}));
  EXPECT_EQ(Table::Moves(t.View(kPlayer, 2000)), (Moves{"d4"}));
}

// Once the game is over the plies are no longer held back; the time delay still runs.
TEST(BroadcastDelay, AfterTheEndOnlyTheTimeDelayRuns) {
  Table plies({.plies = 1});
  std::int64_t at = plies.Play({"e4", "e5"}, 1000);
  ASSERT_OK(plies.Do({.kind = CommandKind::kResign, .side = kW}, at));
  EXPECT_EQ(Table::Moves(plies.View(kObserver, at)), (Moves{"e4", "e5"}));
  EXPECT_EQ(plies.View(kObserver, at).status(), v1::GAME_STATUS_ENDED);

  Table timed({.ms = 10'000});
  at = timed.Play({"e4", "e5"}, 1000);
  ASSERT_OK(timed.Do({.kind = CommandKind::kResign, .side = kW}, at));
  const v1::GameView seen = timed.View(kObserver, at);
  EXPECT_TRUE(Table::Moves(seen).empty());
  EXPECT_NE(seen.status(), v1::GAME_STATUS_ENDED);  // the end comes after the hidden moves
}

// An illegal move (C3) recorded after a hidden move is hidden with it: the observer's
// illegal-move ledger is empty while the arbiter's holds it.
TEST(BroadcastDelay, AnIllegalMoveAfterAHiddenMoveIsHidden) {
  Table t({.plies = 1, .time_control = "G/5"});
  std::int64_t at = t.Play({"e4", "e5"}, 1000);
  Command c{.kind = CommandKind::kCompleteIllegalMove, .side = kW};
  c.irregular.from = "e1";
  c.irregular.to = "e3";
  ASSERT_OK(t.Do(c, at));
  const v1::GameView truth = t.View(kArbiter, at);
  ASSERT_TRUE(truth.has_illegal_moves());
  EXPECT_EQ(truth.illegal_moves().white(), 1);
  const v1::GameView seen = t.View(kObserver, at);
  EXPECT_FALSE(seen.has_illegal_moves());
  EXPECT_EQ(Table::Moves(seen), (Moves{"e4"}));
  // A player sees it at once.
  EXPECT_TRUE(t.View(kPlayer, at).has_illegal_moves());
}

// A draw offer made with a hidden move is not seen before the move.
TEST(BroadcastDelay, AnOfferWithAHiddenMoveIsHidden) {
  Table t({.plies = 1});
  const std::int64_t at = t.Play({"e4"}, 1000);
  ASSERT_OK(t.Do(
      {.kind = CommandKind::kMove, .side = Color::kBlack, .move = "e5", .offer_draw = true}, at));
  EXPECT_EQ(t.View(kArbiter, at).draw_offer(), v1::COLOR_BLACK);
  EXPECT_EQ(t.View(kObserver, at).draw_offer(), v1::COLOR_UNSPECIFIED);
}

// Under a delay the observer's view is read at the last event he sees, and has no deadline:
// neither tells when (or that) a hidden move was made.
TEST(BroadcastDelay, TheClocksAndTheDeadlineTellNothingOfAHiddenMove) {
  Table t({.plies = 1});
  const v1::GameView before = t.View(kObserver, 500);
  t.Play({"e4"}, 1000);
  const v1::GameView seen = t.View(kObserver, 5000);
  EXPECT_EQ(seen.version(), before.version());
  EXPECT_EQ(seen.now_ms(), before.now_ms());
  EXPECT_EQ(seen.white_ms(), before.white_ms());
  EXPECT_EQ(seen.black_ms(), before.black_ms());
  EXPECT_EQ(seen.deadline_ms(), 0);
  EXPECT_GT(t.View(kArbiter, 5000).deadline_ms(), 0);
  EXPECT_EQ(t.View(kArbiter, 5000).now_ms(), 5000);
}

// Without a delay an observer sees what a player sees, at the instant asked.
TEST(BroadcastDelay, NoDelayNothingHeldBack) {
  Table t({});
  const std::int64_t at = t.Play({"e4", "e5"}, 1000);
  const v1::GameView seen = t.View(kObserver, at);
  EXPECT_EQ(Table::Moves(seen), (Moves{"e4", "e5"}));
  EXPECT_EQ(seen.now_ms(), at);
  EXPECT_GT(seen.deadline_ms(), 0);
  EXPECT_EQ(VisibleEvents(t.game().events(), at), t.game().events().size());
}

// The view carries what the game was created with: a platform rebuilds its record of a game
// from one GetGame.
TEST(GameView, CarriesWhatTheGameWasCreatedWith) {
  v1::CreateGameRequest req = GameRequest({.time_control = "G/90", .scheduled_start_ms = 5000});
  req.set_event("Open");
  req.set_site("Bern");
  req.set_round("3.1");
  req.set_white_name("Alice");
  req.set_black_name("Bob");
  StartedTable t(req);
  v1::GameView view;
  absl::StatusOr<Seen> seen = SeenBy(kObserver, std::make_shared<const GameState>(t.game()), 6000);
  ASSERT_OK(seen.status());
  FillView("g", *seen, kObserver, &view);
  EXPECT_EQ(view.white_id(), "w");
  EXPECT_EQ(view.black_id(), "b");
  EXPECT_EQ(view.white_name(), "Alice");
  EXPECT_EQ(view.black_name(), "Bob");
  EXPECT_EQ(view.event(), "Open");
  EXPECT_EQ(view.site(), "Bern");
  EXPECT_EQ(view.round(), "3.1");
  EXPECT_EQ(view.time_control(), "5400");  // "G/90" recorded as its PGN tag
  EXPECT_EQ(view.scheduled_start_ms(), 5000);
  EXPECT_EQ(view.ruleset().edition(), v1::EDITION_FIDE_2001);
  EXPECT_EQ(view.ruleset().game_type(), v1::GAME_TYPE_STANDARD);
}

// A player or an observer sees the actors' roles, his own subject and command ids, never
// another caller's subject or the server's command ids; the arbiter sees everything.
TEST(RedactActor, OnlyTheCallersOwnSubjectAndCommandIds) {
  v1::ArbitrationEvent event;
  event.mutable_actor()->set_role("player");
  event.mutable_actor()->set_subject("w");
  std::string id = "c1";
  v1::ArbitrationEvent e = event;
  RedactActor(kPlayer, &e, &id);
  EXPECT_EQ(e.actor().subject(), "w");
  EXPECT_EQ(id, "c1");

  e = event;
  id = "c1";
  RedactActor(kObserver, &e, &id);
  EXPECT_EQ(e.actor().subject(), "");
  EXPECT_EQ(e.actor().role(), "player");
  EXPECT_EQ(id, "");

  e = event;
  id = "flag:1";  // the server's own command id
  RedactActor(kPlayer, &e, &id);
  EXPECT_EQ(id, "");

  e = event;
  id = "flag:1";
  RedactActor(kArbiter, &e, &id);
  EXPECT_EQ(e.actor().subject(), "w");
  EXPECT_EQ(id, "flag:1");
}

}  // namespace
}  // namespace arbitration::testing
