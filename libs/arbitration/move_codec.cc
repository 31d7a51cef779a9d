#include "libs/arbitration/move_codec.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "libs/base/status_macros.h"
#include "libs/base/varint.h"
#include "libs/chess/types.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {
namespace {

namespace v1 = arbiter::v1;

constexpr char kTypeUrl[] = "type.googleapis.com/arbiter.v1.ArbitrationEvent";

enum Flag : unsigned {
  kBlack = 0x01,
  kOfferDraw = 0x02,
  kEndsGame = 0x04,
  kDeadPositionAsked = 0x08,
  kSealed = 0x10,
  kAtDiffers = 0x20,
  kLag = 0x40,
  kNoActor = 0x80,
};

// The roles an actor has (libs/service/auth.cc's roles, the server's own, the insecure mode's),
// by their number in the form; 0 is a role spelled out.
constexpr absl::string_view kRoles[] = {"",         "platform", "player", "arbiter",
                                        "observer", "service",  "server", "dev"};

// The SAN's piece letters by the form's number; 6 is castling.
constexpr char kPieces[] = " NBRQK";
constexpr unsigned kCastling = 6;
constexpr char kPromotions[] = " nbrq";

// The form numbers the squares as chess::Square does (a1 = 0, b1 = 1, ..., h8 = 63).
absl::string_view NameOf(unsigned square) {
  return chess::SquareName(static_cast<chess::Square>(square));
}

// The move's 16 bits from its UCI string ("e2e4", "e7e8q").
std::optional<std::uint16_t> MoveBits(absl::string_view uci) {
  if (uci.size() != 4 && uci.size() != 5) return std::nullopt;
  const std::optional<chess::Square> from = chess::ParseSquare(uci.substr(0, 2));
  const std::optional<chess::Square> to = chess::ParseSquare(uci.substr(2, 2));
  unsigned promotion = 0;
  if (uci.size() == 5) {
    const char* p = std::find(std::begin(kPromotions) + 1, std::end(kPromotions) - 1, uci[4]);
    if (p == std::end(kPromotions) - 1) return std::nullopt;
    promotion = static_cast<unsigned>(p - std::begin(kPromotions));
  }
  if (!from || !to) return std::nullopt;
  return static_cast<std::uint16_t>(unsigned{*from} | unsigned{*to} << 6 | promotion << 12);
}

// The SAN's shape (the form's byte) as the string shows it. Whatever it gets wrong, the store's
// check that the form decodes to the same bytes catches: the move is then kept as its bytes.
unsigned SanShape(absl::string_view san) {
  unsigned check = 0;
  if (absl::EndsWith(san, "#")) {
    check = 2;
  } else if (absl::EndsWith(san, "+")) {
    check = 1;
  }
  if (check != 0) san.remove_suffix(1);
  if (san == "O-O" || san == "O-O-O") return kCastling | check << 6;
  unsigned piece = 0;
  if (const char* p =
          std::find(std::begin(kPieces) + 1, std::end(kPieces) - 1, san.empty() ? ' ' : san[0]);
      p != std::end(kPieces) - 1) {
    piece = static_cast<unsigned>(p - std::begin(kPieces));
    san.remove_prefix(1);
  }
  const bool capture = absl::StrContains(san, 'x');
  unsigned origin = 0;
  if (piece != 0) {
    // What stands between the letter and the destination (or the "x"): nothing, a file, a rank,
    // or both.
    const size_t before = capture ? san.find('x') : (san.size() >= 2 ? san.size() - 2 : 0);
    const absl::string_view named = san.substr(0, before);
    if (named.size() == 2) {
      origin = 3;
    } else if (named.size() == 1) {
      origin = absl::ascii_isdigit(static_cast<unsigned char>(named[0])) ? 2 : 1;
    }
  }
  return piece | (capture ? 1u : 0u) << 3 | origin << 4 | check << 6;
}

std::string SanOf(std::uint16_t bits, unsigned shape) {
  const unsigned from = bits & 63, to = bits >> 6 & 63, promotion = bits >> 12;
  const unsigned piece = shape & 7, origin = shape >> 4 & 3, check = shape >> 6;
  const bool capture = (shape & 8) != 0;
  std::string san;
  if (piece == kCastling) {
    san = to % 8 > from % 8 ? "O-O" : "O-O-O";
  } else if (piece == 0) {
    if (capture) san = {NameOf(from)[0], 'x'};
    absl::StrAppend(&san, NameOf(to));
    if (promotion != 0) {
      san += '=';
      san += absl::ascii_toupper(static_cast<unsigned char>(kPromotions[promotion]));
    }
  } else {
    san = kPieces[piece];
    if (origin & 1) san += NameOf(from)[0];
    if (origin & 2) san += NameOf(from)[1];
    if (capture) san += 'x';
    absl::StrAppend(&san, NameOf(to));
  }
  if (check == 1) san += '+';
  if (check == 2) san += '#';
  return san;
}

absl::Status Damaged() { return absl::DataLossError("a damaged compact move"); }

// A form's fields as read, before they become a MoveMade.
struct Form {
  unsigned flags = 0;
  std::uint16_t bits = 0;
  unsigned shape = 0;
  std::int64_t at_delta = 0, lag = 0, clock = 0, elapsed = 0;
  absl::string_view role, subject;
  std::size_t subject_at = 0;  // where the subject's length begins, with an actor
};

absl::StatusOr<Form> Read(absl::string_view compact) {
  base::ByteReader in(compact);
  absl::string_view head;
  if (!in.Take(4, head)) return Damaged();
  Form f;
  f.flags = static_cast<unsigned char>(head[0]);
  f.bits = static_cast<std::uint16_t>(static_cast<unsigned char>(head[1]) |
                                      static_cast<unsigned char>(head[2]) << 8);
  f.shape = static_cast<unsigned char>(head[3]);
  if ((f.bits >> 12) >= std::size(kPromotions) - 1 || (f.shape & 7) > kCastling ||
      f.shape >> 6 == 3) {
    return Damaged();
  }
  if ((f.flags & kAtDiffers) && !in.SignedVarint(f.at_delta)) return Damaged();
  if ((f.flags & kLag) && !in.SignedVarint(f.lag)) return Damaged();
  if (!in.SignedVarint(f.clock) || !in.SignedVarint(f.elapsed)) return Damaged();
  if (!(f.flags & kNoActor)) {
    absl::string_view role_byte;
    if (!in.Take(1, role_byte)) return Damaged();
    const auto known = static_cast<unsigned char>(role_byte[0]);
    if (known >= std::size(kRoles)) return Damaged();
    f.role = kRoles[known];
    if (known == 0 && !in.Bytes(f.role)) return Damaged();
    f.subject_at = compact.size() - in.left();
    if (!in.Bytes(f.subject)) return Damaged();
  }
  if (!in.empty()) return Damaged();
  return f;
}

class Codec final : public store::EventCodec {
 public:
  absl::string_view type_url() const override { return kTypeUrl; }

  std::optional<std::string> Encode(const v1::GameEvent& event) const override {
    v1::ArbitrationEvent e;
    if (!e.ParseFromString(event.body().value()) || e.kind_case() != v1::ArbitrationEvent::kMove) {
      return std::nullopt;
    }
    const v1::MoveMade& m = e.move();
    if (m.side() != v1::COLOR_WHITE && m.side() != v1::COLOR_BLACK) return std::nullopt;
    const std::optional<std::uint16_t> bits = MoveBits(m.uci());
    if (!bits) return std::nullopt;
    const std::int64_t at_delta = e.at_ms() - event.recorded_at_ms();
    unsigned flags = (m.side() == v1::COLOR_BLACK ? kBlack : 0) |
                     (m.offer_draw() ? kOfferDraw : 0) | (m.ends_game() ? kEndsGame : 0) |
                     (m.dead_position_asked() ? kDeadPositionAsked : 0) |
                     (m.sealed() ? kSealed : 0) | (at_delta != 0 ? kAtDiffers : 0) |
                     (m.lag_ms() != 0 ? kLag : 0) | (e.has_actor() ? 0 : kNoActor);
    std::string out;
    out.push_back(static_cast<char>(flags));
    out.push_back(static_cast<char>(*bits & 0xff));
    out.push_back(static_cast<char>(*bits >> 8));
    out.push_back(static_cast<char>(SanShape(m.san())));
    if (flags & kAtDiffers) base::PutVarint(out, base::ZigZag(at_delta));
    if (flags & kLag) base::PutVarint(out, base::ZigZag(m.lag_ms()));
    base::PutVarint(out, base::ZigZag(m.clock_ms()));
    base::PutVarint(out, base::ZigZag(m.elapsed_ms()));
    if (e.has_actor()) {
      const auto* role = std::find(std::begin(kRoles) + 1, std::end(kRoles), e.actor().role());
      if (role != std::end(kRoles)) {
        out.push_back(static_cast<char>(role - std::begin(kRoles)));
      } else {
        out.push_back(0);
        base::PutBytes(out, e.actor().role());
      }
      base::PutBytes(out, e.actor().subject());
    }
    return out;
  }

  absl::StatusOr<std::string> Decode(absl::string_view compact,
                                     std::int64_t recorded_at_ms) const override {
    ASSIGN_OR_RETURN(const Form f, Read(compact));
    const unsigned flags = f.flags, promotion = f.bits >> 12;
    const std::uint16_t bits = f.bits;
    v1::ArbitrationEvent e;
    e.set_at_ms(recorded_at_ms + f.at_delta);
    if (!(flags & kNoActor)) {
      e.mutable_actor()->set_subject(std::string(f.subject));
      e.mutable_actor()->set_role(std::string(f.role));
    }
    v1::MoveMade* m = e.mutable_move();
    m->set_side(flags & kBlack ? v1::COLOR_BLACK : v1::COLOR_WHITE);
    std::string uci = absl::StrCat(NameOf(bits & 63), NameOf(bits >> 6 & 63));
    if (promotion != 0) uci += kPromotions[promotion];
    m->set_uci(std::move(uci));
    m->set_san(SanOf(bits, f.shape));
    m->set_offer_draw(flags & kOfferDraw);
    m->set_lag_ms(f.lag);
    m->set_ends_game(flags & kEndsGame);
    m->set_clock_ms(f.clock);
    m->set_elapsed_ms(f.elapsed);
    m->set_dead_position_asked(flags & kDeadPositionAsked);
    m->set_sealed(flags & kSealed);
    return e.SerializeAsString();
  }

  // The actor's subject, the form's last field: one or two players' names in every move.
  std::optional<std::size_t> NameAt(absl::string_view compact) const override {
    absl::StatusOr<Form> f = Read(compact);
    if (!f.ok() || (f->flags & kNoActor)) return std::nullopt;
    return f->subject_at;
  }
};

}  // namespace

std::shared_ptr<const store::EventCodec> CompactMoveCodec() {
  static const auto* const codec =
      new std::shared_ptr<const store::EventCodec>(std::make_shared<Codec>());
  return *codec;
}

}  // namespace arbitration
