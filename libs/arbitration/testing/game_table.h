// For the arbitration tests: a game driven through Decide, as the service and `game simulate`
// drive it, the requests that create it, the actors that send commands, an electronic board's
// reports and the commands of Article 7 built one way. Each test's Table adds the commands it
// needs; the tests speak in the words declared here (kW, kB, Result, HasErrorCode ...).
#ifndef ARBITER_LIBS_ARBITRATION_TESTING_GAME_TABLE_H_
#define ARBITER_LIBS_ARBITRATION_TESTING_GAME_TABLE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/board_feed.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/position.h"
#include "libs/laws/outcome.h"

namespace arbitration::testing {

using ::base::HasErrorCode;
using chess::Color;
using laws::Result;
using laws::Termination;

inline constexpr Color kW = Color::kWhite;
inline constexpr Color kB = Color::kBlack;

// What a test varies in the game it creates (players "w" and "b").
struct TableOptions {
  v1::Edition edition = v1::EDITION_FIDE_2001;
  std::string time_control = "G/90";  // standard; "G/25" rapid, "G/5" blitz (B1, C1)
  std::string fen;                    // "" = the initial position
  bool arbiter_present = true;
  std::optional<std::int64_t> default_time_ms;  // 6.7
  int no_offers_before = 0;                     // 9.1a: the regulations' limits on offers
  int max_offers = 0;
  std::int64_t scheduled_start_ms = 0;
  std::optional<std::int64_t> illegal_move_extra_ms;  // 7.5.5 (2023): the regulations' time
};

v1::CreateGameRequest GameRequest(const TableOptions& o);

// Appendix A: a session of `length_ms` from each of `starts`, in `places` (by index; none: no
// place).
void AddSessions(v1::CreateGameRequest& req, absl::Span<const std::int64_t> starts,
                 std::int64_t length_ms, absl::Span<const char* const> places = {});

// Who sends a command or creates a game (the token's subject and role).
v1::Actor Who(const std::string& subject, const std::string& role);

// A game created at 0 ms, not started.
class GameTable {
 public:
  explicit GameTable(const v1::CreateGameRequest& req);
  explicit GameTable(const TableOptions& o = {}) : GameTable(GameRequest(o)) {}
  virtual ~GameTable() = default;

  // Runs a command at `at_ms`; returns the refusal (OK when applied).
  absl::Status Do(Command c, std::int64_t at_ms);
  absl::Status Start(std::int64_t at_ms = 0, std::vector<Color> absent = {});
  absl::Status Move(Color side, std::string move, std::int64_t at_ms, bool offer = false);
  // Plays moves alternately from the side to move, one second apart from `at_ms`; returns the
  // instant after the last.
  std::int64_t Play(const std::vector<std::string>& moves, std::int64_t at_ms);
  // Records what fell by `at_ms` (flags, defaults) as the deadline path does; `opened_move`: the
  // sealed move the service opens (A10).
  void SettleTo(std::int64_t at_ms, const std::optional<std::string>& opened_move = std::nullopt);

  const GameState& game() const { return *game_; }
  Result result() const { return game_->outcome().result; }
  Termination termination() const { return game_->outcome().termination; }
  std::string article() const { return game_->outcome().article; }
  std::int64_t ms(Color side, std::int64_t at) const { return game_->RemainingMs(side, at); }
  // The ruling on the last claim decided.
  v1::ClaimRuling ruling() const { return last_ruling_; }
  // Every comment of the exported record, joined (the text wraps lines).
  std::string Comments() const;

 protected:
  std::unique_ptr<GameState> game_;

 private:
  LocalAnalyst analyst_;
  v1::ClaimRuling last_ruling_ = v1::CLAIM_RULING_UNSPECIFIED;
};

// The same game, started at 0 ms.
class StartedTable : public GameTable {
 public:
  explicit StartedTable(const v1::CreateGameRequest& req);
  explicit StartedTable(const TableOptions& o = {}) : StartedTable(GameRequest(o)) {}
};

// The game ended with this result, termination and article.
void ExpectEnded(const GameTable& t, Result result, Termination termination,
                 const std::string& article);

// A physical board: pieces lifted and put down, one report (a placement) per change.
class Board {
 public:
  explicit Board(const chess::Position& p) : placement_(PlacementOf(p)) {}
  std::string Lift(absl::string_view square);
  std::string Put(absl::string_view square, char piece);
  // Lifts `from` and puts its piece on `to`: two reports.
  std::vector<std::string> Slide(absl::string_view from, absl::string_view to);
  const Placement& placement() const { return placement_; }

 private:
  Placement placement_;
};

// A relay service's command with the board's `reports` from `at_ms`, one a millisecond apart
// (`pressed`: the clock pressed with the last; `adjust`: "j'adoube" with the first).
Command BoardFeedOf(const std::vector<std::string>& reports, std::int64_t at_ms,
                    bool pressed = false, bool adjust = false);
// The instant a feed from `at_ms` ends (its last report).
std::int64_t FeedEndMs(const std::vector<std::string>& reports, std::int64_t at_ms);

// `side`'s move as its player ("w" or "b") sends it through the authority.
Command PlayerMove(Color side, std::string move);

// 7.4a, B5: `claimant` (a player) claims that the opponent's move from-to at `ply` (nullopt: the
// one standing now) was illegal.
Command IllegalMoveClaim(Color claimant, std::string from, std::string to,
                         std::optional<std::int64_t> ply = std::nullopt);
// C3: `side` makes the illegal move from-to and presses the clock.
Command CompletedIllegalMove(Color side, std::string from, std::string to);
// 7.4a: `offender`'s illegal move from-to at `ply` (nullopt: now), reported for `reason` by
// `role` ("player": the opponent's claim; "": the arbiter).
Command IllegalMoveReport(std::optional<Color> offender, std::string from, std::string to,
                          std::optional<std::int64_t> ply, std::string reason,
                          absl::string_view role = "");
// C3: `side` claims the opponent's completed illegal move (the ILLEGAL_MOVE claim).
Command IllegalMoveClaimOf(Color side);

}  // namespace arbitration::testing

#endif  // ARBITER_LIBS_ARBITRATION_TESTING_GAME_TABLE_H_
