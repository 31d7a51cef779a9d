#include "tests/e2e/log_check.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "libs/clock/clock.h"
#include "libs/clock/time_control.h"

namespace e2e {

namespace {

std::optional<chess::Color> SideOf(v1::Color c) {
  if (c == v1::COLOR_WHITE) return chess::Color::kWhite;
  if (c == v1::COLOR_BLACK) return chess::Color::kBlack;
  return std::nullopt;
}

// SAN as written in the script and as the server writes it may differ in check marks only.
std::string Bare(const std::string& san) {
  return absl::StrReplaceAll(san, {{"+", ""}, {"#", ""}});
}

// The command's own event (not the flag or ending an append may carry with it).
bool IsCommandEvent(const std::string& command_id, const v1::ArbitrationEvent& e) {
  if (command_id == "create") return e.has_created();
  if (command_id == "start") return e.has_started();
  return e.has_move();
}

// The replayed clock's times at `now_ms` (as the service reads a state: never before its last
// operation; a stopped clock keeps its times).
std::pair<std::int64_t, std::int64_t> TimesAt(const chessclock::Clock& clock, std::int64_t now_ms) {
  const std::int64_t at = std::max(now_ms, clock.last_operation_ms());
  return {clock.RemainingMs(chess::Color::kWhite, at), clock.RemainingMs(chess::Color::kBlack, at)};
}

std::int64_t DeadlineOf(const chessclock::Clock& clock) {
  if (!clock.running()) return 0;
  std::optional<std::int64_t> d = clock.Deadline();
  return d ? *d : 0;
}

}  // namespace

void Tally::Problem(std::string what) {
  if (problems.size() < 30) problems.push_back(std::move(what));
}

void CheckGame(const GameRecord& game, const std::vector<v1::GameUpdate>& log,
               const v1::GameView& now, Tally* t) {
  const std::string& id = game.game_id;
  ++t->games;
  t->commands_acked += static_cast<std::int64_t>(game.acks.size());
  t->moves_acked += game.moves_acked;
  if (!game.unresolved_command_id.empty()) {
    ++t->unresolved;
    if (!game.refusal.empty()) ++t->refused;
  }
  for (const Ack& a : game.acks) t->replayed_acks += a.replayed ? 1 : 0;
  if (log.empty()) {
    if (!game.acks.empty()) {
      t->lost += static_cast<std::int64_t>(game.acks.size());
      for (const Ack& a : game.acks) t->lost_acked_at.push_back(a.at_unix_ms);
      t->Problem(absl::StrCat(id, ": acknowledged but no log"));
    }
    return;
  }
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i].version() != static_cast<std::int64_t>(i) + 1) {
      ++t->other_errors;
      t->Problem(absl::StrCat(id, ": version ", log[i].version(), " at position ", i + 1));
      return;
    }
  }

  // Each command id's own events, where they are.
  std::map<std::string, std::vector<std::int64_t>> versions_of;
  for (const v1::GameUpdate& u : log) {
    if (IsCommandEvent(u.command_id(), u.event()))
      versions_of[u.command_id()].push_back(u.version());
  }
  for (const auto& [command_id, versions] : versions_of) {
    if (versions.size() > 1) {
      t->applied_twice += static_cast<std::int64_t>(versions.size()) - 1;
      t->Problem(absl::StrCat(id, ": ", command_id, " applied ", versions.size(), " times"));
    }
  }
  for (const Ack& a : game.acks) {
    auto it = versions_of.find(a.command_id);
    if (it == versions_of.end() || it->second.front() > a.reply.version) {
      ++t->lost;
      t->lost_acked_at.push_back(a.at_unix_ms);
      t->Problem(absl::StrCat(id, ": acknowledged ", a.command_id, " (version ", a.reply.version,
                              ", replica ", a.replica, ") is not in the log"));
    }
  }
  if (!game.unresolved_command_id.empty() && versions_of.count(game.unresolved_command_id) > 0) {
    ++t->unresolved_applied;
  }

  // The moves: a prefix of the script, ply p under command id "m<p>"; acknowledged ones plus at
  // most the unresolved last.
  const std::vector<std::string>& script = ScriptedGame();
  int moves = 0;
  for (const v1::GameUpdate& u : log) {
    if (!u.event().has_move()) continue;
    const std::string want_id = absl::StrCat("m", moves);
    if (u.command_id() != want_id || moves >= static_cast<int>(script.size()) ||
        Bare(u.event().move().san()) != Bare(script[moves])) {
      ++t->other_errors;
      t->Problem(absl::StrCat(id, ": ply ", moves, " is ", u.event().move().san(), " (",
                              u.command_id(), ")"));
    }
    ++moves;
  }
  t->moves_in_logs += moves;
  const bool unresolved_move =
      !game.unresolved_command_id.empty() && game.unresolved_command_id[0] == 'm';
  if (moves > game.moves_acked + (unresolved_move ? 1 : 0)) {
    t->applied_twice += moves - game.moves_acked - (unresolved_move ? 1 : 0);
    t->Problem(
        absl::StrCat(id, ": ", moves, " moves in the log, ", game.moves_acked, " acknowledged"));
  }

  // The clock, replayed from the log with libs/clock.
  const v1::ArbitrationEvent& first = log[0].event();
  if (!first.has_created()) {
    ++t->other_errors;
    t->Problem(absl::StrCat(id, ": the log does not begin with the creation"));
    return;
  }
  absl::StatusOr<chessclock::TimeControl> tc =
      chessclock::ParsePgnTimeControl(first.created().time_control());
  if (!tc.ok()) {
    ++t->other_errors;
    t->Problem(absl::StrCat(id, ": time control: ", tc.status().message()));
    return;
  }
  absl::StatusOr<chessclock::Clock> created = chessclock::Clock::Create(*tc);
  if (!created.ok()) {
    ++t->other_errors;
    t->Problem(absl::StrCat(id, ": clock: ", created.status().message()));
    return;
  }
  chessclock::Clock clock = *created;
  std::vector<chessclock::Clock> after;  // after[v]: the clock after version v
  after.push_back(clock);
  after.push_back(clock);  // version 1: the creation
  int flags[2] = {0, 0};
  std::int64_t fell_at = 0;
  auto clock_error = [&](const std::string& what) {
    ++t->clock_errors;
    t->Problem(absl::StrCat(id, ": ", what));
  };
  for (size_t i = 1; i < log.size(); ++i) {
    const v1::ArbitrationEvent& e = log[i].event();
    const std::int64_t at = e.at_ms();
    absl::Status applied = absl::OkStatus();
    switch (e.kind_case()) {
      case v1::ArbitrationEvent::kStarted:
        applied = clock.Start(at);
        break;
      case v1::ArbitrationEvent::kMove: {
        std::optional<chess::Color> side = SideOf(e.move().side());
        if (!side) {
          clock_error("a move without a side");
          break;
        }
        ++t->clock_checks;
        const std::int64_t deadline = DeadlineOf(clock);
        if (deadline > 0 && at > deadline && flags[chess::Index(*side)] == 0) {
          clock_error(absl::StrCat("a move at ", at, " after the flag fell at ", deadline,
                                   " unrecorded (6.9)"));
        }
        if (e.move().ends_game()) {
          if (clock.running()) applied = clock.Pause(at);
        } else {
          applied = clock.Press(*side, at, e.move().lag_ms());
          if (applied.ok() && clock.RemainingMs(*side, at) != e.move().clock_ms()) {
            clock_error(absl::StrCat("version ", i + 1, ": the move's clock ", e.move().clock_ms(),
                                     " ms, replayed ", clock.RemainingMs(*side, at), " ms"));
          }
        }
        break;
      }
      case v1::ArbitrationEvent::kFlag: {
        ++t->flags;
        std::optional<chess::Color> side = SideOf(e.flag().side());
        const std::int64_t deadline = DeadlineOf(clock);
        if (!side || !clock.running() || clock.to_move() != *side) {
          ++t->flag_errors;
          t->Problem(absl::StrCat(id, ": a flag of a side whose clock does not run"));
          break;
        }
        if (++flags[chess::Index(*side)] > 1) {
          ++t->flag_errors;
          t->Problem(absl::StrCat(id, ": ", chess::ColorName(*side), "'s flag recorded twice"));
        }
        if (e.flag().fell_at_ms() != deadline || at < deadline) {
          ++t->flag_errors;
          t->Problem(absl::StrCat(id, ": flag at ", e.flag().fell_at_ms(), " (event at ", at,
                                  "), the replayed deadline is ", deadline));
        } else {
          ++t->flags_at_instant;
        }
        fell_at = e.flag().fell_at_ms();
        break;
      }
      case v1::ArbitrationEvent::kEnded:
        if (clock.running()) applied = clock.Pause(at);
        break;
      case v1::ArbitrationEvent::kReviewSettled:
        break;  // a flag's review settled by analysis: the result, not the clocks
      case v1::ArbitrationEvent::kDeadPositionAnswered:
        // Not dead: the game goes on as it went. (A dead answer sets the clocks back to the move
        // it ended the game at; the scripted games never reach a dead position.)
        if (e.dead_position_answered().dead()) {
          ++t->other_errors;
          t->Problem(absl::StrCat(id, ": a dead position at version ", i + 1));
        }
        break;
      default:
        ++t->other_errors;
        t->Problem(absl::StrCat(id, ": unexpected event at version ", i + 1));
    }
    if (!applied.ok()) clock_error(absl::StrCat("version ", i + 1, ": ", applied.message()));
    after.push_back(clock);
  }

  // What the service said: each reply's and the final view's times and deadline.
  auto check_view = [&](const ReplyView& v, const std::string& what) {
    if (v.version < 1 || v.version >= static_cast<std::int64_t>(after.size())) {
      ++t->other_errors;
      t->Problem(absl::StrCat(id, ": ", what, " at version ", v.version, " beyond the log"));
      return;
    }
    ++t->clock_checks;
    const chessclock::Clock& c = after[v.version];
    if (!c.running() && c.status() == chessclock::ClockStatus::kNotStarted) return;
    auto [white, black] = TimesAt(c, v.now_ms);
    if (v.white_ms != white || v.black_ms != black) {
      clock_error(absl::StrCat(what, " (version ", v.version, ") gave ", v.white_ms, "/",
                               v.black_ms, " ms, replayed ", white, "/", black));
    }
    if (v.status == v1::GAME_STATUS_ONGOING && v.deadline_ms != DeadlineOf(c)) {
      clock_error(absl::StrCat(what, " (version ", v.version, ") deadline ", v.deadline_ms,
                               ", replayed ", DeadlineOf(c)));
    }
  };
  for (const Ack& a : game.acks) check_view(a.reply, a.command_id);
  ReplyView final_view{.version = now.version(),
                       .status = now.status(),
                       .white_ms = now.white_ms(),
                       .black_ms = now.black_ms(),
                       .now_ms = now.now_ms(),
                       .deadline_ms = now.deadline_ms()};
  check_view(final_view, "GetGame");

  // Flag games: the flag fell, once, where the last reply said it would.
  if (game.flag_game) {
    const int total = flags[0] + flags[1];
    if (total != 1) {
      ++t->flag_errors;
      t->Problem(absl::StrCat(id, ": a flag game with ", total, " flags recorded"));
    } else {
      if (game.unresolved_command_id.empty() && fell_at != game.expected_flag_ms) {
        ++t->flag_errors;
        t->Problem(absl::StrCat(id, ": the flag fell at ", fell_at,
                                ", the last reply's deadline was ", game.expected_flag_ms));
      }
      t->flag_timings.push_back({.game_id = id,
                                 .fell_at_ms = fell_at,
                                 .seen_ms = game.flag_seen_ms,
                                 .looked_from_ms = game.flag_looked_from_ms,
                                 .deadline_set_by = game.deadline_set_by});
    }
  }
}

}  // namespace e2e
