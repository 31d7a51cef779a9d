// Simulated players: real games played through the arbitration service of several replicas, each
// command sent to any replica (a new command to a random one, a retry to the next), with a
// command id, retried with the same id on UNAVAILABLE / DEADLINE_EXCEEDED and the other transient
// codes until acknowledged. Every acknowledgement goes into the game's ledger: the command id,
// what it was (creation, start, the move of ply p), the reply's version and times, when and from
// which replica. What the fault suite checks against the logs afterwards (log_check.h).
//
// Two kinds of slot, each playing one game after another:
//   - long games (600+5 by default): Kasparov - Topalov, Wijk aan Zee 1999, 87 plies, a short
//     think between moves; no flag falls during a run;
//   - flag games (5 s, FIDE 2023 blitz: a flag counts when observed, A.4.5): a few moves, then
//     the player stops moving and waits for the server to record his flag (6.9), polling GetGame
//     from the deadline the last reply announced; then the next game.
#ifndef ARBITER_TESTS_E2E_GAME_LOAD_H_
#define ARBITER_TESTS_E2E_GAME_LOAD_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"

namespace e2e {

namespace v1 = arbiter::v1;

// The game every slot plays, in SAN.
const std::vector<std::string>& ScriptedGame();

// Unix ms on this machine (the replicas' time base is Redis's TIME on the same machine).
std::int64_t UnixMs();

struct LoadOptions {
  std::string run_id = "e2e";  // the games' id prefix
  int long_games = 24;         // slots of long games
  int flag_games = 8;          // slots of flag games
  std::string long_time_control = "600+5";
  std::string flag_time_control = "5";
  absl::Duration long_think_min = absl::Milliseconds(20);
  absl::Duration long_think_max = absl::Milliseconds(60);
  absl::Duration flag_think_min = absl::Milliseconds(40);
  absl::Duration flag_think_max = absl::Milliseconds(120);
  int flag_game_min_plies = 2;  // a flag game stops after a random ply count in this range
  int flag_game_max_plies = 24;
  absl::Duration call_deadline = absl::Seconds(1);
  // After a transient error from a replica, a player sends his next commands elsewhere this long.
  absl::Duration avoid_failed_replica = absl::Seconds(2);
  absl::Duration give_up_after = absl::Seconds(60);  // then the command is left unresolved
  absl::Duration flag_wait = absl::Seconds(40);      // the longest wait for a flag to be recorded
  std::uint64_t seed = 1;
};

// What a reply said (the parts the checks use).
struct ReplyView {
  std::int64_t version = 0;
  v1::GameStatus status = v1::GAME_STATUS_UNSPECIFIED;
  std::int64_t white_ms = 0;
  std::int64_t black_ms = 0;
  std::int64_t now_ms = 0;
  std::int64_t deadline_ms = 0;
  int plies = 0;
};

struct Ack {
  std::string command_id;  // "create", "start", "m<ply>"
  int ply = -1;            // for a move
  std::int64_t at_unix_ms = 0;
  int replica = -1;
  bool replayed = false;
  ReplyView reply;
};

struct GameRecord {
  std::string game_id;
  bool flag_game = false;
  std::vector<Ack> acks;
  int moves_acked = 0;
  // The last command sent whose outcome is unknown (retried until give_up_after, or stopped) or
  // that was refused: in the log at most once.
  std::string unresolved_command_id;
  std::string refusal;  // the refusal's status, if it was refused
  // Flag games: the deadline the last acknowledged reply announced, the replica whose append set
  // it (-1: unknown, e.g. the ack was a replay), and the server's time at the first read that
  // showed the game ended (0: never seen).
  std::int64_t expected_flag_ms = 0;
  int deadline_set_by = -1;
  std::int64_t flag_seen_ms = 0;
  // When the client began to look for the flag (its last move answered): a flag that fell while
  // the client still waited on that move (a stopped replica holds it for seconds) is seen late
  // for the client's reasons, not the server's.
  std::int64_t flag_looked_from_ms = 0;
};

// One command's attempt: for the recovery times.
struct Attempt {
  std::int64_t sent_unix_ms = 0;
  std::int64_t at_unix_ms = 0;  // when it returned
  int game = 0;                 // index into games()
  int replica = 0;
  grpc::StatusCode code = grpc::StatusCode::OK;
  std::string message;  // an error's (the first 200 characters)
};

class GameLoad {
 public:
  GameLoad(std::vector<std::string> addresses, LoadOptions options);
  ~GameLoad();

  void Start();
  // No new command or game from now on; flag games still wait for their flags.
  void StopMoves();
  // Waits for the players (after StopMoves).
  void Join();

  // After Join.
  const std::vector<std::unique_ptr<GameRecord>>& games() const { return games_; }
  std::vector<Attempt> attempts() const;
  std::int64_t acks() const { return acks_.load(); }
  std::int64_t transient_errors() const { return transient_.load(); }

  // The game's whole log (WatchGame from version 0 up to the version GetGame gives) and its view
  // now, read from any replica that answers.
  absl::Status ReadGame(const std::string& game_id, std::vector<v1::GameUpdate>* log,
                        v1::GameView* view);
  // The game's log as text, one event a line (version, command id, kind, side, SAN, instant),
  // as WatchGame gives it within `wait`: for a failure message, even when the game's log no
  // longer replays.
  std::string DumpLog(const std::string& game_id, absl::Duration wait = absl::Seconds(2));

 private:
  struct CallResult {
    bool ok = false;
    bool refused = false;  // a non-transient error: `status`
    grpc::Status status;
    int replica = -1;
  };
  template <typename Request, typename Reply, typename Rpc>
  CallResult Call(std::uint64_t* rng, int game, Rpc rpc, const Request& request, Reply* reply,
                  bool command);
  void PlaySlot(int slot);
  void PlayGame(int slot, int n, std::uint64_t* rng);
  void WaitForFlag(int game, std::uint64_t* rng);
  int AddGame(std::unique_ptr<GameRecord> game);
  GameRecord& game(int i);

  const LoadOptions options_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<v1::Arbitration::Stub>> stubs_;
  std::atomic<bool> stop_moves_{false};
  std::atomic<bool> stop_all_{false};
  std::atomic<std::int64_t> acks_{0};
  std::atomic<std::int64_t> transient_{0};
  std::vector<std::thread> threads_;

  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<GameRecord>> games_ ABSL_GUARDED_BY(mu_);
  std::vector<Attempt> attempts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace e2e

#endif  // ARBITER_TESTS_E2E_GAME_LOAD_H_
