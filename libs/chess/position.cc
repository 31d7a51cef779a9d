#include "libs/chess/position.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "libs/base/enum_table.h"
#include "libs/base/error.h"
#include "libs/chess/errors.h"
#include "libs/chess/movegen.h"

namespace chess {
namespace {

// Zobrist keys, generated at compile time from a fixed seed (splitmix64).
struct ZobristKeys {
  std::uint64_t piece[16][64];
  std::uint64_t castling[16];
  std::uint64_t ep_file[8];
  std::uint64_t black_to_move;
};

constexpr std::uint64_t SplitMix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

constexpr ZobristKeys MakeZobrist() {
  ZobristKeys z{};
  std::uint64_t state = 0x2001F1DE;  // 2001, the edition of the Laws in the seeds
  for (auto& p : z.piece)
    for (auto& s : p) s = SplitMix(state);
  // Castling rights hash as the XOR of one key per right, so that rights can be toggled singly.
  std::uint64_t single[4] = {SplitMix(state), SplitMix(state), SplitMix(state), SplitMix(state)};
  for (int r = 0; r < 16; ++r) {
    z.castling[r] = 0;
    for (int b = 0; b < 4; ++b)
      if (r & (1 << b)) z.castling[r] ^= single[b];
  }
  for (auto& f : z.ep_file) f = SplitMix(state);
  z.black_to_move = SplitMix(state);
  return z;
}

constexpr ZobristKeys kZobrist = MakeZobrist();

// Castling rights that survive a move touching a square (3.8a ii: king or rook has moved/captured).
constexpr std::array<CastlingRights, 64> MakeCastlingMask() {
  std::array<CastlingRights, 64> mask{};
  for (auto& m : mask) m = kAllCastling;
  mask[kE1] = ~(kWhiteKingSide | kWhiteQueenSide);
  mask[kH1] = ~kWhiteKingSide;
  mask[kA1] = ~kWhiteQueenSide;
  mask[kE8] = ~(kBlackKingSide | kBlackQueenSide);
  mask[kH8] = ~kBlackKingSide;
  mask[kA8] = ~kBlackQueenSide;
  return mask;
}
constexpr std::array<CastlingRights, 64> kCastlingMask = MakeCastlingMask();

// What Play reports for each IllegalMoveReason: its stable name (the status payload) and the
// sentence citing the article.
struct ReasonWords {
  absl::string_view name;
  absl::string_view text;
};

constexpr ReasonWords kReasonWords[] = {
    {"NONE", "legal"},
    {"NO_PIECE", "there is no piece on the from square"},
    {"NOT_YOUR_PIECE", "that piece belongs to the opponent (1.1)"},
    {"NOT_HOW_THE_PIECE_MOVES", "the piece does not move that way (3.2-3.8)"},
    {"BLOCKED", "a piece stands in the way (3.5)"},
    {"OWN_PIECE_ON_TARGET", "the target square holds a piece of the same colour (3.1)"},
    {"NOTHING_TO_CAPTURE", "a pawn moves diagonally only to capture (3.7c, 3.7d)"},
    {"PROMOTION_REQUIRED", "a pawn reaching the last rank must be promoted (3.7e)"},
    {"PROMOTION_NOT_ALLOWED", "only a pawn reaching the last rank is promoted (3.7e)"},
    {"LEAVES_KING_IN_CHECK", "the move leaves or puts the own king in check (3.9)"},
    {"CASTLING_RIGHT_LOST", "castling is illegal: the king or that rook has moved (3.8a ii)"},
    {"CASTLING_BLOCKED", "castling is prevented: a piece stands between king and rook (3.8b)"},
    {"CASTLING_OUT_OF_CHECK", "castling is prevented: the king is in check (3.8b)"},
    {"CASTLING_THROUGH_CHECK", "castling is prevented: the king crosses an attacked square (3.8b)"},
    {"CASTLING_INTO_CHECK", "castling is prevented: the king's destination is attacked (3.8b)"},
    {"NO_LEGAL_MOVES", "the side to move has no legal move: the game is over (5.1a, 5.2a)"},
};

ReasonWords WordsFor(IllegalMoveReason reason) {
  return base::EnumEntry(kReasonWords, reason, {"UNKNOWN", "unknown"});
}

}  // namespace

Setup Setup::Initial() {
  Setup s;
  constexpr PieceType kBack[8] = {PieceType::kRook,   PieceType::kKnight, PieceType::kBishop,
                                  PieceType::kQueen,  PieceType::kKing,   PieceType::kBishop,
                                  PieceType::kKnight, PieceType::kRook};
  for (int f = 0; f < 8; ++f) {
    s.board[MakeSquare(f, 0)] = MakePiece(Color::kWhite, kBack[f]);
    s.board[MakeSquare(f, 1)] = MakePiece(Color::kWhite, PieceType::kPawn);
    s.board[MakeSquare(f, 6)] = MakePiece(Color::kBlack, PieceType::kPawn);
    s.board[MakeSquare(f, 7)] = MakePiece(Color::kBlack, kBack[f]);
  }
  s.castling = kAllCastling;
  return s;
}

absl::string_view SetupProblemCode(SetupProblemKind kind) {
  static constexpr base::ErrorSpec kCodes[] = {
      kErrSetupNoKing,        kErrSetupTooManyKings,    kErrSetupPawnOnBackRank,
      kErrSetupTooManyPieces, kErrSetupTooManyPawns,    kErrSetupTooManyPromotedPieces,
      kErrSetupOppositeCheck, kErrSetupImpossibleCheck, kErrSetupBadCastlingRights,
      kErrSetupBadEnPassant,  kErrSetupBadMoveCounters};
  return base::EnumEntry(kCodes, kind, kErrSetup).code;
}

absl::string_view IllegalMoveReasonName(IllegalMoveReason reason) { return WordsFor(reason).name; }

absl::string_view IllegalMoveReasonText(IllegalMoveReason reason) { return WordsFor(reason).text; }

IllegalMoveReason IllegalReasonOf(const absl::Status& status) {
  auto payload = status.GetPayload(kIllegalMoveReasonPayload);
  if (!payload.has_value()) return IllegalMoveReason::kNone;
  std::string name(*payload);
  for (int r = 0; r <= static_cast<int>(IllegalMoveReason::kNoLegalMoves); ++r) {
    auto reason = static_cast<IllegalMoveReason>(r);
    if (IllegalMoveReasonName(reason) == name) return reason;
  }
  return IllegalMoveReason::kNone;
}

void Position::PutPiece(Piece p, Square s) {
  Bitboard b = SquareBB(s);
  board_[s] = p;
  by_type_[0] |= b;
  by_type_[Index(TypeOf(p))] |= b;
  by_color_[Index(ColorOf(p))] |= b;
}

void Position::RemovePiece(Square s) {
  Bitboard b = SquareBB(s);
  Piece p = board_[s];
  by_type_[0] ^= b;
  by_type_[Index(TypeOf(p))] ^= b;
  by_color_[Index(ColorOf(p))] ^= b;
  board_[s] = Piece::kNone;
}

void Position::MovePiece(Square from, Square to) {
  Piece p = board_[from];
  Bitboard b = SquareBB(from) | SquareBB(to);
  by_type_[0] ^= b;
  by_type_[Index(TypeOf(p))] ^= b;
  by_color_[Index(ColorOf(p))] ^= b;
  board_[from] = Piece::kNone;
  board_[to] = p;
}

Bitboard Position::AttackersTo(Square s, Bitboard occ) const {
  return (PawnAttacks(Color::kBlack, s) & pieces(Color::kWhite, PieceType::kPawn)) |
         (PawnAttacks(Color::kWhite, s) & pieces(Color::kBlack, PieceType::kPawn)) |
         (KnightAttacks(s) & pieces(PieceType::kKnight)) |
         (BishopAttacks(s, occ) & (pieces(PieceType::kBishop) | pieces(PieceType::kQueen))) |
         (RookAttacks(s, occ) & (pieces(PieceType::kRook) | pieces(PieceType::kQueen))) |
         (KingAttacks(s) & pieces(PieceType::kKing));
}

Bitboard Position::Checkers() const {
  return AttackersTo(KingSquare(side_), occupied()) & pieces(~side_);
}

std::uint64_t Position::ComputeKey() const {
  std::uint64_t key = 0;
  for (int s = 0; s < 64; ++s)
    if (!IsNone(board_[s])) key ^= kZobrist.piece[static_cast<int>(board_[s])][s];
  key ^= kZobrist.castling[castling_];
  if (ep_square_ != kNoSquare) key ^= kZobrist.ep_file[FileOf(ep_square_)];
  if (side_ == Color::kBlack) key ^= kZobrist.black_to_move;
  return key;
}

// Whether the side to move has a legal en passant capture onto `ep` (3.7d, and 9.2 identity).
bool Position::EnPassantCaptureLegal(Square ep) const {
  Bitboard capturers = PawnAttacks(~side_, ep) & pieces(side_, PieceType::kPawn);
  while (capturers) {
    if (EnPassantLeavesKingSafe(*this, PopLsb(capturers), ep)) return true;
  }
  return false;
}

void Position::SetEnPassantIfLegal(Square ep) {
  if (EnPassantCaptureLegal(ep)) {
    ep_square_ = ep;
    key_ ^= kZobrist.ep_file[FileOf(ep)];
  }
}

void Position::PlayUnchecked(Move m) {
  const Color us = side_;
  const Color them = ~us;
  const Square from = m.from();
  const Square to = m.to();
  const Piece piece = board_[from];
  const PieceType type = TypeOf(piece);

  if (ep_square_ != kNoSquare) {
    key_ ^= kZobrist.ep_file[FileOf(ep_square_)];
    ep_square_ = kNoSquare;
  }
  ++halfmove_clock_;

  switch (m.kind()) {
    case Move::kCastling: {
      // 3.8a: the rook jumps over the king to the square the king crossed.
      const bool king_side = to > from;
      const Square rook_from = static_cast<Square>(king_side ? from + 3 : from - 4);
      const Square rook_to = static_cast<Square>(king_side ? from + 1 : from - 1);
      const Piece rook = board_[rook_from];
      MovePiece(from, to);
      MovePiece(rook_from, rook_to);
      key_ ^= kZobrist.piece[static_cast<int>(piece)][from] ^
              kZobrist.piece[static_cast<int>(piece)][to] ^
              kZobrist.piece[static_cast<int>(rook)][rook_from] ^
              kZobrist.piece[static_cast<int>(rook)][rook_to];
      break;
    }
    case Move::kEnPassant: {
      const Square victim = static_cast<Square>(us == Color::kWhite ? to - 8 : to + 8);
      const Piece captured = board_[victim];
      RemovePiece(victim);
      MovePiece(from, to);
      key_ ^= kZobrist.piece[static_cast<int>(captured)][victim] ^
              kZobrist.piece[static_cast<int>(piece)][from] ^
              kZobrist.piece[static_cast<int>(piece)][to];
      halfmove_clock_ = 0;
      break;
    }
    default: {
      const Piece captured = board_[to];
      if (!IsNone(captured)) {
        RemovePiece(to);
        key_ ^= kZobrist.piece[static_cast<int>(captured)][to];
        halfmove_clock_ = 0;
      }
      MovePiece(from, to);
      key_ ^= kZobrist.piece[static_cast<int>(piece)][from] ^
              kZobrist.piece[static_cast<int>(piece)][to];
      if (type == PieceType::kPawn) {
        halfmove_clock_ = 0;
        if (m.kind() == Move::kPromotion) {
          // 3.7e: the pawn is exchanged on the same square for the chosen piece.
          const Piece promoted = MakePiece(us, m.promotion());
          RemovePiece(to);
          PutPiece(promoted, to);
          key_ ^= kZobrist.piece[static_cast<int>(piece)][to] ^
                  kZobrist.piece[static_cast<int>(promoted)][to];
        }
      }
      break;
    }
  }

  const CastlingRights rights = castling_ & kCastlingMask[from] & kCastlingMask[to];
  if (rights != castling_) {
    key_ ^= kZobrist.castling[castling_] ^ kZobrist.castling[rights];
    castling_ = rights;
  }

  side_ = them;
  key_ ^= kZobrist.black_to_move;
  if (us == Color::kBlack) ++fullmove_number_;

  // 3.7d: a double step makes en passant possible on the very next move only. Recorded only when
  // the capture is legal, so that positions compare as 9.2 says.
  if (type == PieceType::kPawn && (from ^ to) == 16 &&
      (PawnAttacks(us, static_cast<Square>((from + to) / 2)) & pieces(them, PieceType::kPawn))) {
    SetEnPassantIfLegal(static_cast<Square>((from + to) / 2));
  }
}

bool operator==(const Position& a, const Position& b) {
  for (int i = 0; i < kPieceTypeCount; ++i)
    if (a.by_type_[i] != b.by_type_[i]) return false;
  return a.by_color_[0] == b.by_color_[0] && a.by_color_[1] == b.by_color_[1] &&
         a.side_ == b.side_ && a.castling_ == b.castling_ && a.ep_square_ == b.ep_square_ &&
         a.halfmove_clock_ == b.halfmove_clock_ && a.fullmove_number_ == b.fullmove_number_;
}

Position Position::Initial() { return *FromSetup(Setup::Initial()); }

Setup Position::ToSetup() const {
  Setup s;
  for (int i = 0; i < 64; ++i) s.board[i] = board_[i];
  s.turn = side_;
  s.castling = castling_;
  s.ep_square = ep_square_;
  s.halfmove_clock = halfmove_clock_;
  s.fullmove_number = fullmove_number_;
  return s;
}

std::vector<SetupProblem> Position::Validate(const Setup& setup) {
  std::vector<SetupProblem> problems;
  auto add = [&](SetupProblemKind kind, std::string message) {
    problems.push_back({kind, std::move(message)});
  };

  int count[2][kPieceTypeCount] = {};
  Square king[2] = {kNoSquare, kNoSquare};
  for (int s = 0; s < 64; ++s) {
    Piece p = setup.board[s];
    if (IsNone(p)) continue;
    ++count[Index(ColorOf(p))][Index(TypeOf(p))];
    if (TypeOf(p) == PieceType::kKing) king[Index(ColorOf(p))] = static_cast<Square>(s);
    if (TypeOf(p) == PieceType::kPawn &&
        (RankOf(static_cast<Square>(s)) == 0 || RankOf(static_cast<Square>(s)) == 7)) {
      add(SetupProblemKind::kPawnOnBackRank,
          absl::StrCat("a pawn stands on ", SquareName(static_cast<Square>(s)),
                       " (3.7e: pawns never stand on the first or last rank)"));
    }
  }
  for (Color c : {Color::kWhite, Color::kBlack}) {
    const int* n = count[Index(c)];
    int total = 0;
    for (int t = 1; t < kPieceTypeCount; ++t) total += n[t];
    if (n[Index(PieceType::kKing)] == 0)
      add(SetupProblemKind::kNoKing, absl::StrCat(ColorName(c), " has no king"));
    if (n[Index(PieceType::kKing)] > 1)
      add(SetupProblemKind::kTooManyKings, absl::StrCat(ColorName(c), " has more than one king"));
    if (total > 16)
      add(SetupProblemKind::kTooManyPieces,
          absl::StrCat(ColorName(c), " has ", total, " pieces (at most 16)"));
    if (n[Index(PieceType::kPawn)] > 8)
      add(SetupProblemKind::kTooManyPawns,
          absl::StrCat(ColorName(c), " has ", n[Index(PieceType::kPawn)], " pawns (at most 8)"));
    // Every piece beyond the initial set must come from a promotion, which costs a pawn.
    int promoted = std::max(0, n[Index(PieceType::kQueen)] - 1) +
                   std::max(0, n[Index(PieceType::kRook)] - 2) +
                   std::max(0, n[Index(PieceType::kBishop)] - 2) +
                   std::max(0, n[Index(PieceType::kKnight)] - 2);
    if (n[Index(PieceType::kPawn)] <= 8 && promoted > 8 - n[Index(PieceType::kPawn)]) {
      add(SetupProblemKind::kTooManyPromotedPieces,
          absl::StrCat(ColorName(c), " has ", promoted, " pieces beyond the initial set but only ",
                       8 - n[Index(PieceType::kPawn)], " pawns could have promoted"));
    }
  }
  if (setup.halfmove_clock < 0 || setup.halfmove_clock > 65535 || setup.fullmove_number < 1 ||
      setup.fullmove_number > 65535) {
    add(SetupProblemKind::kBadMoveCounters,
        "the half-move clock must be 0..65535 and the move number 1..65535");
  }

  // Castling rights need the king and that rook on their initial squares (3.8a ii).
  struct RightNeeds {
    CastlingRights right;
    Square king;
    Square rook;
    Piece king_piece;
    Piece rook_piece;
    const char* name;
  };
  const RightNeeds needs[4] = {
      {kWhiteKingSide, kE1, kH1, MakePiece(Color::kWhite, PieceType::kKing),
       MakePiece(Color::kWhite, PieceType::kRook), "K"},
      {kWhiteQueenSide, kE1, kA1, MakePiece(Color::kWhite, PieceType::kKing),
       MakePiece(Color::kWhite, PieceType::kRook), "Q"},
      {kBlackKingSide, kE8, kH8, MakePiece(Color::kBlack, PieceType::kKing),
       MakePiece(Color::kBlack, PieceType::kRook), "k"},
      {kBlackQueenSide, kE8, kA8, MakePiece(Color::kBlack, PieceType::kKing),
       MakePiece(Color::kBlack, PieceType::kRook), "q"},
  };
  for (const RightNeeds& n : needs) {
    if ((setup.castling & n.right) &&
        (setup.board[n.king] != n.king_piece || setup.board[n.rook] != n.rook_piece)) {
      add(SetupProblemKind::kBadCastlingRights,
          absl::StrCat("castling right ", n.name, " needs the king on ", SquareName(n.king),
                       " and the rook on ", SquareName(n.rook), " (3.8a ii)"));
    }
  }

  // En passant (3.7d): the square behind a pawn that has just made a double step.
  Square pushed_from = kNoSquare, pushed_to = kNoSquare;
  if (setup.ep_square != kNoSquare) {
    const Color mover = ~setup.turn;  // the side that made the double step
    const Square ep = setup.ep_square;
    bool ok = IsValid(ep) && RelativeRank(mover, ep) == 2;
    if (ok) {
      pushed_from = static_cast<Square>(mover == Color::kWhite ? ep - 8 : ep + 8);
      pushed_to = static_cast<Square>(mover == Color::kWhite ? ep + 8 : ep - 8);
      ok = IsNone(setup.board[ep]) && IsNone(setup.board[pushed_from]) &&
           setup.board[pushed_to] == MakePiece(mover, PieceType::kPawn);
    }
    if (!ok) {
      add(SetupProblemKind::kBadEnPassant,
          absl::StrCat("en passant square ", SquareName(ep),
                       " could not have come from a double pawn step (3.7d)"));
      pushed_from = pushed_to = kNoSquare;
    }
  }

  // Checks need both kings in place.
  if (count[0][Index(PieceType::kKing)] == 1 && count[1][Index(PieceType::kKing)] == 1) {
    Position probe;
    for (int s = 0; s < 64; ++s)
      if (!IsNone(setup.board[s])) probe.PutPiece(setup.board[s], static_cast<Square>(s));
    const Color us = setup.turn;
    if (probe.AttackersTo(king[Index(~us)], probe.occupied()) & probe.pieces(us)) {
      add(SetupProblemKind::kOppositeCheck,
          absl::StrCat(ColorName(~us), " is in check but it is ", ColorName(us), "'s move"));
    }
    const Square ksq = king[Index(us)];
    const Bitboard checkers = probe.AttackersTo(ksq, probe.occupied()) & probe.pieces(~us);
    const Bitboard sliders = probe.pieces(PieceType::kBishop) | probe.pieces(PieceType::kRook) |
                             probe.pieces(PieceType::kQueen);
    bool impossible = false;
    if (PopCount(checkers) > 2) {
      impossible = true;  // one move gives at most a direct and a discovered check
    } else if (PopCount(checkers) == 2) {
      // A double check always involves a discovered check by a slider.
      if (!(checkers & sliders)) impossible = true;
      // Two checkers on one line through the king cannot both have been given by one move.
      Square a = Lsb(checkers), b = Lsb(checkers & (checkers - 1));
      if (Contains(Line(a, b), ksq)) impossible = true;
    }
    if (!impossible && checkers && pushed_to != kNoSquare) {
      // After a double step, each checker is the pawn itself or a slider it uncovered.
      Bitboard c = checkers;
      while (c) {
        Square s = PopLsb(c);
        if (s != pushed_to && !Contains(Between(ksq, s), pushed_from)) impossible = true;
      }
    }
    if (impossible) {
      add(SetupProblemKind::kImpossibleCheck,
          absl::StrCat(ColorName(us), "'s king is in a check that no legal move could have given"));
    }
  }
  return problems;
}

absl::StatusOr<Position> Position::FromSetup(const Setup& setup) {
  std::vector<SetupProblem> problems = Validate(setup);
  if (!problems.empty()) {
    std::vector<std::string> parts;
    for (const SetupProblem& p : problems)
      parts.push_back(absl::StrCat(SetupProblemCode(p.kind), ": ", p.message));
    return base::Error(chess::kErrBadSetup, absl::StrJoin(parts, "; "));
  }
  Position pos;
  for (int s = 0; s < 64; ++s)
    if (!IsNone(setup.board[s])) pos.PutPiece(setup.board[s], static_cast<Square>(s));
  pos.side_ = setup.turn;
  pos.castling_ = setup.castling;
  pos.halfmove_clock_ = static_cast<std::uint16_t>(setup.halfmove_clock);
  pos.fullmove_number_ = static_cast<std::uint16_t>(setup.fullmove_number);
  pos.key_ = pos.ComputeKey();
  if (setup.ep_square != kNoSquare) pos.SetEnPassantIfLegal(setup.ep_square);
  return pos;
}

std::vector<Move> Position::LegalMoves() const {
  MoveList list;
  GenerateLegalMoves(*this, &list);
  return std::vector<Move>(list.begin(), list.end());
}

bool Position::IsLegal(Move m) const {
  MoveList list;
  GenerateLegalMoves(*this, &list);
  return list.Contains(m);
}

bool Position::HasLegalMoves() const { return CountLegalMoves(*this) > 0; }

bool Position::IsInsufficientMaterial() const {
  if (pieces(PieceType::kPawn) | pieces(PieceType::kRook) | pieces(PieceType::kQueen)) return false;
  const Bitboard knights = pieces(PieceType::kKnight);
  const Bitboard bishops = pieces(PieceType::kBishop);
  if (PopCount(knights | bishops) <= 1) return true;  // K v K, K + minor v K
  // Bishops only, all on squares of one colour (either side's): no mate is possible.
  if (!knights && (!(bishops & kDarkSquares) || !(bishops & kLightSquares))) return true;
  return false;
}

Move Position::MakeMove(Square from, Square to, PieceType promotion) const {
  const Piece p = board_[from];
  if (TypeOf(p) == PieceType::kKing && (from == kE1 || from == kE8) &&
      (to == from + 2 || to == from - 2)) {
    return Move(from, to, Move::kCastling);
  }
  if (TypeOf(p) == PieceType::kPawn && promotion == PieceType::kNone &&
      FileOf(from) != FileOf(to) && IsNone(board_[to]) && to == ep_square_) {
    return Move(from, to, Move::kEnPassant);
  }
  if (promotion != PieceType::kNone) return Move(from, to, Move::kPromotion, promotion);
  return Move(from, to);
}

IllegalMoveReason Position::Diagnose(Move m) const {
  m = MakeMove(m.from(), m.to(), m.promotion());
  if (IsLegal(m)) return IllegalMoveReason::kNone;
  const Square from = m.from();
  const Square to = m.to();
  const Piece piece = board_[from];
  if (IsNone(piece)) return IllegalMoveReason::kNoPiece;
  if (ColorOf(piece) != side_) return IllegalMoveReason::kNotYourPiece;
  if (!HasLegalMoves()) return IllegalMoveReason::kNoLegalMoves;
  const PieceType type = TypeOf(piece);
  const Color us = side_;
  if (!IsNone(board_[to]) && ColorOf(board_[to]) == us) return IllegalMoveReason::kOwnPieceOnTarget;
  if (from == to) return IllegalMoveReason::kNotHowThePieceMoves;

  // Castling (3.8): the king's two-square step along its first rank.
  if (type == PieceType::kKing && RankOf(from) == RankOf(to) &&
      (to == from + 2 || to == from - 2)) {
    const bool king_side = to > from;
    const Square home = us == Color::kWhite ? kE1 : kE8;
    const CastlingRights right = us == Color::kWhite
                                     ? (king_side ? kWhiteKingSide : kWhiteQueenSide)
                                     : (king_side ? kBlackKingSide : kBlackQueenSide);
    if (from != home) return IllegalMoveReason::kNotHowThePieceMoves;
    if (!(castling_ & right)) return IllegalMoveReason::kCastlingRightLost;
    const Square rook = static_cast<Square>(king_side ? home + 3 : home - 4);
    if (Between(home, rook) & occupied()) return IllegalMoveReason::kCastlingBlocked;
    if (InCheck()) return IllegalMoveReason::kCastlingOutOfCheck;
    const Square crossed = static_cast<Square>(king_side ? home + 1 : home - 1);
    if (IsAttackedBy(crossed, ~us)) return IllegalMoveReason::kCastlingThroughCheck;
    return IllegalMoveReason::kCastlingIntoCheck;
  }

  // Promotion (3.7e).
  const bool reaches_last_rank = type == PieceType::kPawn && RelativeRank(us, to) == 7;
  if (m.is_promotion() && !reaches_last_rank) return IllegalMoveReason::kPromotionNotAllowed;

  // Geometry of the piece on an empty board, then obstruction.
  bool geometry = false;
  bool blocked = false;
  if (type == PieceType::kPawn) {
    const int forward = us == Color::kWhite ? 8 : -8;
    if (to == from + forward) {
      geometry = true;
      blocked = !IsNone(board_[to]);
    } else if (to == from + 2 * forward && RelativeRank(us, from) == 1) {
      geometry = true;
      blocked = !IsNone(board_[from + forward]) || !IsNone(board_[to]);
    } else if (Contains(PawnAttacks(us, from), to)) {
      geometry = true;
      if (IsNone(board_[to]) && to != ep_square_) return IllegalMoveReason::kNothingToCapture;
    }
  } else {
    geometry = Contains(Attacks(type, from, 0), to);
    blocked = geometry && (Between(from, to) & occupied());
  }
  if (!geometry) return IllegalMoveReason::kNotHowThePieceMoves;
  if (blocked) return IllegalMoveReason::kBlocked;
  if (reaches_last_rank && !m.is_promotion()) return IllegalMoveReason::kPromotionRequired;
  if (m.kind() == Move::kCastling) return IllegalMoveReason::kNotHowThePieceMoves;
  // The move is possible for the piece but exposes the king (3.9).
  return IllegalMoveReason::kLeavesKingInCheck;
}

absl::Status Position::Play(Move m) {
  IllegalMoveReason reason = Diagnose(m);
  if (reason != IllegalMoveReason::kNone) {
    absl::Status status =
        base::Error(chess::kErrIllegalMove,
                    absl::StrCat("illegal move ", SquareName(m.from()), SquareName(m.to()), ": ",
                                 IllegalMoveReasonText(reason)));
    status.SetPayload(kIllegalMoveReasonPayload, absl::Cord(IllegalMoveReasonName(reason)));
    return status;
  }
  PlayUnchecked(MakeMove(m.from(), m.to(), m.promotion()));
  return absl::OkStatus();
}

}  // namespace chess
