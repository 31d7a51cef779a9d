#!/bin/bash
# The arbitration service's move figures (services/arbitration/README.md, "Measured"), end to end
# on this machine: moves per second through gRPC, the rulings and one Redis append each
# (appendfsync always), client included, at max throughput and at a fixed offered rate. Each run
# starts its own redis-server (libs/store/redis.conf) and arbiterd (--services=arbitration) and
# stops them. With BEFORE=/path/to/an/older/arbiterd the runs alternate between that binary and
# this tree's, in one window, so that both see the same machine.
# With STREAMS="0 4" each run is made once with a SubmitMove call per move (0) and once with the
# moves on 4 SubmitMoves streams, alternating, in one window.
# Usage: tests/bench/arbitration_bench.sh   (optional: RUNS=2 DURATION=10s RATE=8000
# CONCURRENCY=256 STREAMS="0" BEFORE=/tmp/arbiterd-old BAZEL="bazel --output_base=..." and
# FLAGS="..." for more arbitration_bench flags, e.g. FLAGS="--tail_report")
set -euo pipefail
source "$(dirname "$0")/bench_lib.sh"
runs="${RUNS:-2}"
duration="${DURATION:-10s}"
rate="${RATE:-8000}"
concurrency="${CONCURRENCY:-256}"
streams="${STREAMS:-0}"
build_opt //tests/bench:arbitration_bench
after="$bin.runfiles/arbiter/services/arbiterd/arbiterd"
servers=("$after")
if [[ -n "${BEFORE:-}" ]]; then servers=("$BEFORE" "$after"); fi
cd "$bin.runfiles/arbiter"
# Bazel's server runs a full garbage collection about 10 s after its last command (its idle
# tasks): a third of a core for ~200 ms, which lands in the measured time and shows as a stall in
# the p99. Let it pass before the first run.
sleep 15
# Each run's Redis data stays until the last run is over: deleting a run's AOF (~100 MB) on a
# filesystem mounted with online discard (this VM's root) stalls the disk's flushes for tens of
# ms, in the next run's measured time (p99 20 ms instead of 3.7 ms).
work="$(mktemp -d /tmp/arbitration_bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT
n=0
run() {
  n=$((n + 1))
  mkdir -p "$work/redis-$n"
  "$bin" ${FLAGS:-} --dir="$work/redis-$n" "$@" 2>/dev/null | grep -v '^{' | grep -v '^# 1024'
}
for _ in $(seq "$runs"); do
  for server in "${servers[@]}"; do
    for s in $streams; do
      run --server="$server" --duration="$duration" --concurrency="$concurrency" --streams="$s"
      run --server="$server" --duration="$duration" --rate="$rate" --streams="$s"
    done
  done
done
