#!/bin/bash
# Builds the fuzz targets with clang, libFuzzer, AddressSanitizer and UBSan, and runs each for a
# while. Exits non-zero on any crash or sanitizer report. Usage: tests/fuzz/run_fuzzers.sh [target ...]
#
# Targets (tests/fuzz/<target>_fuzzer.cc, seeds in tests/fuzz/corpus/<target>/):
#   fen, san, pgn         the chess readers (libs/chess)
#   time_control          both notations of a time control (libs/clock), and their round trip
#   clock_simulate, game_simulate, analyze, unwinnable
#                         one JSON line of `arbiterctl clock simulate`, `game simulate`, `analyze`,
#                         `unwinnable` (tools/arbiterctl; what RunJsonLines calls per line)
#   rules_request         serialized rules requests (ValidateMove, GetStatus) as the rules service
#                         handles them (services/rules_validation)
#   arbitration_request   serialized arbitration requests, turned into commands as the service
#                         does and decided by arbitration::Decide on a fresh game
#   clock_request         serialized clock requests and commands, decided by the clock
#                         authority's Decide (libs/clock_authority) on a fresh clock
#
# Time: FUZZ_SECONDS (default 20) is each target's time when targets are named. For the default
# run of every target, the run's total is three times FUZZ_SECONDS (what the three chess targets
# took before the others came), shared evenly, at least 3 s each; FUZZ_TOTAL_SECONDS overrides it.
# The libraries are compiled once into $FUZZ_OUT/obj (keyed by the sources, every header and the
# flags) and archived; each target links only what it uses.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${FUZZ_SECONDS:-20}"
out="${FUZZ_OUT:-/tmp/arbiter-fuzz}"
mkdir -p "$out"
command -v clang++ >/dev/null || { echo "clang++ missing: apt-get install clang libclang-rt-14-dev" >&2; exit 1; }
command -v protoc >/dev/null || { echo "protoc missing: apt-get install protobuf-compiler" >&2; exit 1; }
flags=(-std=c++20 -O1 -g -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -Wno-deprecated-enum-enum-conversion)
# Objects for the archive: instrumented for coverage and the sanitizers, without libFuzzer's main.
lib_flags=(-std=c++20 -O1 -g -I. -fsanitize=fuzzer-no-link,address,undefined
           -fno-sanitize-recover=undefined -Wno-deprecated-enum-enum-conversion)
libs=$(pkg-config --libs protobuf absl_status absl_statusor absl_strings absl_cord absl_str_format \
       absl_synchronization absl_time absl_flat_hash_map absl_hash libcrypto)

# The error catalogues' headers are generated from their errors.json (bazel/error_catalogue.bzl).
gen="$out/gen"
for catalogue in libs/*/errors.json tools/arbiterctl/errors.json; do
  mkdir -p "$gen/$(dirname "$catalogue")"
  python3 bazel/gen_errors_header.py "$catalogue" "$gen/${catalogue%.json}.h.new"
  cmp -s "$gen/${catalogue%.json}.h.new" "$gen/${catalogue%.json}.h" 2>/dev/null ||
    mv "$gen/${catalogue%.json}.h.new" "$gen/${catalogue%.json}.h"
  rm -f "$gen/${catalogue%.json}.h.new"
done
# The request protos (bazel/proto.bzl; messages only, no gRPC stubs).
protos=(proto/arbiter/v1/common.proto proto/arbiter/v1/rules.proto
        proto/arbiter/v1/arbitration.proto proto/arbiter/v1/clock.proto
        proto/arbiter/v1/store.proto)
protoc -I. --cpp_out="$gen" "${protos[@]}"
flags+=(-I"$gen")
lib_flags+=(-I"$gen")

sources=(libs/base/error.cc
         libs/chess/types.cc libs/chess/bitboard.cc libs/chess/position.cc libs/chess/movegen.cc
         libs/chess/fen.cc libs/chess/notation.cc libs/chess/pgn.cc libs/chess/game.cc
         libs/chess/perft.cc
         libs/laws/edition.cc libs/laws/outcome.cc libs/laws/ruleset.cc libs/laws/proto_convert.cc
         libs/laws/automatic_ending.cc
         libs/clock/time_control.cc libs/clock/clock.cc libs/clock/lag_compensation.cc
         libs/clock/display.cc
         libs/analysis/static_proofs.cc libs/analysis/unwinnable.cc libs/analysis/advice.cc
         libs/analysis/engine_pool.cc libs/analysis/uci_engine.cc libs/analysis/reachability.cc
         libs/arbitration/analyst.cc libs/arbitration/game_state.cc libs/arbitration/rulings.cc
         libs/arbitration/move_rulings.cc libs/arbitration/draw_rulings.cc
         libs/arbitration/clock_rulings.cc libs/arbitration/result_rulings.cc
         libs/arbitration/arbiter_rulings.cc libs/arbitration/draw_state.cc
         libs/arbitration/clock_state.cc libs/arbitration/adjournment_state.cc
         libs/arbitration/pgn_export.cc libs/arbitration/irregularities.cc
         libs/arbitration/irregularities_state.cc libs/arbitration/adjournment.cc
         libs/arbitration/board_feed.cc libs/arbitration/touch_move.cc
         libs/arbitration/sealed_move.cc libs/seal/seal.cc
         libs/clock_authority/clock_rulings.cc libs/clock_authority/clock_game.cc
         libs/clock_authority/clock_codec.cc libs/clock_authority/clock_commands.cc
         services/chess_proto.cc
         tools/arbiterctl/json_lines.cc tools/arbiterctl/json_fields.cc tools/arbiterctl/names.cc
         tools/arbiterctl/clock_simulate.cc tools/arbiterctl/game_simulate.cc
         tools/arbiterctl/game_scenario.cc tools/arbiterctl/game_run.cc
         tools/arbiterctl/game_render.cc
         tools/arbiterctl/analyze.cc tools/arbiterctl/analysis_cmds.cc
         "$gen"/proto/arbiter/v1/common.pb.cc "$gen"/proto/arbiter/v1/rules.pb.cc
         "$gen"/proto/arbiter/v1/arbitration.pb.cc "$gen"/proto/arbiter/v1/clock.pb.cc
         "$gen"/proto/arbiter/v1/store.pb.cc)

# An object is rebuilt when its source, any header or the flags change.
headers_key=$( (find libs services tools proto "$gen" \( -name '*.h' -o -name '*.inc' \) -print0 | sort -z |
                xargs -0 cat; echo "${lib_flags[*]}") | sha1sum | cut -c1-16)
mkdir -p "$out/obj"
objects=()
todo=()
for src in "${sources[@]}"; do
  key=$( (cat "$src"; echo "$headers_key") | sha1sum | cut -c1-16)
  obj="$out/obj/$(basename "${src%.cc}")-$key.o"
  objects+=("$obj")
  [ -f "$obj" ] || todo+=("$src:$obj")
done
if [ ${#todo[@]} -gt 0 ]; then
  echo "== compiling ${#todo[@]} library sources"
  export LIB_FLAGS="${lib_flags[*]}"
  printf '%s\n' "${todo[@]}" | xargs -P "${FUZZ_JOBS:-2}" -I{} bash -c \
    'src="${1%%:*}"; obj="${1#*:}"; clang++ $LIB_FLAGS -c "$src" -o "$obj.tmp" && mv "$obj.tmp" "$obj"' _ {}
fi
# Objects of sources or headers since changed are dropped.
for obj in "$out"/obj/*.o; do
  [[ " ${objects[*]} " == *" $obj "* ]] || rm -f "$obj"
done
archive="$out/libarbiter_fuzz-$( (printf '%s\n' "${objects[@]}") | sha1sum | cut -c1-16).a"
[ -f "$archive" ] || { rm -f "$out"/libarbiter_fuzz-*.a; ar rcs "$archive" "${objects[@]}"; }

all=(fen san pgn time_control clock_simulate game_simulate analyze unwinnable rules_request
     arbitration_request clock_request)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=("${all[@]}")
  total="${FUZZ_TOTAL_SECONDS:-$((3 * seconds))}"
  seconds=$((total / ${#targets[@]}))
  [ "$seconds" -ge 3 ] || seconds=3
fi
status=0
for t in "${targets[@]}"; do
  bin="$out/${t}_fuzzer"
  echo "== building $t fuzzer"
  clang++ "${flags[@]}" "tests/fuzz/${t}_fuzzer.cc" "$archive" $libs -o "$bin"
  corpus="$out/corpus-$t"
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/$t/* "$corpus"/ 2>/dev/null || true
  echo "== running $t fuzzer for ${seconds}s"
  if ! (cd "$out" && "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 "$corpus" > "$out/$t.log" 2>&1); then
    echo "FAIL: $t fuzzer found a crash; see $out/$t.log" >&2
    tail -30 "$out/$t.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|Done" "$out/$t.log" | tail -2
  fi
done
exit $status
