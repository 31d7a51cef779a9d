// The compact form in which the store keeps a move (store::EventCodec; libs/store/README.md, "The
// record of an append"). A game's log is mostly its moves, and a MoveMade as protobuf bytes
// repeats what a few bytes say: the UCI and SAN strings, the actor's names, an instant equal to
// the record's. The form stands alone: it needs neither the position nor any other record, so a
// read of any range of a log (a watcher resuming, the firehose's new entries) expands each move by
// itself, as fast as it reads it.
//
// The form, in order:
// - flags, one byte: 0x01 Black moved (else White), 0x02 offer_draw, 0x04 ends_game,
//   0x08 dead_position_asked, 0x10 sealed, 0x20 at_ms differs from the record's instant (the
//   difference follows), 0x40 lag_ms is not 0 (it follows), 0x80 no actor;
// - the move, two bytes, little-endian: from (0..63, a1 = 0, b1 = 1, ..., h8 = 63), to << 6,
//   promotion << 12 (0 none, 1 n, 2 b, 3 r, 4 q): the UCI string;
// - the SAN's shape, one byte: the piece (bits 0-2: 0 pawn, 1 N, 2 B, 3 R, 4 Q, 5 K, 6 castling),
//   a capture (bit 3), the origin the SAN names to tell two pieces apart (bits 4-5: 0 none,
//   1 file, 2 rank, 3 both), check (bits 6-7: 1 "+", 2 "#"): with the move, the SAN string;
// - then varints (zigzag): at_ms minus the record's instant (flag 0x20), lag_ms (flag 0x40),
//   clock_ms, elapsed_ms;
// - the actor (unless flag 0x80): the role (one byte: 1..7 the roles tokens and the server give,
//   kRoles in the .cc; 0: its length and bytes follow), the subject's length and bytes.
//
// The subject comes last, so the store may keep it once per game (EventCodec::NameAt): a game's
// moves name one or two subjects, each in every move.
//
// A move is then 8-12 bytes and the actor's subject, against ~45 as protobuf bytes. Every other
// event, and a move the form cannot say exactly (the store checks that it decodes to the same
// bytes), is kept as its bytes. A number or meaning here, once written, never changes: old logs
// are read by new releases.
#ifndef ARBITER_LIBS_ARBITRATION_MOVE_CODEC_H_
#define ARBITER_LIBS_ARBITRATION_MOVE_CODEC_H_

#include <memory>

#include "libs/store/event_codec.h"

namespace arbitration {

// The codec of ArbitrationEvent bodies: MoveMade in the form above, nothing else.
std::shared_ptr<const store::EventCodec> CompactMoveCodec();

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_MOVE_CODEC_H_
