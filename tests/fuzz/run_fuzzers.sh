#!/bin/bash
# Builds the FEN, SAN and PGN fuzz targets with clang, libFuzzer, AddressSanitizer and UBSan, and
# runs each for a while (default 20 s; FUZZ_SECONDS=N to change). Exits non-zero on any crash or
# sanitizer report. Usage: tests/fuzz/run_fuzzers.sh [target ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${FUZZ_SECONDS:-20}"
out="${FUZZ_OUT:-/tmp/arbiter-fuzz}"
mkdir -p "$out"
command -v clang++ >/dev/null || { echo "clang++ missing: apt-get install clang libclang-rt-14-dev" >&2; exit 1; }
flags=(-std=c++20 -O1 -g -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -Wno-deprecated-enum-enum-conversion)
libs=$(pkg-config --libs absl_status absl_statusor absl_strings absl_cord absl_str_format)
# The error catalogues' headers are generated from their errors.json (bazel/error_catalogue.bzl).
for catalogue in libs/base/errors.json libs/chess/errors.json; do
  mkdir -p "$out/gen/$(dirname "$catalogue")"
  python3 bazel/gen_errors_header.py "$catalogue" "$out/gen/${catalogue%.json}.h"
done
flags+=(-I"$out/gen")
sources=(libs/base/error.cc libs/chess/types.cc libs/chess/bitboard.cc libs/chess/position.cc
         libs/chess/movegen.cc libs/chess/fen.cc libs/chess/notation.cc libs/chess/pgn.cc
         libs/chess/game.cc)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fen san pgn)
status=0
for t in "${targets[@]}"; do
  bin="$out/${t}_fuzzer"
  echo "== building $t fuzzer"
  clang++ "${flags[@]}" "tests/fuzz/${t}_fuzzer.cc" "${sources[@]}" $libs -o "$bin"
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
