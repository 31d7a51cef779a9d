#include "libs/arbitration/pgn_export.h"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "libs/base/enum_table.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/clock/time_control.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {
namespace {

using chess::Color;

std::string SideTitle(v1::Color color) {
  if (color == v1::COLOR_WHITE) return "White";
  if (color == v1::COLOR_BLACK) return "Black";
  return "?";
}

std::string Opponent(v1::Color color) {
  if (color == v1::COLOR_WHITE) return "Black";
  if (color == v1::COLOR_BLACK) return "White";
  return "the opponent";
}

// "threefold_repetition" -> "threefold repetition".
std::string TerminationWords(laws::Termination termination) {
  return absl::StrReplaceAll(laws::TerminationName(termination), {{"_", " "}});
}

std::string DescribeOutcome(const laws::Outcome& outcome) {
  static constexpr absl::string_view kResultWords[] = {
      "not decided", "White wins", "Black wins", "drawn", "both players lose (0-0)", "annulled"};
  std::string out(base::EnumEntry(kResultWords, outcome.result, ""));
  if (outcome.termination != laws::Termination::kNone) {
    absl::StrAppend(&out, " by ", TerminationWords(outcome.termination));
  }
  if (!outcome.article.empty()) absl::StrAppend(&out, " (", outcome.article, ")");
  return out;
}

// PGN can only carry 1-0, 0-1, 1/2-1/2 and *; 0-0 (6.7 both absent) and an annulled game are
// written as * and explained in the final comment.
std::string PgnResult(laws::Result result) {
  switch (result) {
    case laws::Result::kWhiteWins:
    case laws::Result::kBlackWins:
    case laws::Result::kDraw:
      return std::string(laws::ResultText(result));
    default:
      return "*";
  }
}

// An article of the Laws and what happens under it.
struct ArticleWords {
  absl::string_view article;
  absl::string_view what;
};

// Indexed by v1::ClaimKind (UNSPECIFIED first): the article a claim falls under, what it claims.
constexpr ArticleWords kClaimWords[] = {
    {"", "?"},
    {"9.2", "a draw by threefold repetition"},
    {"9.3", "a draw by the fifty-move rule"},
    {"10.2", "a draw in the quickplay finish"},
    {"B7", "a win on time"},
    {"C3", "the win on the opponent's completed illegal move"},
};

// Indexed by v1::QuickplayGround: the ground of a claim without an arbiter (D1).
constexpr absl::string_view kQuickplayGrounds[] = {
    "", " (the opponent cannot win by normal means)",
    " (the opponent makes no attempt to win by normal means)"};

std::string ClaimWhat(const v1::ClaimMade& c) {
  std::string what(base::EnumEntry(kClaimWords, c.kind(), kClaimWords[0]).what);
  if (c.kind() == v1::CLAIM_KIND_QUICKPLAY) {
    absl::StrAppend(&what, base::EnumEntry(kQuickplayGrounds, c.ground(), ""));
  }
  if (c.kind() == v1::CLAIM_KIND_ILLEGAL_MOVE && !c.illegal_from().empty()) {  // 7.4a, B5
    what = absl::StrCat("that the opponent's move ", c.illegal_from(), "-", c.illegal_to(),
                        c.illegal_promotion(), " was illegal");
  }
  return what;
}

std::string ClaimDefaultArticle(v1::ClaimKind kind) {
  return std::string(base::EnumEntry(kClaimWords, kind, kClaimWords[0]).article);
}

std::string RulingName(v1::ClaimRuling ruling) {
  // Indexed by v1::ClaimRuling (UNSPECIFIED first).
  static constexpr absl::string_view kNames[] = {"", "correct", "incorrect", "awaits the arbiter"};
  return std::string(base::EnumEntry(kNames, ruling, ""));
}

// Indexed by v1::RulingDecision (UNSPECIFIED first): the article the arbiter rules under (when
// the event names none) and what he decides.
constexpr ArticleWords kRulingWords[] = {
    {"", "the arbiter rules"},
    {"10.2a", "the arbiter declares the game drawn"},
    {"10.2b", "the arbiter postpones his decision"},
    {"10.2c", "the arbiter rejects the claim"},
    {"7.4a", "the arbiter finds the claimed illegal move"},
};

std::string Signed(std::int64_t delta_ms) {
  return absl::StrCat(delta_ms < 0 ? "-" : "+", FormatPgnClock(std::llabs(delta_ms)));
}

// Start instants are Unix ms on the server's time base. One before 2000 is no real date: an
// offline simulation counts from 0, and an unscheduled game has 0.
constexpr std::int64_t kYear2000Ms = 946'684'800'000;

std::string PgnDate(std::optional<std::int64_t> at_ms) {
  if (!at_ms.has_value() || *at_ms < kYear2000Ms) return "????.??.??";
  return absl::FormatTime("%Y.%m.%d", absl::FromUnixMillis(*at_ms), absl::UTCTimeZone());
}

class Builder {
 public:
  Builder(const GameState& game, const PgnExportOptions& options)
      : game_(game), options_(options) {}

  chess::PgnGame Build() {
    const v1::GameCreated& created = game_.created();
    SetRoster(created);
    std::optional<std::int64_t> started_at;
    // One by one: events() copies the whole log.
    for (std::int64_t i = 0; i < game_.version(); ++i) {
      const v1::ArbitrationEvent& e = game_.event(i);
      if (e.has_started() && !started_at.has_value()) started_at = e.at_ms();
      Event(e);
    }
    pgn_.SetTag("Date", PgnDate(started_at.has_value()
                                    ? started_at
                                    : std::optional<std::int64_t>(created.scheduled_start_ms())));
    const laws::Outcome& outcome = game_.outcome();
    pgn_.result = PgnResult(outcome.result);
    pgn_.SetTag("Result", pgn_.result);
    pgn_.SetTag("Termination", PgnTermination(outcome));
    // The last word of the record is the outcome and its article (8.7: what the players sign).
    if (outcome.over() && last_outcome_note_ != DescribeOutcome(outcome)) {
      Note(DescribeOutcome(outcome));
    }
    // 11.1, 13.4e/f, 12.7: the points, where they are not what the result tag says (1-0, ½-½,
    // 0-1 scored 1 / ½ / 0): PGN's Result has no room for them.
    if (outcome.over() && game_.Points() != laws::Score(outcome.result, laws::Points{})) {
      const auto [white, black] = game_.Points();
      Note(absl::StrCat("points: White ", white, ", Black ", black));
    }
    if (game_.review_awaits_analysis()) {
      Note("marked for review: waiting for search-analysis to answer (6.10)");
    } else if (game_.review()) {
      Note("marked for the arbiter's review (6.10: the search was undetermined)");
    }
    // The illegal-move ledger (7.4b, 7.5.5, C3).
    if (!game_.illegal_ledger().empty()) {
      Note(absl::StrCat("illegal moves: White ", game_.illegal_moves(Color::kWhite), ", Black ",
                        game_.illegal_moves(Color::kBlack)));
    }
    return std::move(pgn_);
  }

 private:
  void SetRoster(const v1::GameCreated& created) {
    pgn_.SetTag("Event", created.event().empty() ? "?" : created.event());
    pgn_.SetTag("Site", created.site().empty() ? "?" : created.site());
    pgn_.SetTag("Date", "????.??.??");
    pgn_.SetTag("Round", created.round().empty() ? "?" : created.round());
    const std::string& white =
        created.white_name().empty() ? created.white_id() : created.white_name();
    const std::string& black =
        created.black_name().empty() ? created.black_id() : created.black_name();
    pgn_.SetTag("White", white.empty() ? "?" : white);
    pgn_.SetTag("Black", black.empty() ? "?" : black);
    pgn_.SetTag("Result", "*");
    // The PGN standard's seconds form; a control it cannot express (delays, fractions) is left
    // out rather than written wrongly.
    if (absl::StatusOr<std::string> tc = chessclock::FormatPgnTimeControl(game_.time_control());
        tc.ok()) {
      pgn_.SetTag("TimeControl", *tc);
    }
    if (!created.start_fen().empty()) {
      pgn_.SetTag("SetUp", "1");
      absl::StatusOr<chess::Position> start = chess::ParseFenOrStartpos(created.start_fen());
      if (start.ok()) pgn_.SetTag("FEN", chess::ToFen(*start));
    }
  }

  // A comment after the last move, or before the first.
  void Note(const std::string& text) {
    if (pgn_.moves.empty()) {
      pgn_.leading_comments.push_back(text);
    } else {
      pgn_.moves.back().comments.push_back(text);
    }
  }
  void ArbiterNote(const std::string& text) {
    if (options_.arbiter_comments) Note(text);
  }

  void Event(const v1::ArbitrationEvent& e) {
    switch (e.kind_case()) {
      case v1::ArbitrationEvent::kCreated:
        break;
      case v1::ArbitrationEvent::kStarted: {
        std::string absent;
        for (int c : e.started().absent()) {
          absl::StrAppend(&absent, absent.empty() ? "" : " and ",
                          SideTitle(static_cast<v1::Color>(c)));
        }
        if (!absent.empty()) ArbiterNote(absl::StrCat("6.6: ", absent, " absent at the start"));
        break;
      }
      case v1::ArbitrationEvent::kArrived:
        ArbiterNote(absl::StrCat("6.6: ", SideTitle(e.arrived().side()), " arrives at the board"));
        break;
      case v1::ArbitrationEvent::kMove:
        Move(e.move());
        // Appendix A7, A9: the sealed move is in the record, in clear, once opened.
        if (e.move().sealed()) Note("A9: the sealed move, opened by the arbiter");
        break;
      case v1::ArbitrationEvent::kDrawOffered: {
        const v1::DrawOffered& d = e.draw_offered();
        // An offer made with a move is already marked after that move.
        if (!d.outside_move() && offer_marked_ == d.side()) break;
        Note("(=)");
        if (d.outside_move()) {
          ArbiterNote(absl::StrCat("9.1b: ", SideTitle(d.side()),
                                   " offers a draw outside the move (12.5)"));
        }
        break;
      }
      case v1::ArbitrationEvent::kDrawOfferRefused: {
        // 9.1a, 12.5: in the record for the arbiter; the move stood, the offer did not.
        const v1::DrawOfferRefused& r = e.draw_offer_refused();
        Note(absl::StrCat(r.code(), ": ", SideTitle(r.side()),
                          "'s draw offer with this move: ", r.reason()));
        break;
      }
      case v1::ArbitrationEvent::kDrawAnswered:
        ArbiterNote(absl::StrCat("9.1: ", SideTitle(e.draw_answered().side()),
                                 e.draw_answered().accepted() ? " accepts" : " declines",
                                 " the draw offer"));
        break;
      case v1::ArbitrationEvent::kResigned:
        ArbiterNote(absl::StrCat("5.1b: ", SideTitle(e.resigned().side()), " resigns"));
        break;
      case v1::ArbitrationEvent::kClaim:
        Claim(e.claim());
        break;
      case v1::ArbitrationEvent::kRuled:
        Ruled(e.ruled());
        break;
      case v1::ArbitrationEvent::kFlag: {
        const v1::FlagRecorded& f = e.flag();
        std::string text = absl::StrCat(f.article().empty() ? "6.9" : f.article(), ": ",
                                        SideTitle(f.side()), "'s flag has fallen");
        if (!f.counts()) absl::StrAppend(&text, " (it counts only on the opponent's claim)");
        ArbiterNote(text);
        break;
      }
      case v1::ArbitrationEvent::kAdjusted: {
        const v1::TimeAdjusted& a = e.adjusted();
        std::string text = absl::StrCat(a.article().empty() ? "arbiter" : a.article(), ": ",
                                        SideTitle(a.side()), "'s clock ", Signed(a.delta_ms()));
        if (!a.reason().empty()) absl::StrAppend(&text, ": ", a.reason());
        ArbiterNote(text);
        break;
      }
      case v1::ArbitrationEvent::kClockStopped:
        ArbiterNote("the clocks are stopped");
        break;
      case v1::ArbitrationEvent::kClockRestarted:
        ArbiterNote("the clocks are restarted");
        break;
      case v1::ArbitrationEvent::kPaused:
        ArbiterNote(absl::StrCat(e.paused().article(),
                                 ": the arbiter stops the clocks: ", e.paused().reason()));
        break;
      case v1::ArbitrationEvent::kClocksSet: {
        const v1::ClocksSet& c = e.clocks_set();
        ArbiterNote(absl::StrCat(c.article(), ": the arbiter sets the clocks, White ",
                                 FormatPgnClock(c.white_ms()), ", Black ",
                                 FormatPgnClock(c.black_ms()), ": ", c.reason()));
        break;
      }
      case v1::ArbitrationEvent::kResumed: {
        std::string text = "the arbiter restarts the clocks";
        if (!e.resumed().reason().empty()) absl::StrAppend(&text, ": ", e.resumed().reason());
        ArbiterNote(text);
        break;
      }
      case v1::ArbitrationEvent::kEnded: {
        const laws::Outcome outcome = laws::OutcomeOf(e.ended().outcome());
        std::string text = DescribeOutcome(outcome);
        last_outcome_note_ = text;
        if (!e.ended().proof().empty()) absl::StrAppend(&text, "; proof: ", e.ended().proof());
        if (e.ended().review_awaits_analysis()) {
          absl::StrAppend(&text, "; search-analysis did not answer: the review waits for it");
        }
        Note(text);
        break;
      }
      case v1::ArbitrationEvent::kDeadPositionAnswered: {
        const v1::DeadPositionAnswered& d = e.dead_position_answered();
        if (!d.dead()) break;  // the game went on as it went: nothing to note
        const std::string described =
            DescribeOutcome(laws::Outcome::Draw(laws::Termination::kDeadPosition, d.article()));
        last_outcome_note_ = described;
        std::string text = absl::StrCat(
            d.article(), ": ", d.answered_by(), " answers that the position after ply ", d.ply(),
            " was dead: the game ended then, ", described, "; the moves after it are void");
        if (!d.proof().empty()) absl::StrAppend(&text, "; proof: ", d.proof());
        Note(text);
        break;
      }
      case v1::ArbitrationEvent::kReviewSettled: {
        const v1::ReviewSettled& r = e.review_settled();
        const std::string described = DescribeOutcome(laws::OutcomeOf(r.outcome()));
        last_outcome_note_ = described;
        std::string text =
            absl::StrCat(r.article(), ": the review settled by ", r.settled_by(), ": ", described);
        if (!r.proof().empty()) absl::StrAppend(&text, "; proof: ", r.proof());
        if (r.review()) absl::StrAppend(&text, "; the search was undetermined: for the arbiter");
        Note(text);
        break;
      }
      case v1::ArbitrationEvent::kConfirmed:
        ArbiterNote(absl::StrCat("8.7: ", SideTitle(e.confirmed().side()), " confirms the result"));
        break;
      case v1::ArbitrationEvent::kResultSet: {
        const laws::Outcome outcome = laws::OutcomeOf(e.result_set().outcome());
        const std::string described = DescribeOutcome(outcome);
        last_outcome_note_ = described;
        std::string text = absl::StrCat("the arbiter sets the result: ", described);
        if (!e.result_set().reason().empty()) {
          absl::StrAppend(&text, "; ", e.result_set().reason());
        }
        Note(text);
        break;
      }
      // Electronic boards and touch-move (Article 4). Releases and bare board reports
      // are not in the record; touches, "j'adoube", rulings, irregularities and signals are.
      case v1::ArbitrationEvent::kPieceTouched: {
        const v1::PieceTouched& t = e.piece_touched();
        if (t.promotion()) {  // 2023 4.4.4: the promotion's piece is chosen
          Note(absl::StrCat("4.4.4: ", SideTitle(t.side()), " puts ", t.piece(), " on ", t.square(),
                            " to promote"));
          break;
        }
        Note(absl::StrCat(t.adjusting() ? "4.2: " : "4.3: ", SideTitle(t.side()),
                          t.adjusting() ? " adjusts " : " touches ", t.piece(), " ", t.square()));
        break;
      }
      case v1::ArbitrationEvent::kAdjustAnnounced:
        Note(absl::StrCat(e.adjust_announced().article(), ": ",
                          SideTitle(e.adjust_announced().side()), " announces \"j'adoube\""));
        break;
      case v1::ArbitrationEvent::kTouchMoveRuled: {
        const v1::TouchMoveRuled& r = e.touch_move_ruled();
        std::string text = absl::StrCat(r.article(), ": ");
        if (r.claimant() != v1::COLOR_UNSPECIFIED) {
          absl::StrAppend(&text, SideTitle(r.claimant()), " claims touch-move; ");
        }
        absl::StrAppend(
            &text, "the arbiter rules: ",
            r.violation() ? "violation" : (r.owed() ? "the piece is owed" : "no violation"));
        if (!r.move_uci().empty()) absl::StrAppend(&text, " (move ", r.move_uci(), ")");
        absl::StrAppend(&text, "; ", r.reason());
        ArbiterNote(text);
        break;
      }
      case v1::ArbitrationEvent::kBoardIrregularity: {
        const v1::BoardIrregularity& b = e.board_irregularity();
        ArbiterNote(absl::StrCat(b.article(), ": ", SideTitle(b.side()),
                                 "'s illegal move on the electronic board (", b.placement(),
                                 "): ", b.reason()));
        break;
      }
      case v1::ArbitrationEvent::kBoardResultSignal:
        Note(absl::StrCat(
            "the electronic board's result signal (kings on the centre squares): ",
            laws::ResultText(
                laws::ResultOf(e.board_result_signal().result()).value_or(laws::Result::kOngoing)),
            "; not a result"));
        break;
      case v1::ArbitrationEvent::kPieceReleased:
      case v1::ArbitrationEvent::kBoardFrame:
        break;
      // Article 7, 6.13b/d, 12, 13.4.
      case v1::ArbitrationEvent::kIllegalMoveReported:
        IllegalReported(e.illegal_move_reported());
        break;
      case v1::ArbitrationEvent::kIllegalMoveCompleted:
        IllegalCompleted(e.illegal_move_completed());
        break;
      case v1::ArbitrationEvent::kPositionRestored: {
        const v1::PositionRestored& r = e.position_restored();
        Retract(r.ply());
        std::string text =
            absl::StrCat(r.article(), ": the arbiter restores the position ", r.fen());
        if (r.position_unknown()) {
          absl::StrAppend(&text, " (the last known: the one before cannot be determined)");
        }
        if (r.side() != v1::COLOR_UNSPECIFIED) {
          absl::StrAppend(&text, "; ", SideTitle(r.side()), " displaced the pieces");
        }
        if (!r.reason().empty()) absl::StrAppend(&text, ": ", r.reason());
        Note(text);
        break;
      }
      case v1::ArbitrationEvent::kIrregularityRuled: {
        const v1::IrregularityRuled& r = e.irregularity_ruled();
        Note(absl::StrCat(r.article(), ": the arbiter rules: ", r.decision(), ": ", r.reason()));
        break;
      }
      case v1::ArbitrationEvent::kPlayerStoppedClocks: {
        const v1::PlayerStoppedClocks& p = e.player_stopped_clocks();
        Note(absl::StrCat("6.13b: ", SideTitle(p.side()),
                          " stops the clocks to seek the arbiter: ", p.reason()));
        break;
      }
      case v1::ArbitrationEvent::kStopRuled: {
        const v1::StopRuled& r = e.stop_ruled();
        ArbiterNote(absl::StrCat("6.13d: the arbiter rules that ", SideTitle(r.side()), " had ",
                                 r.valid() ? "a valid" : "no valid",
                                 " reason to stop the clocks: ", r.reason()));
        break;
      }
      case v1::ArbitrationEvent::kPowerUsed: {
        const v1::PowerUsed& p = e.power_used();
        std::string text = absl::StrCat(p.article(), ": ", PowerWords(p.power()));
        if (p.side() != v1::COLOR_UNSPECIFIED) absl::StrAppend(&text, ", ", SideTitle(p.side()));
        if (p.power() == v1::ARBITER_POWER_REDUCE_POINTS ||
            p.power() == v1::ARBITER_POWER_INCREASE_POINTS ||
            p.power() == v1::ARBITER_POWER_PERSISTENT_REFUSAL) {
          absl::StrAppend(&text, " (points: ", p.points(), ")");
        }
        absl::StrAppend(&text, ": ", p.reason());
        Note(text);
        break;
      }
      // Appendix A: never the sealed move before it is opened (it is not in these events).
      case v1::ArbitrationEvent::kMoveSealed:
        if (e.move_sealed().reply()) {
          Note(absl::StrCat("A9c: ", SideTitle(e.move_sealed().side()),
                            " seals his reply in a second envelope"));
        } else {
          Note(absl::StrCat("A1: ", SideTitle(e.move_sealed().side()), " seals move ",
                            e.move_sealed().move_number(),
                            e.move_sealed().early() ? " (A1b: before the session's end)" : ""));
        }
        break;
      case v1::ArbitrationEvent::kSealCalled:
        ArbiterNote("A1a: the arbiter calls the player on move to seal");
        break;
      case v1::ArbitrationEvent::kAdjourned: {
        const v1::GameAdjourned& a = e.adjourned();
        if (a.reply()) break;
        std::string text =
            absl::StrCat("A1, A2: the game is adjourned, ", SideTitle(a.sealer()),
                         " has sealed move ", a.move_number(), "; White ",
                         FormatPgnClock(a.white_ms()), ", Black ", FormatPgnClock(a.black_ms()));
        if (a.draw_offer() != v1::COLOR_UNSPECIFIED) {
          absl::StrAppend(&text, "; ", SideTitle(a.draw_offer()), "'s draw offer stands");
        }
        if (a.resume_at_ms() > 0) {
          absl::StrAppend(&text, "; resumption ", PgnDate(a.resume_at_ms()),
                          a.resume_place().empty() ? "" : absl::StrCat(", ", a.resume_place()));
        }
        Note(text);
        break;
      }
      case v1::ArbitrationEvent::kAdjournedResumed: {
        std::string text = absl::StrCat("A5, A9: the game resumes (session ",
                                        e.adjourned_resumed().session() + 1, ")");
        for (int c : e.adjourned_resumed().absent()) {
          absl::StrAppend(&text, "; ", SideTitle(static_cast<v1::Color>(c)), " absent");
        }
        Note(text);
        break;
      }
      case v1::ArbitrationEvent::kEnvelopeLost:
        Note(absl::StrCat("A11: the envelope is lost",
                          e.envelope_lost().position_unknown()
                              ? ", the position cannot be established: the game is void"
                              : "; the game resumes from the recorded position and times",
                          ": ", e.envelope_lost().reason()));
        break;
      case v1::ArbitrationEvent::KIND_NOT_SET:
        break;
    }
  }

  static std::string PowerWords(v1::ArbiterPower power) {
    // Indexed by v1::ArbiterPower (UNSPECIFIED first).
    static constexpr absl::string_view kWords[] = {
        "the arbiter uses a power",
        "the arbiter warns",
        "the arbiter declares the game lost for",
        "the arbiter reduces the points in the result of",
        "the arbiter increases the points in the result of",
        "the arbiter expels from the event",
        "persistent refusal to comply with the Laws: the game is lost for",
        "both players persistently refuse to comply with the Laws: both lose",
        "the arbiter permits to leave the playing venue"};
    return std::string(base::EnumEntry(kWords, power, kWords[0]));
  }

  // 7.3-7.5: the standing plies from `ply` on are taken back; the record says which.
  void Retract(std::int64_t ply) {
    const std::int64_t keep = std::max<std::int64_t>(0, ply - base_ply_);
    if (keep >= static_cast<std::int64_t>(pgn_.moves.size())) return;
    std::string taken;
    for (std::size_t i = static_cast<std::size_t>(keep); i < pgn_.moves.size(); ++i) {
      absl::StrAppend(&taken, taken.empty() ? "" : " ", pgn_.moves[i].san);
    }
    pgn_.moves.resize(static_cast<std::size_t>(keep));
    Note(absl::StrCat("taken back: ", taken));
  }

  // 7.4a: the position before the illegal move restored; 4.3 and the penalty noted.
  void IllegalReported(const v1::IllegalMoveReported& r) {
    Retract(r.ply());
    std::string text =
        absl::StrCat(r.article(), ": ", SideTitle(r.side()), "'s illegal move ", r.from(), "-",
                     r.to(), r.promotion(), " (illegal move ", r.count(), " of ",
                     SideTitle(r.side()), " in this game); ",
                     r.position_unknown()
                         ? "the position before it cannot be determined: the last known restored"
                         : "the position before it restored");
    if (!r.must_move().empty()) {
      absl::StrAppend(&text, "; 4.3: the piece on ", r.must_move(), " must be moved");
    }
    if (!r.must_capture().empty()) {
      absl::StrAppend(&text, "; 4.3: the piece on ", r.must_capture(), " must be captured");
    }
    if (!r.ruling().empty()) absl::StrAppend(&text, "; ", r.ruling());
    if (!r.reason().empty()) absl::StrAppend(&text, " (", r.reason(), ")");
    Note(text);
  }

  // C3: the illegal move is complete. No movetext can hold it: the record so far becomes a
  // comment and the game restarts from the position it made (SetUp/FEN), as a FEN comment too.
  void IllegalCompleted(const v1::IllegalMoveCompleted& c) {
    std::string text =
        absl::StrCat(c.article(), ": ", SideTitle(c.side()), " completes the illegal move ",
                     c.from(), "-", c.to(), c.promotion(), " (illegal move ", c.count(), " of ",
                     SideTitle(c.side()), " in this game) and presses the clock");
    if (c.fen().empty()) {
      Note(absl::StrCat(text, "; it leaves no playable position"));
      return;
    }
    std::string before;
    for (const chess::PgnMove& m : pgn_.moves) {
      absl::StrAppend(&before, before.empty() ? "" : " ", m.san);
    }
    Note(text);
    if (before.empty()) before = "none";
    base_ply_ += static_cast<std::int64_t>(pgn_.moves.size()) + 1;
    std::vector<std::string> carried = pgn_.leading_comments;
    for (const chess::PgnMove& m : pgn_.moves) {
      for (const std::string& comment : m.comments) {
        // The moves' own clock comments go with them; the arbiter's notes stay in the record.
        if (!absl::StartsWith(comment, "[%clk")) carried.push_back(comment);
      }
    }
    pgn_.moves.clear();
    pgn_.leading_comments = std::move(carried);
    pgn_.leading_comments.push_back(
        absl::StrCat("the moves before the illegal move: ", before,
                     "; the game goes on from the position it made: [%fen ", c.fen(), "]"));
    pgn_.SetTag("SetUp", "1");
    pgn_.SetTag("FEN", c.fen());
  }

  void Move(const v1::MoveMade& m) {
    const std::size_t ply = pgn_.moves.size();
    chess::PgnMove pm;
    pm.san = m.san();
    if (pm.san.empty()) {
      // A log from before the SAN was recorded: from the whole game, replayed once.
      if (!whole_.has_value()) whole_ = game_.FullGame();
      if (whole_->ok() && ply < (*whole_)->moves().size()) {
        pm.san = chess::ToSan((*whole_)->positions()[ply], (*whole_)->moves()[ply]);
      }
    }
    if (options_.clocks && !game_.time_control().untimed()) {
      pm.comments.push_back(absl::StrCat("[%clk ", FormatPgnClock(m.clock_ms()), "] [%emt ",
                                         FormatPgnClock(m.elapsed_ms()), "]"));
    }
    pgn_.moves.push_back(std::move(pm));
    // 8.1 / Appendix E: an offer made with the move is written "(=)" after it; so is a claim's
    // intended move when the claim stands as an offer (9.1c).
    offer_marked_ = v1::COLOR_UNSPECIFIED;
    const bool claim_offer = claim_offer_ == m.side();
    claim_offer_ = v1::COLOR_UNSPECIFIED;
    if (m.offer_draw() || claim_offer) {
      Note("(=)");
      offer_marked_ = m.side();
    }
  }

  void Claim(const v1::ClaimMade& c) {
    claimant_ = c.side();
    // 9.1c: a 9.2, 9.3 or 10.2 claim not found correct stands as a draw offer: "(=)" after the
    // intended move it came with, or beside the claim when it came without one.
    const bool offer = c.kind() != v1::CLAIM_KIND_TIME && c.kind() != v1::CLAIM_KIND_UNSPECIFIED &&
                       c.kind() != v1::CLAIM_KIND_ILLEGAL_MOVE &&
                       c.ruling() != v1::CLAIM_RULING_CORRECT;
    const bool with_move = !c.intended_san().empty() || !c.intended_uci().empty();
    if (offer && with_move) claim_offer_ = c.side();
    if (offer && !with_move) Note("(=)");
    if (!options_.arbiter_comments) return;
    const std::string article = c.article().empty() ? ClaimDefaultArticle(c.kind()) : c.article();
    std::string text = absl::StrCat(article, ": ", SideTitle(c.side()), " claims ", ClaimWhat(c));
    if (!c.intended_san().empty() || !c.intended_uci().empty()) {
      absl::StrAppend(&text, " with the intended move ",
                      c.intended_san().empty() ? c.intended_uci() : c.intended_san());
    }
    if (const std::string ruling = RulingName(c.ruling()); !ruling.empty()) {
      absl::StrAppend(&text, ": ", ruling);
    }
    if (!c.reason().empty()) absl::StrAppend(&text, " (", c.reason(), ")");
    if (!c.final_fen().empty()) absl::StrAppend(&text, "; final position ", c.final_fen());
    if (options_.include_advice && !c.advice().empty()) {
      absl::StrAppend(&text, "; advice for the arbiter (12.2): ", c.advice());
    }
    Note(text);
  }

  void Ruled(const v1::ArbiterRuled& r) {
    const ArticleWords words = base::EnumEntry(kRulingWords, r.decision(), kRulingWords[0]);
    std::string text =
        absl::StrCat(r.article().empty() ? words.article : r.article(), ": ", words.what);
    if (r.add_time()) {
      absl::StrAppend(&text, "; ", Opponent(claimant_), " receives two extra minutes");
    }
    if (!r.reason().empty()) absl::StrAppend(&text, " (", r.reason(), ")");
    ArbiterNote(text);
  }

  const GameState& game_;
  const PgnExportOptions& options_;
  std::optional<absl::StatusOr<chess::Game>> whole_;  // game_.FullGame(), when a SAN is missing
  chess::PgnGame pgn_;
  v1::Color offer_marked_ = v1::COLOR_UNSPECIFIED;
  v1::Color claimant_ = v1::COLOR_UNSPECIFIED;
  v1::Color claim_offer_ = v1::COLOR_UNSPECIFIED;  // a claim's intended move will carry "(=)"
  std::string last_outcome_note_;
  std::int64_t base_ply_ = 0;  // the standing ply of the movetext's first move (C3 restarts)
};

}  // namespace

absl::string_view PgnTermination(const laws::Outcome& outcome) {
  if (!outcome.over() || outcome.result == laws::Result::kAnnulled) return "unterminated";
  switch (outcome.termination) {
    case laws::Termination::kTimeForfeit:
    case laws::Termination::kTimeoutVsInsufficient:
    case laws::Termination::kBothFlags:
      return "time forfeit";
    case laws::Termination::kDefault:
      // 6.7: the player never came to the board.
      return "abandoned";
    case laws::Termination::kArbiterDecision:
    case laws::Termination::kQuickplayFinishClaim:
      // 10.2 / D1: the arbiter decided the result, not the play.
      return "adjudication";
    case laws::Termination::kIllegalMoves:
    case laws::Termination::kSealedMoveInvalid:
      return "rules infraction";
    default:
      return "normal";
  }
}

std::string FormatPgnClock(std::int64_t ms) {
  if (ms < 0) ms = 0;
  const std::int64_t tenths = ms / 100;
  const std::int64_t s = tenths / 10;
  return absl::StrFormat("%d:%02d:%02d.%d", s / 3600, (s / 60) % 60, s % 60, tenths % 10);
}

chess::PgnGame ToPgnGame(const GameState& game, const PgnExportOptions& options) {
  return Builder(game, options).Build();
}

std::string ExportPgn(const GameState& game, const PgnExportOptions& options) {
  return chess::WritePgn(ToPgnGame(game, options));
}

}  // namespace arbitration
