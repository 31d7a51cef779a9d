// A game as the arbiter sees it: the state its event log describes (ARCHITECTURE.md, "A game is
// an event log"). The log is a list of arbiter.v1.ArbitrationEvent: the creation, then what
// happened, each with its instant and actor. Apply is mechanical: every ruling (what a move ends,
// a claim's verdict, a penalty) is decided beforehand by rulings.h and recorded as events, so
// replaying a log never re-runs a search and always gives the same state.
//
//   ASSIGN_OR_RETURN(v1::ArbitrationEvent created, NewGame(create_request, now_ms, actor));
//   ASSIGN_OR_RETURN(GameState game, GameState::Create(created));
//   ASSIGN_OR_RETURN(Decision d, Decide(game, command, now_ms, analyst));  // rulings.h
//   game = *d.after;                                                        // or Apply(events)
#ifndef ARBITER_LIBS_ARBITRATION_GAME_STATE_H_
#define ARBITER_LIBS_ARBITRATION_GAME_STATE_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/chess/game.h"
#include "libs/clock/clock.h"
#include "libs/laws/outcome.h"
#include "libs/laws/ruleset.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

namespace v1 = arbiter::v1;

// The schema version of ArbitrationEvent bodies and of GameLogSnapshot states in the store: 2, the
// state's summary (written); 1, the whole log (still read).
inline constexpr std::uint32_t kEventSchemaVersion = 1;
inline constexpr std::uint32_t kSnapshotSchemaVersion = 2;
inline constexpr std::uint32_t kLogSnapshotSchemaVersion = 1;

enum class GameStatus : std::uint8_t {
  kCreated,         // not started (6.5)
  kOngoing,         // play goes on
  kAwaitingRuling,  // 10.2 / D1: the clocks stopped, the arbiter decides
  kEnded,
};
// "created", "ongoing", "awaiting_ruling", "ended".
absl::string_view GameStatusName(GameStatus status);

class GameState {
 public:
  // A new game from its creation event (validated: time control, FEN, ruleset).
  static absl::StatusOr<GameState> Create(const v1::ArbitrationEvent& created);
  // Replays a whole log; the first event must be the creation. INTERNAL ERR_CORRUPT_LOG if an
  // event does not apply.
  static absl::StatusOr<GameState> Replay(absl::Span<const v1::ArbitrationEvent> events);
  // From a store snapshot (GameLogSnapshot).
  static absl::StatusOr<GameState> FromSnapshot(const v1::GameLogSnapshot& snapshot);

  // Applies one event at the end of the log. On failure the state is half-applied: discard it.
  absl::Status Apply(const v1::ArbitrationEvent& event);

  // --- What the game is
  const v1::GameCreated& created() const { return *created_; }
  const laws::Ruleset& ruleset() const { return ruleset_; }
  const chessclock::TimeControl& time_control() const { return clock_.time_control(); }

  // --- Where it stands
  GameStatus status() const { return status_; }
  const laws::Outcome& outcome() const { return outcome_; }
  const std::string& proof() const { return proof_; }
  bool review() const { return review_; }
  // The arbiter has stopped the clocks (6.13a) and not restarted them.
  bool paused() const { return paused_; }
  // The game since the last capture or pawn move (the positions that can still repeat): all that
  // the rules on repetition and on the 50 and 75 moves read (9.2, 9.3, 9.6), so that copying a
  // state (each command plans on a copy) does not copy the whole game's positions.
  const chess::Game& game() const { return game_; }
  // The whole game from its start position, replayed from the log's moves: for the rare readers
  // of the whole history (the quickplay advice of 10.2, the PGN export).
  absl::StatusOr<chess::Game> FullGame() const;
  const chess::Position& position() const { return game_.position(); }
  chess::Color to_move() const { return game_.position().side_to_move(); }
  const chessclock::Clock& clock() const { return clock_; }
  // Each side's time at `now_ms` (clamped: the last event; frozen once the game ended).
  std::int64_t RemainingMs(chess::Color side, std::int64_t now_ms) const;
  // The mover's time when his current turn began (for [%emt]).
  std::int64_t turn_start_remaining_ms() const { return turn_start_remaining_ms_; }
  bool present(chess::Color side) const { return clock_.present(side); }
  // 6.7: the instant after which an absent player has lost (the scheduled start, or the start,
  // plus the default time); nullopt before the start.
  std::optional<std::int64_t> default_deadline_ms() const { return default_deadline_ms_; }

  // 9.1: the side whose draw offer is pending, and how many offers each side made.
  std::optional<chess::Color> draw_offer() const { return draw_offer_; }
  int draw_offers_made(chess::Color side) const { return offers_[chess::Index(side)]; }
  // A claim awaiting the arbiter (10.2, D1), or the flag that fell in a postponed 10.2 game.
  const std::optional<v1::ClaimMade>& pending_claim() const { return pending_claim_; }
  bool claim_postponed() const { return claim_postponed_; }
  bool awaiting_after_flag() const { return awaiting_after_flag_; }
  // The flags recorded so far (each side's first fall).
  const std::vector<v1::FlagRecorded>& flags() const { return flags_; }
  bool FlagRecorded(chess::Color side) const;
  // 8.7.
  bool confirmed(chess::Color side) const { return confirmed_[chess::Index(side)]; }

  // --- The log
  std::int64_t version() const { return log_.size(); }
  std::int64_t last_event_ms() const { return last_event_ms_; }
  std::optional<std::int64_t> ended_at_ms() const { return ended_at_ms_; }
  // Every event applied, in order (event i has version i + 1): a copy of each. On a hot path read
  // them one by one with event().
  std::vector<v1::ArbitrationEvent> events() const;
  // Event i (version i + 1), 0 <= i < version(), without building events().
  const v1::ArbitrationEvent& event(std::int64_t i) const { return log_.at(i); }
  // The moves played, and move `ply` (0 <= ply < plies()) in SAN as recorded: read from one
  // contiguous list, not from the events (a reply lists every move of the game, and the events
  // of a game not touched for a while are out of the processor's caches).
  std::int64_t plies() const { return log_.plies(); }
  absl::string_view san(std::int64_t ply) const { return log_.san(ply); }
  // The log as one message (GameLogSnapshot schema 1: the events), as FromSnapshot reads it.
  v1::GameLogSnapshot Snapshot() const;

 private:
  GameState(std::shared_ptr<const v1::GameCreated> created, laws::Ruleset ruleset, chess::Game game,
            chessclock::Clock clock);
  absl::Status ApplyKind(const v1::ArbitrationEvent& event);
  void StopClock(std::int64_t at_ms);

  std::shared_ptr<const v1::GameCreated> created_;
  laws::Ruleset ruleset_;
  chess::Game game_;
  chessclock::Clock clock_;
  GameStatus status_ = GameStatus::kCreated;
  laws::Outcome outcome_;
  std::string proof_;
  bool review_ = false;
  bool paused_ = false;
  std::optional<std::int64_t> default_deadline_ms_;
  std::int64_t turn_start_remaining_ms_ = 0;
  std::optional<chess::Color> draw_offer_;
  std::array<int, 2> offers_{};
  std::optional<v1::ClaimMade> pending_claim_;
  bool claim_postponed_ = false;
  bool awaiting_after_flag_ = false;
  std::vector<v1::FlagRecorded> flags_;
  std::array<bool, 2> confirmed_{};
  std::int64_t last_event_ms_ = 0;
  std::optional<std::int64_t> ended_at_ms_;
  // The log's events, shared by every state copied from this one: a copy costs a pointer, and an
  // append at the end of the shared storage writes there, without copying the events before it
  // (every command decides on a copy of the cached state; copying the log, or even pointers to
  // its events, was a large part of the server's CPU per move). The storage's segments never
  // move, so a state reading its events [0, size) never races with an append at size or later.
  // Of two copies that append from the same length (two commands decided on one cached state),
  // the first takes the storage's end and the other copies its events to storage of its own.
  class Log {
   public:
    Log();
    std::int64_t size() const { return size_; }
    const v1::ArbitrationEvent& at(std::int64_t i) const;
    std::int64_t plies() const { return plies_; }
    absl::string_view san(std::int64_t ply) const;
    void Append(const v1::ArbitrationEvent& event);

   private:
    // A move's SAN, at most 7 characters ("exd8=Q#"), kept beside the events.
    struct San {
      char text[15];
      std::uint8_t size;
    };
    // Segment k holds 16 << k items: items [16 * (2^k - 1), 16 * (2^(k+1) - 1)).
    static constexpr int kSegments = 40;
    template <typename T>
    struct Segments {
      std::array<std::atomic<T*>, kSegments> segments{};
      ~Segments();
      T& at(std::int64_t i) const;
      T& Claimed(std::int64_t i);  // makes the segment when `i` is its first item
    };
    struct Storage {
      Segments<v1::ArbitrationEvent> events;
      Segments<San> sans;
      std::atomic<std::int64_t> end{0};  // events claimed by an append
    };
    static std::pair<int, std::int64_t> Locate(std::int64_t i);

    std::shared_ptr<Storage> storage_;
    std::int64_t size_ = 0;
    std::int64_t plies_ = 0;
  };
  Log log_;
};

// The creation event for a request at `now_ms`: players, ruleset (edition required; the game
// type derived), time control (PGN tag or arbiters' notation), start position (must be legal and
// not already over). INVALID_ARGUMENT ERR_BAD_ARGUMENT / ERR_BAD_TIME_CONTROL / ERR_BAD_FEN /
// ERR_BAD_START_POSITION / ERR_BAD_EDITION otherwise.
absl::StatusOr<v1::ArbitrationEvent> NewGame(const v1::CreateGameRequest& request,
                                             std::int64_t now_ms, const v1::Actor& actor);

// Either notation of a time control: the PGN tag first, then the arbiters' notation.
absl::StatusOr<chessclock::TimeControl> ParseAnyTimeControl(absl::string_view text);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_GAME_STATE_H_
