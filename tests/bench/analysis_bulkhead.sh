#!/bin/bash
# The bulkhead, measured (services/arbitration/README.md, "Apart from search-analysis"): the move
# path's latency at a fixed offered rate (arbitration_bench, open loop, one Redis append a move)
# while search-analysis is flooded with expensive questions (analysis_bench --mode=flood), in one
# window:
#   (a) all-in-one: one arbiterd --services=all, the flood on its own SearchAnalysis;
#   (b) apart: arbiterd --services=arbitration --analysis_target=... (started by
#       arbitration_bench) and arbiterd --services=search_analysis confined to one core
#       (taskset -c 1), the flood on it;
# each also without the flood, for reference; then the cost of one remote 6.10 question against
# an in-process one (analysis_bench --mode=cost).
# Usage: tests/bench/analysis_bulkhead.sh   (optional: RATE=2000 DURATION=10s FLOOD_THREADS=8
# MODE=opt|fastbuild BAZEL="bazel --output_base=...")
set -euo pipefail
source "$(dirname "$0")/bench_lib.sh"
rate="${RATE:-2000}"
duration="${DURATION:-10s}"
threads="${FLOOD_THREADS:-8}"
if [[ "${MODE:-opt}" == opt ]]; then
  build_opt //tests/bench:analysis_bench
  flood="$bin"
  build_opt //tests/bench:arbitration_bench
else
  $bazel_cmd build //tests/bench:analysis_bench //tests/bench:arbitration_bench >/dev/null 2>&1
  flood="$($bazel_cmd info bazel-bin 2>/dev/null)/tests/bench/analysis_bench"
  bin="$($bazel_cmd info bazel-bin 2>/dev/null)/tests/bench/arbitration_bench"
fi
arbiterd="$bin.runfiles/arbiter/services/arbiterd/arbiterd"
cd "$bin.runfiles/arbiter"
work="$(mktemp -d /tmp/analysis_bulkhead.XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
port_all=7391
port_analysis=7392
flood_seconds=$((${duration%s} + 10))
moves() {  # label, arbiterd's extra flags (comma-separated)
  echo "== $1"
  mkdir -p "$work/redis-$1"
  "$bin" --dir="$work/redis-$1" --duration="$duration" --rate="$rate" --server_flags="$2" \
    2>/dev/null | grep -v '^{' | grep -v '^# 1024'
}
flood() {  # port: the flood waits for the server, then keeps the questions in flight
  "$flood" --mode=flood --target="127.0.0.1:$1" --threads="$threads" \
    --duration="${flood_seconds}s" &
  pids+=($!)
}

echo "load average $(cut -d' ' -f1-3 /proc/loadavg), rate $rate moves/s, $duration each"
all="--services=all,--grpc_address=127.0.0.1:$port_all"
moves "a-all-in-one-quiet" "$all"
flood "$port_all"
moves "a-all-in-one-flooded" "$all"
wait "${pids[-1]}" || true

taskset -c 1 "$arbiterd" --services=search_analysis --insecure_dev --metrics_address=none \
  --engine_pool_size=0 --grpc_address="127.0.0.1:$port_analysis" 2>"$work/analysis.log" &
pids+=($!)
sleep 2
apart="--analysis_target=127.0.0.1:$port_analysis"
moves "b-apart-quiet" "$apart"
flood "$port_analysis"
moves "b-apart-flooded" "$apart"
wait "${pids[-1]}" || true

echo "== the cost of one 6.10 question"
"$flood" --mode=cost --target="127.0.0.1:$port_analysis"
