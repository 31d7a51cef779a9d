// GameState's part of irregularities.h: how the events of Article 7 (irregularities), 6.13b (a
// player stops the clocks) and the arbiter's powers (12.4, 12.7, 12.8, 13.4) change a game's state.
// Apply stays mechanical: the rulings (irregularities.cc) decided everything the events carry.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/apply_log.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/game_state.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {
namespace {

using chess::Color;

// The plies a restoration to `ply` keeps, from the standing `record`.
void Truncate(GameState::Standing& record, std::size_t ply) {
  record.positions.erase(record.positions.begin() + static_cast<std::ptrdiff_t>(ply + 1),
                         record.positions.end());
  record.clock_ms.resize(ply);
  record.illegal.resize(ply);
  record.moves.resize(ply);
}

}  // namespace

absl::StatusOr<GameState::Standing> GameState::StandingRecord() const {
  ASSIGN_OR_RETURN(chess::Position start, chess::ParseFenOrStartpos(created_->start_fen().empty()
                                                                        ? "startpos"
                                                                        : created_->start_fen()));
  Standing record;
  record.positions.push_back(start);
  for (std::int64_t i = 0; i < version(); ++i) {
    const v1::ArbitrationEvent& e = event(i);
    switch (e.kind_case()) {
      case v1::ArbitrationEvent::kMove: {
        chess::Position next = record.positions.back();
        ASSIGN_OR_RETURN(chess::Move move, chess::ParseUci(next, e.move().uci()));
        RETURN_IF_ERROR(next.Play(move));
        record.positions.push_back(std::move(next));
        record.clock_ms.push_back(e.move().clock_ms());
        record.illegal.push_back(false);
        record.moves.push_back(move);
        break;
      }
      case v1::ArbitrationEvent::kIllegalMoveCompleted: {
        // C3: the position the illegal move made, where play went on from (if it could).
        if (e.illegal_move_completed().fen().empty()) break;
        ASSIGN_OR_RETURN(chess::Position next, chess::ParseFen(e.illegal_move_completed().fen()));
        record.positions.push_back(std::move(next));
        record.clock_ms.push_back(e.illegal_move_completed().clock_ms());
        record.illegal.push_back(true);
        record.moves.push_back(chess::Move());
        break;
      }
      case v1::ArbitrationEvent::kIllegalMoveReported:
      case v1::ArbitrationEvent::kPositionRestored: {
        const std::int64_t ply = e.has_illegal_move_reported() ? e.illegal_move_reported().ply()
                                                               : e.position_restored().ply();
        if (ply < 0 || ply >= static_cast<std::int64_t>(record.positions.size())) {
          return CorruptLog("a restoration beyond the record");
        }
        Truncate(record, static_cast<std::size_t>(ply));
        break;
      }
      default:
        break;
    }
  }
  return record;
}

absl::Status GameState::RestoreTo(std::int64_t ply, std::int64_t at_ms) {
  if (ply < legal_base_ply_ || ply > standing_plies_) {
    return CorruptLog("a restoration before a standing illegal move or beyond the record");
  }
  const std::int64_t taken_back = standing_plies_ - ply;
  if (taken_back == 0) {
    must_move_.reset();
    must_capture_.reset();
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Standing record, StandingRecord());
  if (static_cast<std::int64_t>(record.moves.size()) != standing_plies_) {
    return CorruptLog("the standing record disagrees with the state");
  }
  // The moves taken back, per side (6.14: the clock's move counters are corrected).
  std::array<int, 2> back{};
  for (std::int64_t i = ply; i < standing_plies_; ++i) {
    ++back[chess::Index(record.positions[static_cast<std::size_t>(i)].side_to_move())];
  }
  Truncate(record, static_cast<std::size_t>(ply));
  chess::Game game(record.positions[static_cast<std::size_t>(legal_base_ply_)]);
  for (std::int64_t i = legal_base_ply_; i < ply; ++i) {
    RETURN_IF_ERROR(game.Play(record.moves[static_cast<std::size_t>(i)]));
  }
  game_ = game.RepetitionWindow();
  // Every ply from `ply` on is a legal move of the log (legal_base_ply_ <= ply): the last
  // `taken_back` standing moves of the log.
  std::int64_t end = log_.plies();
  std::int64_t begin = end;
  for (std::int64_t left = taken_back; left > 0 && begin > 0;) {
    --begin;
    if (!retracted(begin)) --left;
  }
  retracted_.emplace_back(begin, end);
  standing_plies_ = ply;
  chessclock::ClockSetting setting;
  setting.white_ms = clock_.RemainingMs(Color::kWhite, at_ms);
  setting.black_ms = clock_.RemainingMs(Color::kBlack, at_ms);
  setting.white_moves = std::max(0, clock_.moves(Color::kWhite) - back[0]);
  setting.black_moves = std::max(0, clock_.moves(Color::kBlack) - back[1]);
  setting.to_move = to_move();
  const bool was_paused = clock_.status() == chessclock::ClockStatus::kPaused;
  RETURN_IF_ERROR(clock_.Set(setting, at_ms));
  if (was_paused) StopClock(at_ms);
  turn_start_remaining_ms_ = clock_.RemainingMs(to_move(), at_ms);
  draw_offer_.reset();
  must_move_.reset();
  must_capture_.reset();
  completed_illegal_.reset();
  return absl::OkStatus();
}

// 7.4a: 4.3 applies to the move that replaces the illegal one.
absl::Status GameState::Owe(const v1::IllegalMoveReported& r) {
  for (const auto& [text, slot] :
       {std::pair{&r.must_move(), &must_move_}, std::pair{&r.must_capture(), &must_capture_}}) {
    if (text->empty()) continue;
    std::optional<chess::Square> sq = chess::ParseSquare(*text);
    if (!sq) return CorruptLog("a touched piece on no square");
    *slot = *sq;
  }
  return absl::OkStatus();
}

std::vector<GameState::EventRule> GameState::IrregularityEvents() {
  return {
      {v1::ArbitrationEvent::kIllegalMoveReported,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         const v1::IllegalMoveReported& r = event.illegal_move_reported();
         ASSIGN_OR_RETURN(const Color side, SideOr(r.side(), "an illegal move"));
         // The arbiter corrects a C3 move that left no position (counted when it was made).
         const bool correction = s.unplayable_;
         s.unplayable_ = false;
         RETURN_IF_ERROR(s.RestoreTo(r.ply(), at));
         if (s.to_move() != side) return CorruptLog("an illegal move by the side not to move");
         if (correction && !s.ledger_.empty()) {
           // The press of C3 is undone: the offender's clock runs again (6.14: his move counter).
           chessclock::ClockSetting setting;
           setting.white_ms = s.clock_.RemainingMs(Color::kWhite, at);
           setting.black_ms = s.clock_.RemainingMs(Color::kBlack, at);
           (side == Color::kWhite ? setting.white_moves : setting.black_moves) =
               std::max(0, s.clock_.moves(side) - 1);
           setting.to_move = side;
           const bool was_paused = s.clock_.status() == chessclock::ClockStatus::kPaused;
           RETURN_IF_ERROR(s.clock_.Set(setting, at));
           if (was_paused) s.StopClock(at);
           s.turn_start_remaining_ms_ = s.clock_.RemainingMs(side, at);
           s.completed_illegal_.reset();
           s.ledger_.back().set_ruling(r.ruling());
           return s.Owe(r);
         }
         ++s.illegal_counts_[chess::Index(side)];
         RETURN_IF_ERROR(s.Owe(r));
         v1::IllegalMoveEntry entry;
         entry.set_side(r.side());
         entry.set_ply(r.ply());
         entry.set_move(absl::StrCat(r.from(), "-", r.to(), r.promotion()));
         entry.set_article(r.article());
         entry.set_ruling(r.ruling());
         s.ledger_.push_back(std::move(entry));
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kIllegalMoveCompleted,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         const v1::IllegalMoveCompleted& c = event.illegal_move_completed();
         std::optional<Color> side = laws::ColorOf(c.side());
         if (!side || *side != s.to_move())
           return CorruptLog("an illegal move by the side not to move");
         ++s.illegal_counts_[chess::Index(*side)];
         v1::IllegalMoveEntry entry;
         entry.set_side(c.side());
         entry.set_ply(static_cast<std::int32_t>(s.standing_plies_));
         entry.set_move(absl::StrCat(c.from(), "-", c.to(), c.promotion()));
         entry.set_article(c.article());
         entry.set_ruling("complete (C3): the opponent may claim before he moves");
         s.ledger_.push_back(std::move(entry));
         // C3: complete once the clock is pressed; the opponent's clock runs.
         RETURN_IF_ERROR(s.clock_.Press(*side, at));
         s.completed_illegal_ = *side;
         s.draw_offer_.reset();
         s.must_move_.reset();
         if (c.fen().empty()) {
           s.unplayable_ = true;
         } else {
           ASSIGN_OR_RETURN(chess::Position next, chess::ParseFen(c.fen()));
           if (next.side_to_move() != ~*side) return CorruptLog("the illegal move's position");
           s.game_ = chess::Game(next);  // the game goes on from the position it arose in
           s.touches_.EndTurn();         // the offender's touches are not the claimant's (B5b)
           ++s.standing_plies_;
           s.legal_base_ply_ = s.standing_plies_;
         }
         s.turn_start_remaining_ms_ = s.clock_.RemainingMs(s.to_move(), at);
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kPositionRestored,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         return s.RestoreTo(event.position_restored().ply(), at);
       }},
      {v1::ArbitrationEvent::kIrregularityRuled,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         return absl::OkStatus();  // recorded; an annulment ends the game by its own event
       }},
      {v1::ArbitrationEvent::kPlayerStoppedClocks,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         ASSIGN_OR_RETURN(const Color side, SideOr(event.player_stopped_clocks().side(), "a stop"));
         if (s.status_ != GameStatus::kOngoing || s.paused_)
           return CorruptLog("a stop out of play");
         // 6.13b/c: the clocks stand until the arbiter restarts them (ResumeGame).
         s.StopClock(at);
         s.paused_ = true;
         s.stopped_by_ = side;
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kStopRuled,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         if (!s.stopped_by_) return CorruptLog("a ruling on no stop");
         s.stopped_by_.reset();
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kPowerUsed,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         const v1::PowerUsed& p = event.power_used();
         std::optional<Color> side = laws::ColorOf(p.side());
         switch (p.power()) {
           case v1::ARBITER_POWER_REDUCE_POINTS:  // 13.4e
             if (!side) return CorruptLog("13.4e without a colour");
             s.points_delta_[chess::Index(*side)] -= p.points();
             break;
           case v1::ARBITER_POWER_INCREASE_POINTS:  // 13.4f
             if (!side) return CorruptLog("13.4f without a colour");
             s.points_delta_[chess::Index(*side)] += p.points();
             break;
           case v1::ARBITER_POWER_PERSISTENT_REFUSAL:  // 12.7: the opponent's score, the arbiter's
             if (!side) return CorruptLog("12.7 without a colour");
             s.points_set_[chess::Index(~*side)] = p.points();
             break;
           default:
             break;
         }
         return absl::OkStatus();
       }},
  };
}

std::pair<double, double> GameState::Points() const {
  const laws::Points& points = ruleset_.regulations.points;
  auto [white, black] = laws::Score(outcome_.result, points);
  if (!outcome_.over() || outcome_.result == laws::Result::kAnnulled) return {white, black};
  double out[2] = {white, black};
  for (int i = 0; i < 2; ++i) {
    if (points_set_[i]) out[i] = *points_set_[i];
    // 13.4e: not below nothing; 13.4f: "bis zu der in dieser Partie erreichbaren Höchstzahl".
    out[i] = std::clamp(out[i] + points_delta_[i], 0.0, std::max(points.win, 0.0));
  }
  return {out[0], out[1]};
}

}  // namespace arbitration
