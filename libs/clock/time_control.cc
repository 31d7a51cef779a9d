#include "libs/clock/time_control.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "libs/base/enum_table.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/clock/errors.h"

namespace chessclock {
namespace {

constexpr std::int64_t kSecond = 1000;
constexpr std::int64_t kMinute = 60 * kSecond;

absl::Status BadTimeControl(absl::string_view message) {
  return base::Error(chessclock::kErrBadTimeControl, message);
}
absl::Status NotExpressible(absl::string_view message) {
  return base::Error(chessclock::kErrNotExpressible, message);
}

// A whole number written with digits only (no sign, no spaces), at most 9 digits.
std::optional<std::int64_t> ParseWhole(absl::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  std::int64_t value = 0;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// A period's number of moves, already a positive whole number: at most kMaxMovesPerPeriod.
absl::StatusOr<int> PeriodMoves(std::int64_t moves, absl::string_view where) {
  if (moves > kMaxMovesPerPeriod) {
    return BadTimeControl(
        absl::StrCat(where, ": at most ", kMaxMovesPerPeriod, " moves per period"));
  }
  return static_cast<int>(moves);
}

// "12" or "1.5" in units of `unit_ms`, giving a whole number of milliseconds; nullopt otherwise.
std::optional<std::int64_t> ParseDecimal(absl::string_view text, std::int64_t unit_ms) {
  const size_t dot = text.find('.');
  absl::string_view whole = text.substr(0, dot);
  absl::string_view fraction = dot == absl::string_view::npos ? "" : text.substr(dot + 1);
  if (dot != absl::string_view::npos && fraction.empty()) return std::nullopt;
  if (fraction.size() > 6) return std::nullopt;
  std::optional<std::int64_t> w = ParseWhole(whole.empty() && !fraction.empty() ? "0" : whole);
  if (!w.has_value()) return std::nullopt;
  std::int64_t scale = 1;
  std::int64_t f = 0;
  for (char c : fraction) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    f = f * 10 + (c - '0');
    scale *= 10;
  }
  if ((f * unit_ms) % scale != 0) return std::nullopt;  // not whole milliseconds
  return *w * unit_ms + f * unit_ms / scale;
}

// ms as minutes with the fewest decimals (at most 4) that are exact.
absl::StatusOr<std::string> FormatMinutes(std::int64_t ms) {
  std::int64_t scale = 1;
  for (int decimals = 0; decimals <= 4; ++decimals, scale *= 10) {
    if ((ms * scale) % kMinute != 0) continue;
    const std::int64_t scaled = ms * scale / kMinute;
    if (decimals == 0) return absl::StrCat(scaled);
    std::string fraction = absl::StrCat(scaled % scale + scale).substr(1);  // zero-padded
    return absl::StrCat(scaled / scale, ".", fraction);
  }
  return NotExpressible(absl::StrCat(
      ms, " ms is not a whole number of 1/10000 minutes; the human form is in minutes"));
}

// ms as seconds with up to 3 decimals (always exact).
std::string FormatSeconds(std::int64_t ms) {
  if (ms % kSecond == 0) return absl::StrCat(ms / kSecond);
  std::string fraction = absl::StrCat(ms % kSecond + kSecond).substr(1);
  while (fraction.back() == '0') fraction.pop_back();
  return absl::StrCat(ms / kSecond, ".", fraction);
}

std::string Quoted(absl::string_view text) { return absl::StrCat("\"", text, "\""); }

// --- PGN
// ------------------------------------------------------------------------------------------

absl::StatusOr<Period> ParsePgnField(absl::string_view field, int number, bool last) {
  const std::string where = absl::StrCat("field ", number, " ", Quoted(field));
  if (field.empty()) return BadTimeControl(absl::StrCat("field ", number, " is empty"));
  if (field == "?" || field == "-" || field[0] == '*') {
    return BadTimeControl(absl::StrCat(where, ": \"?\", \"-\" and \"*seconds\" must stand alone"));
  }
  Period period;
  absl::string_view rest = field;
  if (const size_t slash = rest.find('/'); slash != absl::string_view::npos) {
    std::optional<std::int64_t> moves = ParseWhole(rest.substr(0, slash));
    if (!moves.has_value() || *moves == 0) {
      return BadTimeControl(absl::StrCat(where, ": the number of moves before '/' must be a ",
                                         "positive whole number"));
    }
    ASSIGN_OR_RETURN(period.moves, PeriodMoves(*moves, where));
    rest = rest.substr(slash + 1);
  } else if (!last) {
    return BadTimeControl(absl::StrCat(where,
                                       ": a field without \"moves/\" covers the rest of the ",
                                       "game, so only the last field may omit it"));
  }
  absl::string_view seconds = rest;
  absl::string_view increment;
  if (const size_t plus = rest.find('+'); plus != absl::string_view::npos) {
    seconds = rest.substr(0, plus);
    increment = rest.substr(plus + 1);
    std::optional<std::int64_t> inc = ParseWhole(increment);
    if (!inc.has_value()) {
      return BadTimeControl(absl::StrCat(where, ": the increment ", Quoted(increment),
                                         " is not a whole number of seconds"));
    }
    if (*inc > 0) period.bonus = {BonusKind::kIncrement, *inc * kSecond};
  }
  std::optional<std::int64_t> secs = ParseWhole(seconds);
  if (!secs.has_value()) {
    return BadTimeControl(absl::StrCat(where, ": the time ", Quoted(seconds),
                                       " is not a whole number of seconds (the PGN tag is in "
                                       "seconds; write decimals and minutes in the human form)"));
  }
  period.time_ms = *secs * kSecond;
  return period;
}

// --- Human form
// -----------------------------------------------------------------------------------

class Cursor {
 public:
  explicit Cursor(absl::string_view text) : text_(text) {}
  void SkipSpaces() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : absl::ascii_tolower(text_[pos_]); }
  void Advance(size_t n = 1) { pos_ = std::min(text_.size(), pos_ + n); }
  // Consumes `prefix` (lower case) if the text continues with it, ignoring case.
  bool Consume(absl::string_view prefix) {
    if (text_.size() - pos_ < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (absl::ascii_tolower(text_[pos_ + i]) != prefix[i]) return false;
    }
    pos_ += prefix.size();
    return true;
  }
  // Digits and dots.
  absl::string_view Number() {
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  absl::string_view Rest() const { return text_.substr(std::min(pos_, text_.size())); }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
};

absl::StatusOr<Period> ParseHumanPeriod(absl::string_view text, int number, bool last) {
  const std::string where = absl::StrCat("period ", number, " ", Quoted(text));
  if (text.empty()) return BadTimeControl(absl::StrCat("period ", number, " is empty"));
  Period period;
  Cursor c(text);
  bool rest_of_game = false;
  if (c.Consume("g/") || c.Consume("sd/")) {
    rest_of_game = true;
  } else if (text.find('/') != absl::string_view::npos) {
    absl::string_view moves_text = c.Number();
    c.SkipSpaces();
    std::optional<std::int64_t> moves = ParseWhole(moves_text);
    if (!moves.has_value() || *moves == 0 || !c.Consume("/")) {
      return BadTimeControl(absl::StrCat(where, ": expected a positive whole number of moves ",
                                         "before '/', or \"G/\" for the rest of the game"));
    }
    ASSIGN_OR_RETURN(period.moves, PeriodMoves(*moves, where));
  } else {
    rest_of_game = true;
  }
  if (rest_of_game && !last) {
    return BadTimeControl(absl::StrCat(where, ": without a move count it covers the rest of the ",
                                       "game, so it must be the last period"));
  }
  c.SkipSpaces();
  absl::string_view minutes_text = c.Number();
  std::optional<std::int64_t> minutes = ParseDecimal(minutes_text, kMinute);
  if (!minutes.has_value()) {
    return BadTimeControl(
        absl::StrCat(where, ": expected the time in minutes (e.g. 90 or 2.5) at ", Quoted(c.Rest()),
                     minutes_text.empty() ? "" : "; decimals must give whole milliseconds"));
  }
  period.time_ms = *minutes;
  c.SkipSpaces();
  if (c.Peek() == ';') {
    c.Advance();
    c.SkipSpaces();
  }
  if (!c.AtEnd()) {
    const char letter = c.Peek();
    BonusKind kind = BonusKind::kNone;
    if (letter == '+') kind = BonusKind::kIncrement;
    if (letter == 'd') kind = BonusKind::kSimpleDelay;
    if (letter == 'b') kind = BonusKind::kBronsteinDelay;
    if (kind == BonusKind::kNone) {
      return BadTimeControl(absl::StrCat(where, ": unexpected ", Quoted(c.Rest()),
                                         "; a bonus is \"+s\" (increment), \"d s\" (simple delay) ",
                                         "or \"b s\" (Bronstein delay), in seconds"));
    }
    c.Advance();
    c.SkipSpaces();
    absl::string_view seconds_text = c.Number();
    std::optional<std::int64_t> seconds = ParseDecimal(seconds_text, kSecond);
    if (!seconds.has_value()) {
      return BadTimeControl(absl::StrCat(where, ": expected the ", BonusKindName(kind),
                                         " in seconds at ", Quoted(c.Rest())));
    }
    c.SkipSpaces();
    if (!c.AtEnd()) {
      return BadTimeControl(absl::StrCat(where, ": unexpected ", Quoted(c.Rest()),
                                         " after the bonus; a period has one bonus"));
    }
    if (*seconds > 0) period.bonus = {kind, *seconds};
  }
  return period;
}

std::string HumanBonus(const Bonus& bonus) {
  switch (bonus.kind) {
    case BonusKind::kNone:
      return "";
    case BonusKind::kIncrement:
      return absl::StrCat("+", FormatSeconds(bonus.ms));
    case BonusKind::kSimpleDelay:
      return absl::StrCat(" d", FormatSeconds(bonus.ms));
    case BonusKind::kBronsteinDelay:
      return absl::StrCat(" b", FormatSeconds(bonus.ms));
  }
  return "";
}

}  // namespace

absl::string_view BonusKindName(BonusKind kind) {
  static constexpr absl::string_view kNames[] = {"none", "increment", "simple_delay",
                                                 "bronstein_delay"};
  return base::EnumEntry(kNames, kind, "?");
}

absl::StatusOr<TimeControl> TimeControl::Create(absl::Span<const Period> periods) {
  if (periods.empty()) return BadTimeControl("a time control needs at least one period");
  if (periods.size() > kMaxPeriods) {
    return BadTimeControl(absl::StrCat("at most ", kMaxPeriods, " periods, got ", periods.size()));
  }
  TimeControl tc;
  int total = 0;
  for (size_t i = 0; i < periods.size(); ++i) {
    const Period& p = periods[i];
    const std::string where = absl::StrCat("period ", i + 1);
    if (p.moves < 0 || p.moves > kMaxMovesPerPeriod) {
      return BadTimeControl(absl::StrCat(where, ": moves must be in [0, ", kMaxMovesPerPeriod,
                                         "] (0 = rest of the game), got ", p.moves));
    }
    if (p.moves == kRestOfGame && i + 1 != periods.size()) {
      return BadTimeControl(
          absl::StrCat(where, " covers the rest of the game, so it must be the last"));
    }
    if (p.time_ms < 0 || p.time_ms > kMaxTimeMs) {
      return BadTimeControl(
          absl::StrCat(where, ": time must be in [0, ", kMaxTimeMs, "] ms, got ", p.time_ms));
    }
    if (i == 0 && p.time_ms == 0) {
      return BadTimeControl("the first period must give some time (6.2a)");
    }
    if (p.bonus.kind == BonusKind::kNone ? p.bonus.ms != 0
                                         : (p.bonus.ms <= 0 || p.bonus.ms > kMaxTimeMs)) {
      return BadTimeControl(absl::StrCat(where, ": a ", BonusKindName(p.bonus.kind), " bonus of ",
                                         p.bonus.ms, " ms is out of range"));
    }
    total += p.moves;
    tc.periods_[i] = p;
    tc.ends_[i] = p.moves == kRestOfGame ? -1 : total;
  }
  tc.count_ = static_cast<std::uint8_t>(periods.size());
  return tc;
}

absl::StatusOr<TimeControl> TimeControl::Hourglass(std::int64_t time_ms) {
  if (time_ms <= 0 || time_ms > kMaxTimeMs) {
    return BadTimeControl(
        absl::StrCat("an hourglass needs a time in (0, ", kMaxTimeMs, "] ms, got ", time_ms));
  }
  Period p;
  p.time_ms = time_ms;
  ASSIGN_OR_RETURN(TimeControl tc, Create({p}));
  tc.hourglass_ = true;
  return tc;
}

TimeControl TimeControl::Untimed() { return TimeControl(); }

int TimeControl::PeriodOfMove(int move_number) const {
  for (int i = 0; i < count_; ++i) {
    if (ends_[i] < 0 || move_number <= ends_[i]) return i;
  }
  if (count_ == 0) return 0;
  // Beyond the descriptors: the last one repeats (it has a move count, or we returned above).
  const int last = count_ - 1;
  return last + (move_number - ends_[last] - 1) / periods_[last].moves + 1;
}

int TimeControl::MovesAtEndOf(int index) const {
  if (count_ == 0 || IsFinal(index)) return -1;
  if (index < count_) return ends_[index];
  const int last = count_ - 1;
  return ends_[last] + (index - last) * periods_[last].moves;
}

bool operator==(const TimeControl& a, const TimeControl& b) {
  if (a.count_ != b.count_ || a.hourglass_ != b.hourglass_) return false;
  for (int i = 0; i < a.count_; ++i) {
    if (!(a.periods_[i] == b.periods_[i])) return false;
  }
  return true;
}

absl::StatusOr<TimeControl> ParsePgnTimeControl(absl::string_view tag) {
  tag = absl::StripAsciiWhitespace(tag);
  if (tag.empty()) return BadTimeControl("the TimeControl tag is empty");
  if (tag == "?") {
    return BadTimeControl(
        "the TimeControl tag \"?\" means the time control is unknown; no clock "
        "can run it");
  }
  if (tag == "-") return TimeControl::Untimed();
  if (tag[0] == '*') {
    std::optional<std::int64_t> secs = ParseWhole(tag.substr(1));
    if (!secs.has_value() || *secs == 0) {
      return BadTimeControl(absl::StrCat("hourglass ", Quoted(tag), ": expected \"*seconds\" ",
                                         "with a positive whole number of seconds, alone"));
    }
    return TimeControl::Hourglass(*secs * kSecond);
  }
  std::vector<absl::string_view> fields = absl::StrSplit(tag, ':');
  if (fields.size() > kMaxPeriods) {
    return BadTimeControl(absl::StrCat("at most ", kMaxPeriods, " fields, got ", fields.size()));
  }
  std::vector<Period> periods;
  for (size_t i = 0; i < fields.size(); ++i) {
    ASSIGN_OR_RETURN(Period p,
                     ParsePgnField(fields[i], static_cast<int>(i + 1), i + 1 == fields.size()));
    periods.push_back(p);
  }
  return TimeControl::Create(periods);
}

absl::StatusOr<std::string> FormatPgnTimeControl(const TimeControl& tc) {
  if (tc.untimed()) return std::string("-");
  std::vector<std::string> fields;
  for (int i = 0; i < tc.period_count(); ++i) {
    const Period& p = tc.period(i);
    if (p.time_ms % kSecond != 0 || p.bonus.ms % kSecond != 0) {
      return NotExpressible(
          absl::StrCat("period ", i + 1, ": the PGN TimeControl tag has whole seconds only"));
    }
    if (p.bonus.is_delay()) {
      return NotExpressible(absl::StrCat("period ", i + 1, ": the PGN TimeControl tag has no ",
                                         "notation for a ", BonusKindName(p.bonus.kind)));
    }
    std::string field = p.moves == kRestOfGame ? "" : absl::StrCat(p.moves, "/");
    absl::StrAppend(&field, p.time_ms / kSecond);
    if (p.bonus.kind == BonusKind::kIncrement) absl::StrAppend(&field, "+", p.bonus.ms / kSecond);
    fields.push_back(std::move(field));
  }
  if (tc.hourglass()) return absl::StrCat("*", fields[0]);
  return absl::StrJoin(fields, ":");
}

absl::StatusOr<TimeControl> ParseHumanTimeControl(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return BadTimeControl("the time control is empty");
  if (text == "-") return TimeControl::Untimed();
  Cursor c(text);
  if (c.Consume("hourglass")) {
    c.SkipSpaces();
    absl::string_view minutes_text = c.Number();
    std::optional<std::int64_t> ms = ParseDecimal(minutes_text, kMinute);
    c.SkipSpaces();
    if (!ms.has_value() || !c.AtEnd()) {
      return BadTimeControl(
          absl::StrCat(Quoted(text), ": expected \"hourglass <minutes>\" and nothing else"));
    }
    return TimeControl::Hourglass(*ms);
  }
  std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
  if (parts.size() > kMaxPeriods) {
    return BadTimeControl(absl::StrCat("at most ", kMaxPeriods, " periods, got ", parts.size()));
  }
  std::vector<Period> periods;
  for (size_t i = 0; i < parts.size(); ++i) {
    ASSIGN_OR_RETURN(Period p, ParseHumanPeriod(absl::StripAsciiWhitespace(parts[i]),
                                                static_cast<int>(i + 1), i + 1 == parts.size()));
    periods.push_back(p);
  }
  return TimeControl::Create(periods);
}

absl::StatusOr<std::string> FormatHumanTimeControl(const TimeControl& tc) {
  if (tc.untimed()) return std::string("-");
  if (tc.hourglass()) {
    ASSIGN_OR_RETURN(std::string minutes, FormatMinutes(tc.period(0).time_ms));
    return absl::StrCat("hourglass ", minutes);
  }
  std::vector<std::string> parts;
  for (int i = 0; i < tc.period_count(); ++i) {
    const Period& p = tc.period(i);
    ASSIGN_OR_RETURN(std::string minutes, FormatMinutes(p.time_ms));
    std::string part;
    if (p.moves != kRestOfGame) {
      part = absl::StrCat(p.moves, "/", minutes);
    } else if (tc.period_count() == 1 && p.bonus.kind != BonusKind::kIncrement) {
      part = absl::StrCat("G/", minutes);  // "G/90", "G/60 d5"
    } else {
      part = minutes;  // "90+30", "40/90, 30"
    }
    absl::StrAppend(&part, HumanBonus(p.bonus));
    parts.push_back(std::move(part));
  }
  return absl::StrJoin(parts, ", ");
}

std::int64_t SpeedCountedMs(const TimeControl& tc, Edition edition) {
  std::int64_t counted = 0;
  for (int i = 0; i < tc.period_count(); ++i) counted += tc.period(i).time_ms;
  if (tc.untimed()) return counted;
  const int moves = Rules(edition).speed.increment_moves;
  for (int n = 1; n <= moves; ++n) {
    const Bonus& bonus = tc.BonusOfMove(n);
    if (bonus.kind == BonusKind::kIncrement) counted += bonus.ms;
  }
  return counted;
}

SpeedCategory Speed(const TimeControl& tc, Edition edition) {
  if (tc.untimed()) return SpeedCategory::kStandard;
  // B1/C1 (2023 A.1/B.1) class by the time for *all* moves; a last period with a move count
  // repeats (PeriodAt), so no fixed time covers all moves (see SpeedRule in edition.h).
  const bool repeating = !tc.IsFinal(tc.period_count() - 1);
  return CategoryForControl(edition, SpeedCountedMs(tc, edition), repeating);
}

bool HasIncrement(const TimeControl& tc) {
  for (int i = 0; i < tc.period_count(); ++i) {
    if (tc.period(i).bonus.kind == BonusKind::kIncrement) return true;
  }
  return false;
}

}  // namespace chessclock
