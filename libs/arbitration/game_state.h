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
#include "libs/arbitration/touch_move.h"
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
  kAdjourned,  // Appendix A: the envelope closed, the clocks stopped until the resumption
};
// "created", "ongoing", "awaiting_ruling", "ended", "adjourned".
absl::string_view GameStatusName(GameStatus status);
// The proto's status of a game.
v1::GameStatus ToProto(GameStatus status);

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
  // How many rows of Apply's table take events of `kind`: one for every kind but the creation.
  static int EventRows(v1::ArbitrationEvent::KindCase kind);

  // --- What the game is
  const v1::GameCreated& created() const { return *created_; }
  const laws::Ruleset& ruleset() const { return ruleset_; }
  const chessclock::TimeControl& time_control() const { return clock_.time_control(); }

  // --- Where it stands
  GameStatus status() const { return status_; }
  const laws::Outcome& outcome() const { return outcome_; }
  const std::string& proof() const { return proof_; }
  bool review() const { return review_; }
  // The review waits for search-analysis (GameEnded.review_awaits_analysis): the server settles
  // it when analysis answers (ReviewSettledByAnalysis), unless the arbiter sets the result first.
  bool review_awaits_analysis() const { return review_awaits_analysis_; }
  // The review as analysis settled it, if it did.
  const std::optional<v1::ReviewSettled>& review_settled() const { return review_settled_; }
  // 5.2b / 9.6 asked off the moves' path (MoveMade.dead_position_asked): the positions whose
  // deadness search-analysis has yet to answer, oldest first.
  struct DeadPositionQuestion {
    std::int64_t version = 0;   // the move's event
    std::int64_t ply = 0;       // the plies standing after it
    std::int64_t at_ms = 0;     // the instant the position arose
    std::int64_t white_ms = 0;  // the clocks then
    std::int64_t black_ms = 0;
    chess::Position position;
  };
  const std::vector<DeadPositionQuestion>& dead_position_questions() const {
    return dead_position_questions_;
  }
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
  // 6.6; at a resumption (Appendix A9, A10) the players absent from that session.
  bool present(chess::Color side) const {
    return clock_.present(side) && !adjournment_.absent[chess::Index(side)];
  }
  // Appendix A (libs/arbitration/adjournment.h): the sealed move, the envelope, the session.
  struct Adjournment {
    std::optional<v1::MoveSealed> sealed;       // sealed, not yet opened (A1, A9c)
    std::optional<v1::GameAdjourned> envelope;  // A2: the closed envelope's record
    bool seal_called = false;                   // A1a
    int session = 0;                            // the session in play (GameCreated.sessions)
    std::string wrapped_key;                    // the game's data key, wrapped (first seal)
    std::string key_id;
    std::array<bool, 2> absent{};  // absent at the resumption, until they arrive (A9, A10)
  };
  const Adjournment& adjournment() const { return adjournment_; }
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
  // 10.2b: whose flag fell (observed, or a correct B7 claim) while the arbiter fixes the result.
  chess::Color after_flag_loser() const { return after_flag_loser_; }
  // The flags recorded so far (each side's first fall).
  const std::vector<v1::FlagRecorded>& flags() const { return flags_; }
  bool FlagRecorded(chess::Color side) const;
  // 8.7.
  bool confirmed(chess::Color side) const { return confirmed_[chess::Index(side)]; }

  // --- Irregularities and the arbiter's powers (irregularities_state.cc)
  // The illegal moves each side made in this game (7.4b, 7.5.5, C3), and the ledger.
  int illegal_moves(chess::Color side) const { return illegal_counts_[chess::Index(side)]; }
  const std::vector<v1::IllegalMoveEntry>& illegal_ledger() const { return ledger_; }
  // 7.4a with 4.3: the square of the piece that must make the replacing move.
  std::optional<chess::Square> must_move() const { return must_move_; }
  // 7.4a with 4.3b/c: the square of the opponent's piece that must be captured.
  std::optional<chess::Square> must_capture() const { return must_capture_; }
  // Article 4 on an electronic board: this turn's touches, the previous turn's, the board's last
  // report, touch-move rulings (touch_move.h).
  const TouchLog& touches() const { return touches_; }
  // C3: the side whose completed illegal move the opponent may still claim (before he moves).
  std::optional<chess::Color> completed_illegal() const { return completed_illegal_; }
  // C3: the completed illegal move left no position play can go on from (own king in check):
  // only the claim or the arbiter decide.
  bool unplayable() const { return unplayable_; }
  // The plies standing (retracted ones not counted; a completed illegal move counted), and the
  // first of them from which the position arose by legal moves only.
  std::int64_t standing_plies() const { return standing_plies_; }
  std::int64_t legal_base_ply() const { return legal_base_ply_; }
  // Whether log ply `ply` (0 <= ply < plies()) was taken back by a restoration (7.3-7.5).
  bool retracted(std::int64_t ply) const {
    for (const auto& [begin, end] : retracted_) {
      if (ply >= begin && ply < end) return true;
    }
    return false;
  }
  // 6.13b: the side that stopped the clocks and awaits the arbiter's ruling (6.13d).
  std::optional<chess::Color> stopped_by() const { return stopped_by_; }
  // 11.1 with 13.4e/f and 12.7: each side's points in the result.
  std::pair<double, double> Points() const;
  // The standing record replayed from the log: positions[i] before standing ply i (the last is
  // the position now), the mover's time recorded after each ply, whether it was a completed
  // illegal move, and the move (none for an illegal one).
  struct Standing {
    std::vector<chess::Position> positions;
    std::vector<std::int64_t> clock_ms;
    std::vector<bool> illegal;
    std::vector<chess::Move> moves;
  };
  absl::StatusOr<Standing> StandingRecord() const;

  // --- The log
  std::int64_t version() const { return log_.size(); }
  std::int64_t last_event_ms() const { return last_event_ms_; }
  std::optional<std::int64_t> ended_at_ms() const { return ended_at_ms_; }
  // Every event applied, in order (event i has version i + 1). Each is read from the log's bytes:
  // on a hot path read only the ones needed with event().
  std::vector<v1::ArbitrationEvent> events() const;
  // Event i (version i + 1), 0 <= i < version(), read from the log's bytes.
  v1::ArbitrationEvent event(std::int64_t i) const { return log_.at(i); }
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
  // One row of Apply's table: how an event of `kind`, at `at` ms, changes the state. Each family
  // of events lists its rows in its own file; a new event is one row there (EventRows checks that
  // every kind has exactly one).
  using ApplyEvent = absl::Status (*)(GameState& s, const v1::ArbitrationEvent& event,
                                      std::int64_t at);
  struct EventRule {
    v1::ArbitrationEvent::KindCase kind;
    ApplyEvent apply;
  };
  // The families' rows gathered once, by kind: the first row of each and how many there are.
  struct EventSlot {
    ApplyEvent apply = nullptr;
    int rows = 0;
  };
  static const std::vector<EventSlot>& EventTable();
  // The start, arrivals and moves (game_state.cc).
  static std::vector<EventRule> PlayEvents();
  // Resignation, the end, confirmations and the arbiter's result (game_state.cc).
  static std::vector<EventRule> ResultEvents();
  // Offers, claims and rulings (draw_state.cc).
  static std::vector<EventRule> DrawEvents();
  // Flags, adjustments, the clocks stopped, restarted and set (clock_state.cc).
  static std::vector<EventRule> TimeEvents();
  // Appendix A (adjournment_state.cc).
  static std::vector<EventRule> AdjournmentEvents();
  // Article 7, 6.13b, 12, 13.4 (irregularities_state.cc).
  static std::vector<EventRule> IrregularityEvents();
  // Article 4 on an electronic board: the touch log's own rows (touch_move.cc).
  static std::vector<EventRule> BoardEvents();
  // Takes back the standing plies from `ply` on (7.3-7.5) and corrects the clock's side to move
  // and move counters (6.14).
  absl::Status RestoreTo(std::int64_t ply, std::int64_t at_ms);
  absl::Status Owe(const v1::IllegalMoveReported& reported);
  void StopClock(std::int64_t at_ms);

  std::shared_ptr<const v1::GameCreated> created_;
  laws::Ruleset ruleset_;
  chess::Game game_;
  chessclock::Clock clock_;
  GameStatus status_ = GameStatus::kCreated;
  laws::Outcome outcome_;
  std::string proof_;
  bool review_ = false;
  bool review_awaits_analysis_ = false;
  std::optional<v1::ReviewSettled> review_settled_;
  std::vector<DeadPositionQuestion> dead_position_questions_;
  bool paused_ = false;
  std::optional<std::int64_t> default_deadline_ms_;
  std::int64_t turn_start_remaining_ms_ = 0;
  std::optional<chess::Color> draw_offer_;
  std::array<int, 2> offers_{};
  std::optional<v1::ClaimMade> pending_claim_;
  Adjournment adjournment_;
  bool claim_postponed_ = false;
  bool awaiting_after_flag_ = false;
  chess::Color after_flag_loser_ = chess::Color::kWhite;
  std::vector<v1::FlagRecorded> flags_;
  std::array<bool, 2> confirmed_{};
  std::int64_t last_event_ms_ = 0;
  std::optional<std::int64_t> ended_at_ms_;
  // Article 7 and the arbiter's powers (empty or unset unless an irregularity happened: copying
  // them costs nothing).
  std::array<int, 2> illegal_counts_{};
  std::vector<v1::IllegalMoveEntry> ledger_;
  std::optional<chess::Square> must_move_;
  std::optional<chess::Square> must_capture_;
  TouchLog touches_;
  std::optional<chess::Color> completed_illegal_;
  bool unplayable_ = false;
  std::int64_t standing_plies_ = 0;
  std::int64_t legal_base_ply_ = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> retracted_;  // log plies [begin, end)
  std::optional<chess::Color> stopped_by_;
  std::array<double, 2> points_delta_{};
  std::array<std::optional<double>, 2> points_set_;
  // The log's events, kept serialized: a replica keeps the state of every game it serves, and an
  // event as a message with its strings took ~300 bytes of heap against ~60 as its bytes (a game
  // of 43 plies: ~17 KB a state, of which the events were most). The state's rulings never read
  // the log: what they need is folded into the fields above as each event applies; only
  // reports (the PGN, the used time of A2c, an observer's delay) read events back.
  //
  // The log is shared by every state copied from this one: a copy costs a pointer, and an
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
    v1::ArbitrationEvent at(std::int64_t i) const;
    std::int64_t plies() const { return plies_; }
    absl::string_view san(std::int64_t ply) const;
    void Append(const v1::ArbitrationEvent& event);

   private:
    // Appends an event's bytes and, for a move, its SAN.
    void Append(std::string bytes, const std::string* san);
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
      Segments<std::string> events;  // each event serialized
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
