// A game's clock as an event log (ARCHITECTURE.md, "A game is an event log"), in four parts:
//
//   clock_game.h      the state a log describes (ClockGame) and how each event applies to it
//   clock_rulings.h   what the clock decides, by article (6.7, 6.9, 6.12, 10.3, B7, B8)
//   clock_commands.h  what a command appends (NewClock, Decide, SettleFlags, NextDeadline)
//   clock_codec.h     every proto the clock exchanges (store records, readings, decisions)
//
// This header includes all four, for users that want the whole clock log.
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_LOG_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_LOG_H_

#include "libs/clock_authority/clock_codec.h"     // IWYU pragma: export
#include "libs/clock_authority/clock_commands.h"  // IWYU pragma: export
#include "libs/clock_authority/clock_game.h"      // IWYU pragma: export
#include "libs/clock_authority/clock_rulings.h"   // IWYU pragma: export

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_LOG_H_
