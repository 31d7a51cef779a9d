#include "tests/e2e/game_load.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace e2e {

namespace {

// SplitMix64: a small deterministic generator per player thread.
std::uint64_t Next(std::uint64_t* s) {
  std::uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::int64_t Uniform(std::uint64_t* s, std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<std::int64_t>(Next(s) % static_cast<std::uint64_t>(hi - lo + 1));
}

absl::Duration Think(std::uint64_t* s, absl::Duration lo, absl::Duration hi) {
  return absl::Milliseconds(
      Uniform(s, absl::ToInt64Milliseconds(lo), absl::ToInt64Milliseconds(hi)));
}

// What a client retries with the same command id: the replica, the network or the store did not
// answer in time, or the call was cut (a replica killed mid-call). ABORTED: the authority lost to
// other writers more often than it retries itself. Everything else is an answer.
bool Transient(grpc::StatusCode code) {
  static constexpr grpc::StatusCode kTransient[] = {
      grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::DEADLINE_EXCEEDED,
      grpc::StatusCode::ABORTED,     grpc::StatusCode::CANCELLED,
      grpc::StatusCode::UNKNOWN,     grpc::StatusCode::RESOURCE_EXHAUSTED,
  };
  return std::find(std::begin(kTransient), std::end(kTransient), code) != std::end(kTransient);
}

ReplyView ViewOf(const v1::GameView& g) {
  return {.version = g.version(),
          .status = g.status(),
          .white_ms = g.white_ms(),
          .black_ms = g.black_ms(),
          .now_ms = g.now_ms(),
          .deadline_ms = g.deadline_ms(),
          .plies = g.moves_san_size()};
}

}  // namespace

const std::vector<std::string>& ScriptedGame() {
  // Kasparov - Topalov, Wijk aan Zee 1999 (as tests/bench/arbitration_bench.cc): 87 plies,
  // captures, checks, castling, pawn moves; nothing ends it by rule.
  static const std::vector<std::string> kGame = absl::StrSplit(
      "e4 d6 d4 Nf6 Nc3 g6 Be3 Bg7 Qd2 c6 f3 b5 Nge2 Nbd7 Bh6 Bxh6 Qxh6 Bb7 a3 e5 O-O-O Qe7 Kb1 a6 "
      "Nc1 O-O-O Nb3 exd4 Rxd4 c5 Rd1 Nb6 g3 Kb8 Na5 Ba8 Bh3 d5 Qf4+ Ka7 Rhe1 d4 Nd5 Nbxd5 exd5 "
      "Qd6 Rxd4 cxd4 Re7+ Kb6 Qxd4+ Kxa5 b4+ Ka4 Qc3 Qxd5 Ra7 Bb7 Rxb7 Qc4 Qxf6 Kxa3 Qxa6+ Kxb4 "
      "c3+ "
      "Kxc3 Qa1+ Kd2 Qb2+ Kd1 Bf1 Rd2 Rd7 Rxd7 Bxc4 bxc4 Qxh8 Rd3 Qa8 c3 Qa4+ Ke1 f4 f5 Kc1 Rd2 "
      "Qa7",
      ' ');
  return kGame;
}

std::int64_t UnixMs() { return absl::ToUnixMillis(absl::Now()); }

GameLoad::GameLoad(std::vector<std::string> addresses, LoadOptions options)
    : options_(std::move(options)) {
  for (const std::string& address : addresses) {
    grpc::ChannelArguments args;
    // A replica that comes back is reached again within a fraction of a second (the default
    // backoff grows to two minutes); each channel its own connection.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 300);
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    channels_.push_back(
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
    stubs_.push_back(v1::Arbitration::NewStub(channels_.back()));
  }
}

GameLoad::~GameLoad() {
  stop_moves_ = true;
  stop_all_ = true;
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void GameLoad::Start() {
  const int slots = options_.long_games + options_.flag_games;
  for (int slot = 0; slot < slots; ++slot) threads_.emplace_back([this, slot] { PlaySlot(slot); });
}

void GameLoad::StopMoves() { stop_moves_ = true; }

void GameLoad::Join() {
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

std::vector<Attempt> GameLoad::attempts() const {
  absl::MutexLock lock(&mu_);
  return attempts_;
}

int GameLoad::AddGame(std::unique_ptr<GameRecord> game) {
  absl::MutexLock lock(&mu_);
  games_.push_back(std::move(game));
  return static_cast<int>(games_.size()) - 1;
}

GameRecord& GameLoad::game(int i) {
  absl::MutexLock lock(&mu_);
  return *games_[i];
}

template <typename Request, typename Reply, typename Rpc>
GameLoad::CallResult GameLoad::Call(std::uint64_t* rng, int game, Rpc rpc, const Request& request,
                                    Reply* reply, bool command) {
  const int n = static_cast<int>(stubs_.size());
  // A player avoids for a while a replica that just failed him, as a client library marks a
  // backend down: a new command goes to a random replica not avoided (any, if all are).
  thread_local std::vector<std::int64_t> avoid_until;
  avoid_until.resize(n, 0);
  int first = static_cast<int>(Next(rng) % static_cast<std::uint64_t>(n));
  const std::int64_t now = UnixMs();
  for (int i = 0; i < n && avoid_until[first] > now; ++i) first = (first + 1) % n;
  const absl::Time give_up = absl::Now() + options_.give_up_after;
  for (int attempt = 0;; ++attempt) {
    const int r = (first + attempt) % n;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     absl::ToChronoMilliseconds(options_.call_deadline));
    reply->Clear();
    const std::int64_t sent = UnixMs();
    grpc::Status st = (stubs_[r].get()->*rpc)(&ctx, request, reply);
    const std::int64_t returned = UnixMs();
    if (command) {
      absl::MutexLock lock(&mu_);
      attempts_.push_back({.sent_unix_ms = sent,
                           .at_unix_ms = returned,
                           .game = game,
                           .replica = r,
                           .code = st.error_code(),
                           .message = st.error_message().substr(0, 200)});
    }
    if (!st.ok() && Transient(st.error_code())) {
      avoid_until[r] = returned + absl::ToInt64Milliseconds(options_.avoid_failed_replica);
    }
    if (st.ok()) return {.ok = true, .status = st, .replica = r};
    if (!Transient(st.error_code())) return {.refused = true, .status = st, .replica = r};
    ++transient_;
    if (absl::Now() > give_up || stop_all_) return {.status = st, .replica = r};
    // Every replica in turn; a short pause once each has failed (all down: Redis restarting).
    if ((attempt + 1) % n == 0)
      absl::SleepFor(absl::Milliseconds(std::min(50 * (attempt + 1), 250)));
  }
}

void GameLoad::PlaySlot(int slot) {
  std::uint64_t rng = options_.seed * 1000003 + static_cast<std::uint64_t>(slot);
  for (int n = 0; !stop_moves_; ++n) PlayGame(slot, n, &rng);
}

void GameLoad::PlayGame(int slot, int n, std::uint64_t* rng) {
  auto record = std::make_unique<GameRecord>();
  record->game_id = absl::StrCat(options_.run_id, "-s", slot, "-g", n);
  record->flag_game = slot < options_.flag_games;
  GameRecord* g = record.get();
  const int index = AddGame(std::move(record));
  auto acked = [&](const std::string& id, int ply, const CallResult& r, const v1::GameReply& rep) {
    g->acks.push_back({.command_id = id,
                       .ply = ply,
                       .at_unix_ms = UnixMs(),
                       .replica = r.replica,
                       .replayed = rep.replayed(),
                       .reply = ViewOf(rep.game())});
    ++acks_;
    g->expected_flag_ms = rep.game().deadline_ms();
    g->deadline_set_by = rep.replayed() ? -1 : r.replica;
  };
  auto unresolved = [&](const std::string& id, const CallResult& r) {
    g->unresolved_command_id = id;
    if (r.refused) {
      g->refusal = absl::StrCat(r.status.error_code(), " ", r.status.error_message());
    }
  };

  v1::CreateGameRequest create;
  create.set_game_id(g->game_id);
  create.set_command_id("create");
  create.set_white_id(absl::StrCat("w-", slot));
  create.set_black_id(absl::StrCat("b-", slot));
  create.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  create.set_time_control(g->flag_game ? options_.flag_time_control : options_.long_time_control);
  v1::GameReply reply;
  CallResult r = Call(rng, index, &v1::Arbitration::Stub::CreateGame, create, &reply, true);
  if (!r.ok) return unresolved("create", r);
  acked("create", -1, r, reply);

  v1::StartGameRequest start;
  start.set_game_id(g->game_id);
  start.set_command_id("start");
  r = Call(rng, index, &v1::Arbitration::Stub::StartGame, start, &reply, true);
  if (!r.ok) return unresolved("start", r);
  acked("start", -1, r, reply);

  const std::vector<std::string>& script = ScriptedGame();
  const int plies = g->flag_game ? static_cast<int>(Uniform(rng, options_.flag_game_min_plies,
                                                            options_.flag_game_max_plies))
                                 : static_cast<int>(script.size());
  bool playing = true;
  for (int ply = 0; ply < plies && playing && !stop_moves_; ++ply) {
    absl::SleepFor(g->flag_game ? Think(rng, options_.flag_think_min, options_.flag_think_max)
                                : Think(rng, options_.long_think_min, options_.long_think_max));
    v1::SubmitMoveRequest move;
    move.set_game_id(g->game_id);
    const std::string id = absl::StrCat("m", ply);
    move.set_command_id(id);
    move.set_side(ply % 2 == 0 ? v1::COLOR_WHITE : v1::COLOR_BLACK);
    move.set_move(script[ply]);
    r = Call(rng, index, &v1::Arbitration::Stub::SubmitMove, move, &reply, true);
    if (r.ok) {
      acked(id, ply, r, reply);
      ++g->moves_acked;
    } else {
      unresolved(id, r);
      playing = false;
    }
  }
  if (g->flag_game) WaitForFlag(index, rng);
}

void GameLoad::WaitForFlag(int index, std::uint64_t* rng) {
  GameRecord& g = game(index);
  const absl::Time until = absl::Now() + options_.flag_wait;
  if (g.expected_flag_ms > 0) {
    const std::int64_t wait = g.expected_flag_ms - UnixMs();
    if (wait > 0) absl::SleepFor(absl::Milliseconds(wait));
  }
  // Each read to the next replica, on a short deadline: a stopped replica delays the sighting by
  // at most that much (the flag's own instant is the log's).
  v1::GetGameRequest get;
  get.set_game_id(g.game_id);
  v1::GameReply reply;
  g.flag_looked_from_ms = UnixMs();
  for (std::uint64_t i = Next(rng); absl::Now() < until && !stop_all_; ++i) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(150));
    grpc::Status st = stubs_[i % stubs_.size()]->GetGame(&ctx, get, &reply);
    if (st.ok() && reply.game().status() == v1::GAME_STATUS_ENDED) {
      g.flag_seen_ms = reply.game().now_ms();
      return;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
}

absl::Status GameLoad::ReadGame(const std::string& game_id, std::vector<v1::GameUpdate>* log,
                                v1::GameView* view) {
  absl::Status last = absl::UnavailableError("no replica");
  for (int attempt = 0; attempt < 3 * static_cast<int>(stubs_.size()); ++attempt) {
    v1::Arbitration::Stub* stub = stubs_[attempt % stubs_.size()].get();
    v1::GetGameRequest get;
    get.set_game_id(game_id);
    v1::GameReply reply;
    grpc::ClientContext get_ctx;
    get_ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    grpc::Status st = stub->GetGame(&get_ctx, get, &reply);
    if (!st.ok()) {
      last = absl::UnavailableError(absl::StrCat("GetGame ", game_id, ": ", st.error_message()));
      continue;
    }
    log->clear();
    v1::WatchGameRequest watch;
    watch.set_game_id(game_id);
    watch.set_after_version(0);
    grpc::ClientContext watch_ctx;
    watch_ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    std::unique_ptr<grpc::ClientReader<v1::GameUpdate>> reader = stub->WatchGame(&watch_ctx, watch);
    v1::GameUpdate update;
    while (static_cast<std::int64_t>(log->size()) < reply.game().version() &&
           reader->Read(&update)) {
      log->push_back(update);
    }
    watch_ctx.TryCancel();
    reader->Finish();
    if (static_cast<std::int64_t>(log->size()) >= reply.game().version()) {
      *view = reply.game();
      return absl::OkStatus();
    }
    last = absl::UnavailableError(absl::StrCat("WatchGame ", game_id, ": ", log->size(), " of ",
                                               reply.game().version(), " events"));
  }
  return last;
}

std::string GameLoad::DumpLog(const std::string& game_id, absl::Duration wait) {
  std::string out;
  v1::WatchGameRequest watch;
  watch.set_game_id(game_id);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + absl::ToChronoMilliseconds(wait));
  std::unique_ptr<grpc::ClientReader<v1::GameUpdate>> reader = stubs_[0]->WatchGame(&ctx, watch);
  v1::GameUpdate u;
  while (reader->Read(&u)) {
    const v1::ArbitrationEvent& e = u.event();
    std::string what = std::string(v1::ArbitrationEvent::descriptor()
                                       ->FindFieldByNumber(static_cast<int>(e.kind_case()))
                                       ->name());
    if (e.has_move()) {
      absl::StrAppend(&what, " ", v1::Color_Name(e.move().side()), " ", e.move().san());
    }
    if (e.has_flag()) absl::StrAppend(&what, " ", v1::Color_Name(e.flag().side()));
    absl::StrAppend(&out, "    v", u.version(), " ", u.command_id(), " ", what, " at ", e.at_ms(),
                    "\n");
  }
  grpc::Status st = reader->Finish();
  if (st.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED && !st.ok()) {
    absl::StrAppend(&out, "    (WatchGame: ", st.error_message(), ")\n");
  }
  return out;
}

}  // namespace e2e
