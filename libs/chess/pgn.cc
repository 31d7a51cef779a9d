#include "libs/chess/pgn.h"

#include <cctype>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "libs/base/error.h"
#include "libs/chess/errors.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"

namespace chess {
namespace {

bool IsResult(absl::string_view w) {
  return w == "1-0" || w == "0-1" || w == "1/2-1/2" || w == "*";
}

// Reads "[%clk 1:23:45]" or "[%clk 1:23:45.6]" out of a comment.
std::optional<std::int64_t> ClockFromComment(absl::string_view comment) {
  size_t at = comment.find("[%clk");
  if (at == absl::string_view::npos) return std::nullopt;
  size_t i = at + 5;
  while (i < comment.size() && comment[i] == ' ') ++i;
  std::int64_t parts[3] = {0, 0, 0};
  int n = 0;
  std::int64_t value = 0;
  bool digits = false;
  std::int64_t fraction_ms = 0;
  for (; i < comment.size() && comment[i] != ']'; ++i) {
    char c = comment[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      value = value * 10 + (c - '0');
      digits = true;
      if (value > 1000000) return std::nullopt;
    } else if (c == ':') {
      if (!digits || n >= 2) return std::nullopt;
      parts[n++] = value;
      value = 0;
      digits = false;
    } else if (c == '.') {
      // Fractions of a second: up to three digits.
      std::int64_t scale = 100;
      for (++i; i < comment.size() && std::isdigit(static_cast<unsigned char>(comment[i])); ++i) {
        fraction_ms += (comment[i] - '0') * scale;
        scale /= 10;
      }
      --i;
    } else {
      return std::nullopt;
    }
  }
  if (!digits) return std::nullopt;
  parts[n++] = value;
  std::int64_t seconds = 0;
  for (int k = 0; k < n; ++k) seconds = seconds * 60 + parts[k];
  return seconds * 1000 + fraction_ms;
}

int NagFromSuffix(absl::string_view s) {
  if (s == "!") return 1;
  if (s == "?") return 2;
  if (s == "!!") return 3;
  if (s == "??") return 4;
  if (s == "!?") return 5;
  if (s == "?!") return 6;
  return 0;
}

class Parser {
 public:
  Parser(absl::string_view text, const PgnReadOptions& options) : text_(text), options_(options) {}

  absl::StatusOr<std::vector<PgnGame>> Run() {
    std::vector<PgnGame> games;
    SkipSpace();
    while (pos_ < text_.size()) {
      if (games.size() >= options_.max_games) return Error("too many games in one file");
      PgnGame game;
      game.line = line_;
      if (absl::Status st = ParseTags(&game); !st.ok()) return st;
      if (absl::Status st = ParseMovetext(&game); !st.ok()) return st;
      games.push_back(std::move(game));
      SkipSpace();
    }
    return games;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return base::Error(chess::kErrBadPgn, absl::StrCat("line ", line_, ", column ",
                                                       pos_ - line_start_ + 1, ": ", what));
  }

  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void Advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }
  bool AtLineStart() const { return pos_ == line_start_; }

  // Skips white space, and escape lines ('%' in the first column, PGN 6).
  void SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '%' && AtLineStart()) {
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance();
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        Advance();
      } else if (static_cast<unsigned char>(c) == 0xEF && text_.substr(pos_, 3) == "\xEF\xBB\xBF") {
        pos_ += 3;  // byte-order mark
      } else {
        break;
      }
    }
  }

  absl::Status ParseTags(PgnGame* game) {
    while (Peek() == '[') {
      Advance();
      SkipSpace();
      std::string name;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(Peek())) || Peek() == '_')) {
        name += Peek();
        Advance();
      }
      if (name.empty()) return Error("a tag needs a name");
      SkipSpace();
      if (Peek() != '"') return Error(absl::StrCat("tag ", name, ": expected a quoted value"));
      Advance();
      std::string value;
      while (true) {
        if (pos_ >= text_.size() || Peek() == '\n')
          return Error(absl::StrCat("tag ", name, ": unterminated value"));
        char c = Peek();
        if (c == '\\' && pos_ + 1 < text_.size() &&
            (text_[pos_ + 1] == '"' || text_[pos_ + 1] == '\\')) {
          Advance();
          value += Peek();
          Advance();
          continue;
        }
        if (c == '"') break;
        value += c;
        Advance();
        if (value.size() > 4096) return Error(absl::StrCat("tag ", name, ": value too long"));
      }
      Advance();
      SkipSpace();
      if (Peek() != ']') return Error(absl::StrCat("tag ", name, ": expected ']'"));
      Advance();
      game->tags.emplace_back(std::move(name), std::move(value));
      SkipSpace();
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> ReadBraceComment() {
    Advance();  // '{'
    std::string comment;
    while (Peek() != '}') {
      if (pos_ >= text_.size()) return Error("unterminated comment");
      comment += Peek();
      Advance();
    }
    Advance();
    return comment;
  }

  // Parses moves until the result, a new tag section, or the end of a variation (depth > 0).
  absl::Status ParseLine(PgnGame* game, std::vector<PgnMove>* line, int depth) {
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) {
        if (depth > 0) return Error("unterminated variation");
        return absl::OkStatus();
      }
      char c = Peek();
      if (c == '[') {
        if (depth > 0) return Error("unterminated variation before a tag");
        return absl::OkStatus();  // a new game without a result marker
      }
      if (c == '{') {
        if (absl::Status st = ReadAndAttach(line, game); !st.ok()) return st;
        continue;
      }
      if (c == ';') {
        std::string comment;
        Advance();
        while (pos_ < text_.size() && Peek() != '\n') {
          comment += Peek();
          Advance();
        }
        AttachComment(line, game, comment);
        continue;
      }
      if (c == '(') {
        if (line->empty()) return Error("a variation must follow a move");
        if (depth > 64) return Error("variations nested too deeply");
        Advance();
        std::vector<PgnMove> variation;
        if (absl::Status st = ParseLine(game, &variation, depth + 1); !st.ok()) return st;
        if (options_.keep_variations) line->back().variations.push_back(std::move(variation));
        continue;
      }
      if (c == ')') {
        if (depth == 0) return Error("')' without a variation");
        Advance();
        return absl::OkStatus();
      }
      if (c == '$') {
        Advance();
        int nag = 0, digits = 0;
        while (std::isdigit(static_cast<unsigned char>(Peek())) && digits < 4) {
          nag = nag * 10 + (Peek() - '0');
          Advance();
          ++digits;
        }
        if (digits == 0 || nag > 255) return Error("a NAG is $ followed by 0..255");
        if (line->empty()) return Error("a NAG must follow a move");
        line->back().nags.push_back(nag);
        continue;
      }
      // A word: move number, result, move, or annotation.
      const int word_line = line_;
      const int word_column = static_cast<int>(pos_ - line_start_ + 1);
      std::string word;
      while (pos_ < text_.size()) {
        char w = Peek();
        if (std::isspace(static_cast<unsigned char>(w)) || w == '{' || w == '}' || w == '(' ||
            w == ')' || w == '[' || w == ']' || w == ';' || w == '$') {
          break;
        }
        word += w;
        Advance();
        if (word.size() > 64) return Error("token too long");
      }
      if (word.empty())
        return Error(absl::StrCat("unexpected character '", absl::string_view(&c, 1), "'"));
      if (IsResult(word)) {
        if (depth > 0) return Error("a result inside a variation");
        game->result = word;
        return absl::OkStatus();
      }
      // Strip a leading move number: "12.", "12...", "12.e4".
      size_t k = 0;
      while (k < word.size() && std::isdigit(static_cast<unsigned char>(word[k]))) ++k;
      if (k > 0 && k < word.size() && word[k] == '.') {
        while (k < word.size() && word[k] == '.') ++k;
        word = word.substr(k);
        if (word.empty()) continue;
      } else if (k == word.size()) {
        continue;  // a bare move number without a dot
      }
      if (word == "e.p." || word == "ep") continue;  // Appendix E: "exd6 e.p."
      if (int nag = NagFromSuffix(word); nag != 0) {
        if (line->empty()) return Error("an annotation must follow a move");
        line->back().nags.push_back(nag);
        continue;
      }
      // Move suffix annotations: "e4!?" keeps the SAN and records the NAG.
      PgnMove move;
      size_t end = word.size();
      while (end > 0 && (word[end - 1] == '!' || word[end - 1] == '?')) --end;
      if (int nag = NagFromSuffix(absl::string_view(word).substr(end)); nag != 0)
        move.nags.push_back(nag);
      move.san = word.substr(0, end);
      if (move.san.empty()) return Error(absl::StrCat("'", word, "' is not a move"));
      move.line = word_line;
      move.column = word_column;
      line->push_back(std::move(move));
    }
  }

  void AttachComment(std::vector<PgnMove>* line, PgnGame* game, const std::string& comment) {
    if (line->empty()) {
      game->leading_comments.push_back(comment);
      return;
    }
    PgnMove& last = line->back();
    if (auto clock = ClockFromComment(comment); clock.has_value()) last.clock_ms = *clock;
    last.comments.push_back(comment);
  }

  absl::Status ParseMovetext(PgnGame* game) { return ParseLine(game, &game->moves, 0); }

  absl::string_view text_;
  PgnReadOptions options_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;

  absl::Status ReadAndAttach(std::vector<PgnMove>* line, PgnGame* game) {
    absl::StatusOr<std::string> comment = ReadBraceComment();
    if (!comment.ok()) return comment.status();
    AttachComment(line, game, *comment);
    return absl::OkStatus();
  }
};

}  // namespace

std::string PgnGame::Tag(absl::string_view name) const {
  for (const auto& [k, v] : tags)
    if (k == name) return v;
  return "";
}

void PgnGame::SetTag(absl::string_view name, absl::string_view value) {
  for (auto& [k, v] : tags) {
    if (k == name) {
      v = std::string(value);
      return;
    }
  }
  tags.emplace_back(std::string(name), std::string(value));
}

absl::StatusOr<std::vector<PgnGame>> ParsePgn(absl::string_view text,
                                              const PgnReadOptions& options) {
  return Parser(text, options).Run();
}

absl::StatusOr<Position> StartPosition(const PgnGame& game) {
  std::string fen = game.Tag("FEN");
  if (fen.empty()) return Position::Initial();
  return ParseFen(fen);
}

namespace {

absl::Status ReplayLine(const Position& start, std::vector<PgnMove>* line, int* bad_ply) {
  Position pos = start;
  for (size_t i = 0; i < line->size(); ++i) {
    PgnMove& pm = (*line)[i];
    // Variations of this move start from the position before it.
    for (std::vector<PgnMove>& variation : pm.variations) {
      if (absl::Status st = ReplayLine(pos, &variation, nullptr); !st.ok()) return st;
    }
    const int number = pos.fullmove_number();
    const bool black = pos.side_to_move() == Color::kBlack;
    absl::StatusOr<Move> move = ParseSan(pos, pm.san);
    if (!move.ok()) {
      if (bad_ply != nullptr) *bad_ply = static_cast<int>(i);
      absl::Status st = move.status();
      absl::Status out(st.code(),
                       absl::StrCat("move ", number, black ? "... " : ". ", pm.san, " (line ",
                                    pm.line, ", column ", pm.column, "): ", st.message()));
      st.ForEachPayload(
          [&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
      return out;
    }
    pm.move = *move;
    pos.PlayUnchecked(*move);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReplayGame(PgnGame* game, int* bad_ply) {
  absl::StatusOr<Position> start = StartPosition(*game);
  if (!start.ok()) return start.status();
  return ReplayLine(*start, &game->moves, bad_ply);
}

std::string FormatClock(std::int64_t ms) {
  if (ms < 0) ms = 0;
  std::int64_t s = ms / 1000;
  std::string out = absl::StrFormat("%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60);
  if (ms % 1000 != 0) absl::StrAppend(&out, ".", (ms % 1000) / 100);
  return out;
}

namespace {

class MovetextWriter {
 public:
  void Token(absl::string_view token) {
    if (!line_.empty() && line_.size() + 1 + token.size() > 79) Flush();
    if (!line_.empty()) line_ += ' ';
    absl::StrAppend(&line_, token);
  }
  void Flush() {
    if (!line_.empty()) absl::StrAppend(&out_, line_, "\n");
    line_.clear();
  }
  std::string Finish() {
    Flush();
    return std::move(out_);
  }

 private:
  std::string out_;
  std::string line_;
};

void WriteComment(MovetextWriter* w, absl::string_view comment) {
  // Comments are written word by word so that long ones wrap; braces inside are dropped.
  std::string clean;
  for (char c : comment)
    if (c != '{' && c != '}') clean += c;
  std::vector<std::string> words = absl::StrSplit(clean, ' ', absl::SkipEmpty());
  if (words.empty()) {
    w->Token("{}");
    return;
  }
  words.front() = "{" + words.front();
  words.back() += "}";
  for (const std::string& word : words) w->Token(word);
}

void WriteLine(MovetextWriter* w, const std::vector<PgnMove>& line, int number, bool black) {
  bool need_number = true;
  for (const PgnMove& m : line) {
    if (!black) {
      w->Token(absl::StrCat(number, "."));
    } else if (need_number) {
      w->Token(absl::StrCat(number, "..."));
    }
    w->Token(m.san);
    for (int nag : m.nags) w->Token(absl::StrCat("$", nag));
    need_number = false;
    for (const std::string& c : m.comments) {
      WriteComment(w, c);
      need_number = true;
    }
    if (m.clock_ms.has_value() && m.comments.empty()) {
      WriteComment(w, absl::StrCat("[%clk ", FormatClock(*m.clock_ms), "]"));
      need_number = true;
    }
    for (const std::vector<PgnMove>& v : m.variations) {
      w->Token("(");
      WriteLine(w, v, number, black);
      w->Token(")");
      need_number = true;
    }
    if (black) ++number;
    black = !black;
  }
}

void AppendTag(std::string* out, absl::string_view name, absl::string_view value) {
  std::string escaped;
  for (char c : value) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  absl::StrAppend(out, "[", name, " \"", escaped, "\"]\n");
}

}  // namespace

std::string WritePgn(const PgnGame& game) {
  std::string out;
  static constexpr absl::string_view kRoster[] = {"Event", "Site",  "Date",  "Round",
                                                  "White", "Black", "Result"};
  for (absl::string_view name : kRoster) {
    std::string value = name == "Result" ? game.result : game.Tag(name);
    if (value.empty()) value = name == "Date" ? "????.??.??" : "?";
    AppendTag(&out, name, value);
  }
  for (const auto& [name, value] : game.tags) {
    bool roster = false;
    for (absl::string_view r : kRoster) roster = roster || r == name;
    if (roster) continue;
    AppendTag(&out, name, value);
  }
  out += "\n";
  MovetextWriter w;
  for (const std::string& c : game.leading_comments) WriteComment(&w, c);
  int number = 1;
  bool black = false;
  if (absl::StatusOr<Position> start = StartPosition(game); start.ok()) {
    number = start->fullmove_number();
    black = start->side_to_move() == Color::kBlack;
  }
  WriteLine(&w, game.moves, number, black);
  w.Token(game.result);
  absl::StrAppend(&out, w.Finish(), "\n");
  return out;
}

}  // namespace chess
