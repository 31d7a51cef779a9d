#!/bin/bash
# What the bench scripts share: `source "$(dirname "$0")/bench_lib.sh"` moves to the tree's root
# and reads BAZEL="bazel --output_base=..." (the bazel command; default: bazel).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bazel_cmd="${BAZEL:-bazel}"

# build_opt //pkg:target: builds the target with -c opt, quietly (a failure stops the script), and
# sets `bin` to its binary's absolute path: another bazel command in this checkout may re-point
# the bazel-bin link.
build_opt() {
  local target="${1#//}"
  $bazel_cmd build -c opt "//$target" >/dev/null 2>&1
  bin="$($bazel_cmd info -c opt bazel-bin 2>/dev/null)/${target/://}"
}
