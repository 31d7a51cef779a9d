#include "libs/arbitration/adjournment.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/events.h"
#include "libs/arbitration/plan.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/laws/automatic_ending.h"
#include "libs/laws/proto_convert.h"
#include "libs/store/errors.h"

namespace arbitration {
namespace {

using chess::Color;
using laws::Outcome;
using laws::Termination;

const v1::Session* SessionAt(const GameState& s, int index) {
  if (index < 0 || index >= s.created().sessions_size()) return nullptr;
  return &s.created().sessions(index);
}

// Moves and the rest of play need the game in play and not paused (6.13a).
absl::Status CheckPlaying(const GameState& s) {
  switch (s.status()) {
    case GameStatus::kCreated:
      return Error(kErrGameNotStarted, "the game has not started (6.5)");
    case GameStatus::kEnded:
      return Error(kErrGameOver, "the game is over");
    case GameStatus::kAwaitingRuling:
      return Error(kErrAwaitingRuling, "a claim awaits the arbiter's ruling");
    case GameStatus::kAdjourned:
      return Error(kErrGameAdjourned, "the game is adjourned (Appendix A)");
    case GameStatus::kOngoing:
      break;
  }
  if (s.paused()) return Error(kErrGamePaused, "the arbiter has stopped the clocks (6.13a)");
  return absl::OkStatus();
}

// Each side's used time (A2c): the thinking time of its moves, and the sealer's current turn.
std::int64_t UsedMs(const GameState& s, Color side, std::int64_t at_ms) {
  std::int64_t used = 0;
  for (std::int64_t i = 0; i < s.version(); ++i) {
    const v1::ArbitrationEvent& e = s.event(i);
    if (e.has_move() && laws::ColorOf(e.move().side()) == side) used += e.move().elapsed_ms();
  }
  if (side == s.to_move()) {
    used += std::max<std::int64_t>(0, s.turn_start_remaining_ms() - s.RemainingMs(side, at_ms));
  }
  return used;
}

// A1, A2: the envelope closes at `at_ms`: its record. `reply`: A9c's second envelope.
v1::ArbitrationEvent Envelope(const GameState& s, std::int64_t at_ms, bool reply) {
  const Color sealer = s.to_move();
  const v1::GameCreated& c = s.created();
  v1::ArbitrationEvent e;
  v1::GameAdjourned* a = e.mutable_adjourned();
  a->set_white_name(c.white_name().empty() ? c.white_id() : c.white_name());
  a->set_black_name(c.black_name().empty() ? c.black_id() : c.black_name());
  a->set_fen_before(chess::ToFen(s.position()));
  a->set_white_used_ms(UsedMs(s, Color::kWhite, at_ms));
  a->set_black_used_ms(UsedMs(s, Color::kBlack, at_ms));
  a->set_white_ms(s.RemainingMs(Color::kWhite, at_ms));
  a->set_black_ms(s.RemainingMs(Color::kBlack, at_ms));
  a->set_sealer(laws::ToProto(sealer));
  a->set_move_number(s.position().fullmove_number());
  if (s.draw_offer()) a->set_draw_offer(laws::ToProto(*s.draw_offer()));
  a->set_reply(reply);
  const int next = s.adjournment().session + 1;
  if (const v1::Session* session = reply ? nullptr : SessionAt(s, next)) {
    a->set_resume_at_ms(session->start_ms());
    a->set_resume_place(session->place());
    a->set_session(next);
  } else {
    a->set_session(s.adjournment().session);
  }
  const std::int64_t remaining = s.RemainingMs(sealer, at_ms);
  chessclock::Clock trial = s.clock();
  a->set_sealer_clock_ms(trial.Press(sealer, at_ms).ok() ? trial.RemainingMs(sealer, at_ms)
                                                         : remaining);
  a->set_sealer_elapsed_ms(std::max<std::int64_t>(0, s.turn_start_remaining_ms() - remaining));
  return e;
}

// What the sealed move `move` (legal in the position before it) ends on the board: the automatic
// endings (5.1a mate, 5.2a stalemate, a dead position proved statically), then after a capture, a
// pawn move or a promotion the analyst's dead-position check (5.2b, 9.6).
struct SealedEnding {
  Outcome outcome;
  std::string proof;
};
absl::StatusOr<std::optional<SealedEnding>> EndingAfterSealed(const GameState& s,
                                                              const chess::Move& move,
                                                              Analyst& analyst) {
  chess::Game after = s.game().RepetitionWindow();
  RETURN_IF_ERROR(after.Play(move));
  if (std::optional<laws::AutomaticEnding> end = laws::EndingOf(after, s.ruleset().edition)) {
    return SealedEnding{end->outcome, end->proof};
  }
  if (s.position().IsZeroing(move)) {
    AnalystAnswer dead = analyst.DeadPosition(after.position());
    if (dead.verdict == analysis::Verdict::kUnwinnable) {
      return SealedEnding{Outcome::Draw(Termination::kDeadPosition, "5.2b"), dead.proof};
    }
  }
  return std::nullopt;
}

// The sealed move of the closed envelope played on the board (A9; A10a, b): the sealer's move,
// on his clock as it stood when the envelope closed.
v1::ArbitrationEvent SealedMovePlayed(const GameState& s, const chess::Move& move, bool ends_game) {
  const v1::GameAdjourned& env = *s.adjournment().envelope;
  v1::ArbitrationEvent e;
  v1::MoveMade* m = e.mutable_move();
  m->set_side(env.sealer());
  m->set_uci(chess::ToUci(move));
  m->set_san(chess::ToSan(s.position(), move));
  m->set_ends_game(ends_game);
  m->set_clock_ms(env.sealer_clock_ms());
  m->set_elapsed_ms(env.sealer_elapsed_ms());
  m->set_sealed(true);
  return e;
}

// A7, A8, A9: the envelope is opened at `at_ms` and the sealed move `text` played on the board.
absl::Status Open(const GameState& s, const std::optional<std::string>& text, std::int64_t at_ms,
                  const v1::Actor& actor, const AddEvent& add, Analyst& analyst) {
  if (!text) {
    return Error(kErrSealKeyMissing,
                 "the envelope is to be opened, but the server cannot read it (no seal key)");
  }
  const v1::GameAdjourned& env = *s.adjournment().envelope;
  const Color sealer = *laws::ColorOf(env.sealer());
  const Color replier = ~sealer;
  const chess::Position& before = s.position();
  absl::StatusOr<chess::Move> move = chess::ParseMove(before, *text);
  if (!move.ok()) {
    // A8: ambiguous, unreadable or illegal: the sealer loses, except where 9.6 decides: a player
    // who cannot mate by any series of legal moves does not win (the Analyst's "cannot mate").
    AnalystAnswer can_mate = analyst.CanMate(before, replier);
    const bool cannot = can_mate.verdict == analysis::Verdict::kUnwinnable;
    const Outcome outcome = cannot ? Outcome::Draw(Termination::kSealedMoveInvalid, "A8")
                                   : Outcome::Win(replier, Termination::kSealedMoveInvalid, "A8");
    const std::string proof = absl::StrCat(
        "A8: the sealed move \"", *text, "\" of ", chess::ColorName(sealer), " (move ",
        env.move_number(), ") is not a legal, unambiguous move: ", move.status().message(),
        cannot ? absl::StrCat("; 9.6: ", chess::ColorName(replier),
                              " cannot mate by any series of legal moves (", can_mate.proof, ")")
               : "");
    return add(EndedEvent(outcome, proof), at_ms, actor);
  }
  ASSIGN_OR_RETURN(std::optional<SealedEnding> ending, EndingAfterSealed(s, *move, analyst));
  RETURN_IF_ERROR(add(SealedMovePlayed(s, *move, ending.has_value()), at_ms, actor));
  // A10a, b: a sealed move that mates, stalemates or leaves a dead position ends the game here,
  // whoever is absent.
  if (ending) RETURN_IF_ERROR(add(EndedEvent(ending->outcome, ending->proof), at_ms, actor));
  return absl::OkStatus();
}

}  // namespace

std::string SealContext(absl::string_view game_id, std::int64_t bound_version) {
  return absl::StrCat("sealed-move|", game_id, "|", bound_version);
}

absl::Status CheckNoSealPending(const GameState& s) {
  const GameState::Adjournment& a = s.adjournment();
  if (a.envelope) {
    return Error(kErrSealedMoveUnopened,
                 "a sealed move waits to be opened when the replying player is present (A7, A9)");
  }
  if (a.sealed || a.seal_called) {
    return Error(kErrSealCalled,
                 "the move is sealed (A1): SealMove, not a move on the board; the arbiter's call "
                 "to seal stands");
  }
  return absl::OkStatus();
}

absl::Status DecideSealMove(const GameState& s, const Command& c, std::int64_t now_ms,
                            const AddEvent& add) {
  RETURN_IF_ERROR(CheckPlaying(s));
  const Color side = *c.side;
  if (side != s.to_move()) {
    return Error(kErrNotYourTurn, "A1: the player on move seals");
  }
  const GameState::Adjournment& adj = s.adjournment();
  if (adj.envelope) {
    return Error(kErrSealedMoveUnopened, "a sealed move waits to be opened (A7, A9)");
  }
  if (c.seal.box().empty() || c.seal.box().size() > 512 || c.seal.key_id().size() > 64 ||
      c.seal.wrapped_key().size() > 128) {
    return Error(kErrBadArgument, "seal_move: a sealed box is required");
  }
  if (c.seal.bound_version() != s.version()) {
    return Error(store::kErrVersionConflict,
                 absl::StrCat("the move was sealed on version ", c.seal.bound_version(),
                              "; the game is at ", s.version(), ": seal again"));
  }
  if (adj.wrapped_key.empty() && c.seal.wrapped_key().empty()) {
    return Error(kErrBadArgument, "seal_move: the game's first seal carries its wrapped key");
  }
  // A9c: the sealer is absent at the resumption; his opponent may seal his reply instead of
  // playing it, stop his clock and start the sealer's.
  const bool reply = adj.absent[chess::Index(~side)] && !adj.sealed;
  const v1::Session* session = SessionAt(s, adj.session);
  if (!reply && !SessionAt(s, adj.session + 1)) {
    return Error(kErrNoSession, "A2g: no later session is scheduled to resume the game in");
  }
  // A1b: sealed before the session's scheduled end: the end counts as the time of sealing.
  const bool early = !reply && !adj.seal_called && session && now_ms < session->end_ms();
  v1::ArbitrationEvent e;
  v1::MoveSealed* m = e.mutable_move_sealed();
  *m = c.seal;
  m->set_side(laws::ToProto(side));
  m->set_move_number(s.position().fullmove_number());
  m->set_early(early);
  m->set_reply(reply);
  if (!adj.wrapped_key.empty()) {
    m->clear_wrapped_key();  // the game's key is in its first seal
    m->set_key_id(adj.key_id);
  }
  RETURN_IF_ERROR(add(std::move(e), now_ms, c.actor));
  // A1: "Erst danach darf er seine Uhr anhalten": stopping the clock closes the envelope; A9c's
  // second envelope closes at once. Sealed early, it closes at the session's end (Settle).
  if (reply || (c.stop_clock && !early)) {
    return add(Envelope(s, now_ms, reply), now_ms, c.actor);
  }
  return absl::OkStatus();
}

absl::Status DecideAdjourn(const GameState& s, const Command& c, std::int64_t now_ms,
                           const AddEvent& add) {
  RETURN_IF_ERROR(CheckPlaying(s));
  const GameState::Adjournment& adj = s.adjournment();
  if (adj.envelope) {
    return Error(kErrSealedMoveUnopened, "a sealed move waits to be opened (A7, A9)");
  }
  if (adj.sealed) {
    // A1: the arbiter sees the envelope sealed and the sealer's clock stopped. A seal made before
    // the session's end (A1b) that he closes early is charged to now: his decision.
    return add(Envelope(s, now_ms, false), now_ms, c.actor);
  }
  if (adj.seal_called) {
    return Error(kErrSealCalled, "A1a: the call to seal stands; the player on move seals");
  }
  if (!SessionAt(s, adj.session + 1)) {
    return Error(kErrNoSession, "A2g: no later session is scheduled to resume the game in");
  }
  v1::ArbitrationEvent e;
  e.mutable_seal_called()->set_reason(c.reason);
  return add(std::move(e), now_ms, c.actor);
}

absl::Status DecideResumeAdjourned(const GameState& s, const Command& c, std::int64_t now_ms,
                                   const AddEvent& add, Analyst& analyst) {
  if (s.status() != GameStatus::kAdjourned) {
    return Error(kErrNotAdjourned, "the game is not adjourned");
  }
  const int index = s.adjournment().session;
  const v1::Session* session = SessionAt(s, index);
  if (!session) return Error(kErrNoSession, "no session to resume the game in");
  // A13: the arbiter's clock (the server's time base) governs the session's start.
  if (now_ms < session->start_ms()) {
    return Error(kErrSessionNotStarted,
                 absl::StrCat("A13: session ", index + 1, " starts at ", session->start_ms(),
                              " ms; it is ", now_ms, " ms"));
  }
  if (c.absent.size() > 2) return Error(kErrBadArgument, "at most two absent players");
  v1::ArbitrationEvent e;
  e.mutable_adjourned_resumed()->set_session(index);
  for (Color side : c.absent) e.mutable_adjourned_resumed()->add_absent(laws::ToProto(side));
  RETURN_IF_ERROR(add(std::move(e), now_ms, c.actor));
  // A9a: the replying player is present: the envelope is opened and the move played. A9b: he is
  // absent: his clock runs and the envelope waits for him. After A11a no envelope waits.
  if (const std::optional<v1::GameAdjourned>& env = s.adjournment().envelope) {
    const Color replier = ~*laws::ColorOf(env->sealer());
    if (s.present(replier)) return Open(s, c.opened_move, now_ms, c.actor, add, analyst);
  }
  return absl::OkStatus();
}

absl::Status DecideEnvelopeLost(const GameState& s, const Command& c, std::int64_t now_ms,
                                const AddEvent& add) {
  if (c.reason.empty() || c.reason.size() > 1024) {
    return Error(kErrBadArgument, "report_envelope_lost: a reason (at most 1,024 bytes)");
  }
  // A11 does not limit itself to the time before the resumption: an envelope that waits after
  // it (A9b: the replier absent; A9c: the reply's second envelope) may be found lost too.
  const bool waiting = s.status() == GameStatus::kOngoing && s.adjournment().envelope;
  if (s.status() != GameStatus::kAdjourned && !waiting) {
    return Error(kErrNotAdjourned, "A11: the envelope of an adjourned game");
  }
  if (!s.adjournment().envelope) return Error(kErrNoEnvelope, "no closed envelope");
  v1::ArbitrationEvent e;
  e.mutable_envelope_lost()->set_position_unknown(c.position_unknown);
  e.mutable_envelope_lost()->set_reason(c.reason);
  RETURN_IF_ERROR(add(std::move(e), now_ms, c.actor));
  if (!c.position_unknown) return absl::OkStatus();
  // A11b: the position cannot be established: the game is void, a new game is played.
  Outcome annulled;
  annulled.result = laws::Result::kAnnulled;
  annulled.termination = Termination::kArbiterDecision;
  annulled.article = "A11b";
  return add(EndedEvent(annulled, c.reason), now_ms, c.actor);
}

absl::Status OpenOnArrival(const GameState& s, const Command& c, std::int64_t now_ms,
                           const AddEvent& add, Analyst& analyst) {
  const std::optional<v1::GameAdjourned>& env = s.adjournment().envelope;
  if (s.status() != GameStatus::kOngoing || !env || !c.side) return absl::OkStatus();
  // A9b: the replier arrives (the envelope is opened, his clock runs on). A9c: the sealer
  // arrives and the second envelope, his opponent's reply, is opened.
  if (*c.side != ~*laws::ColorOf(env->sealer())) return absl::OkStatus();
  return Open(s, c.opened_move, now_ms, c.actor, add, analyst);
}

bool DefaultOpensEnvelope(const GameState& s) {
  return s.status() == GameStatus::kOngoing && s.adjournment().envelope &&
         !s.present(Color::kWhite) && !s.present(Color::kBlack);
}

absl::Status RecordDefaultWithEnvelope(const GameState& s,
                                       const std::optional<std::string>& opened_move,
                                       std::int64_t at_ms, const AddEvent& add, Analyst& analyst) {
  const v1::GameAdjourned& env = *s.adjournment().envelope;
  const Color sealer = *laws::ColorOf(env.sealer());
  // Neither came: both lose (6.7), unless A10's exceptions for the absent sealer apply. A10c (the
  // present player lost on time) needs a present player: none here.
  const Outcome both = Outcome::BothLose(Termination::kDefault, "6.7");
  const std::string late =
      "A10: both players came more than an hour after the session's scheduled start";
  if (!opened_move) {
    // The server has no seal key (--seal_key_file), or its key does not open the box, so it
    // cannot open the envelope and cannot see whether A10a or A10b apply: the default of 6.7
    // stands for both, as it did before the envelope could be opened here. The arbiter who opens
    // the paper envelope and finds a mate, a stalemate or a dead position corrects the result
    // (SetResult).
    return add(EndedEvent(both, absl::StrCat(late,
                                             "; the envelope stays closed: the server has no "
                                             "seal key that opens it, so A10a and A10b are not "
                                             "examined")),
               at_ms, ServerActor());
  }
  const chess::Position& before = s.position();
  absl::StatusOr<chess::Move> move = chess::ParseMove(before, *opened_move);
  if (!move.ok()) {
    // A8 would make the sealer lose; his opponent, absent too, has lost by default: both lose.
    return add(EndedEvent(both, absl::StrCat(late, "; the envelope opened: the sealed move \"",
                                             *opened_move, "\" of ", chess::ColorName(sealer),
                                             " is not a legal, unambiguous move (A8)")),
               at_ms, ServerActor());
  }
  ASSIGN_OR_RETURN(std::optional<SealedEnding> ending, EndingAfterSealed(s, *move, analyst));
  const bool a10a = ending && ending->outcome.winner() == sealer;
  const bool a10b = ending && (ending->outcome.termination == Termination::kStalemate ||
                               ending->outcome.termination == Termination::kDeadPosition);
  const std::string san = chess::ToSan(before, *move);
  if (!a10a && !a10b) {
    return add(EndedEvent(both, absl::StrCat(late, "; the envelope opened: the sealed move ",
                                             env.move_number(),
                                             sealer == Color::kWhite ? ". " : "... ", san,
                                             " neither mates, stalemates nor reaches a position of "
                                             "9.6: no exception")),
               at_ms, ServerActor());
  }
  // A10a: the sealed move mates, the absent sealer wins; A10b: it stalemates or reaches a dead
  // position (9.6), a draw. The move is played on the board, the game ends with it.
  RETURN_IF_ERROR(add(SealedMovePlayed(s, *move, true), at_ms, ServerActor()));
  return add(
      EndedEvent(ending->outcome, absl::StrCat(late, "; the envelope opened: the sealed move ", san,
                                               a10a ? " mates (A10a): the absent sealer wins"
                                                    : " ends the game in a draw (A10b)",
                                               ending->proof.empty() ? "" : "; ", ending->proof)),
      at_ms, ServerActor());
}

std::optional<std::int64_t> EnvelopeClosesAt(const GameState& s) {
  const GameState::Adjournment& a = s.adjournment();
  if (s.status() != GameStatus::kOngoing || s.paused() || a.envelope || !a.sealed ||
      !a.sealed->early()) {
    return std::nullopt;
  }
  const v1::Session* session = SessionAt(s, a.session);
  if (!session) return std::nullopt;
  return std::max(session->end_ms(), s.last_event_ms());
}

absl::Status CloseEnvelopeAt(const GameState& s, std::int64_t at_ms, const AddEvent& add) {
  return add(Envelope(s, at_ms, false), at_ms, ServerActor());
}

namespace {

// The commands of Appendix A as rows of the rulings' table (plan.h).
absl::Status DecideSealMoveCommand(Plan& plan, const Command& c, Analyst& /*analyst*/,
                                   v1::ClaimRuling* /*ruling*/) {
  return DecideSealMove(plan.state, c, plan.now_ms, plan.Adder());
}

absl::Status DecideAdjournCommand(Plan& plan, const Command& c, Analyst& /*analyst*/,
                                  v1::ClaimRuling* /*ruling*/) {
  return DecideAdjourn(plan.state, c, plan.now_ms, plan.Adder());
}

absl::Status DecideResumeAdjournedCommand(Plan& plan, const Command& c, Analyst& analyst,
                                          v1::ClaimRuling* /*ruling*/) {
  return DecideResumeAdjourned(plan.state, c, plan.now_ms, plan.Adder(), analyst);
}

absl::Status DecideEnvelopeLostCommand(Plan& plan, const Command& c, Analyst& /*analyst*/,
                                       v1::ClaimRuling* /*ruling*/) {
  return DecideEnvelopeLost(plan.state, c, plan.now_ms, plan.Adder());
}

}  // namespace

absl::Span<const CommandRule> AdjournmentRules() {
  static constexpr CommandRule kRows[] = {
      {CommandKind::kSealMove, "seal_move", RequireSide, DecideSealMoveCommand},  // A1
      {CommandKind::kAdjourn, "adjourn", OptionalReason, DecideAdjournCommand},
      {CommandKind::kResumeAdjourned, "resume_adjourned", OptionalReason,
       DecideResumeAdjournedCommand},
      {CommandKind::kReportEnvelopeLost, "report_envelope_lost", RequireReason,
       DecideEnvelopeLostCommand},  // A11
  };
  return kRows;
}

}  // namespace arbitration
