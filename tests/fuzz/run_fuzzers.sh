#!/bin/bash
# Builds the fuzz targets with clang, libFuzzer, AddressSanitizer and UBSan, and runs each for a
# while. Exits non-zero on any crash or sanitizer report. Usage: tests/fuzz/run_fuzzers.sh [target ...]
#
# Targets (tests/fuzz/<target>_fuzzer.cc, seeds in tests/fuzz/corpus/<target>/): the keys of
# FUZZ_TARGETS in tests/fuzz/BUILD.bazel, which says what each one fuzzes and the libraries it
# links:
#   fen, san, pgn, time_control, clock_simulate, game_simulate, analyze, unwinnable,
#   rules_request, arbitration_request, clock_request
# The sources compiled are the tree's .cc files under those libraries, as `bazel query` finds them,
# and the request protos among them.
#
# Time: FUZZ_SECONDS (default 20) is each target's time when targets are named. For the default
# run of every target, the run's total is three times FUZZ_SECONDS (what the three chess targets
# took before the others came), shared evenly, at least 3 s each; FUZZ_TOTAL_SECONDS overrides it.
# The libraries are compiled once into $FUZZ_OUT/obj (keyed by the sources, every header and the
# flags) and archived; each target links only what it uses. Needs bazel (for the query), clang with
# libFuzzer, protoc and pkg-config.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${FUZZ_SECONDS:-20}"
out="${FUZZ_OUT:-/tmp/arbiter-fuzz}"
mkdir -p "$out"
command -v clang++ >/dev/null || { echo "clang++ missing: apt-get install clang libclang-rt-14-dev" >&2; exit 1; }
command -v protoc >/dev/null || { echo "protoc missing: apt-get install protobuf-compiler" >&2; exit 1; }
command -v bazel >/dev/null || { echo "bazel missing: tools/setup.sh installs it" >&2; exit 1; }
flags=(-std=c++20 -O1 -g -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -Wno-deprecated-enum-enum-conversion)
# Objects for the archive: instrumented for coverage and the sanitizers, without libFuzzer's main.
lib_flags=(-std=c++20 -O1 -g -I. -fsanitize=fuzzer-no-link,address,undefined
           -fno-sanitize-recover=undefined -Wno-deprecated-enum-enum-conversion)
libs=$(pkg-config --libs protobuf absl_status absl_statusor absl_strings absl_cord absl_str_format \
       absl_synchronization absl_time absl_flat_hash_map absl_hash libcrypto)

# Every fuzz target, and the tree's files under their deps (not tests/fuzz's own: each target's
# .cc is compiled with its own flags below).
all=($(bazel query --noshow_progress 'attr(tags, manual, kind(cc_library, //tests/fuzz:all))' |
       sed -n 's|^//tests/fuzz:\(.*\)_fuzzer$|\1|p'))
[ ${#all[@]} -gt 0 ] || { echo "no fuzz targets found by bazel query in tests/fuzz" >&2; exit 1; }
files=($(bazel query --noshow_progress \
           "kind('source file', deps(set($(printf '//tests/fuzz:%s_fuzzer ' "${all[@]}"))))" |
         sed -n 's#^//\(libs\|services\|tools\|proto\)\(/[^:]*\)\?:#\1\2/#p'))

# The error catalogues' headers are generated from their errors.json (bazel/error_catalogue.bzl).
gen="$out/gen"
for catalogue in $(printf '%s\n' "${files[@]}" | grep '/errors\.json$'); do
  mkdir -p "$gen/$(dirname "$catalogue")"
  python3 bazel/gen_errors_header.py "$catalogue" "$gen/${catalogue%.json}.h.new"
  cmp -s "$gen/${catalogue%.json}.h.new" "$gen/${catalogue%.json}.h" 2>/dev/null ||
    mv "$gen/${catalogue%.json}.h.new" "$gen/${catalogue%.json}.h"
  rm -f "$gen/${catalogue%.json}.h.new"
done
# The protos (bazel/proto.bzl; messages only, no gRPC stubs).
protos=($(printf '%s\n' "${files[@]}" | grep '\.proto$'))
protoc -I. --cpp_out="$gen" "${protos[@]}"
flags+=(-I"$gen")
lib_flags+=(-I"$gen")

sources=($(printf '%s\n' "${files[@]}" | grep '\.cc$')
         $(printf "$gen/%s.pb.cc\n" "${protos[@]%.proto}"))

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
