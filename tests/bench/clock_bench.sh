#!/bin/bash
# The clock authority's figures (services/clock_authority/README.md, "Measured"), end to end on
# this machine: presses per second through gRPC with Redis persistence (client included), with
# appendfsync always and everysec, and the flag detection delay with 10,000 running clocks. Each
# run starts its own redis-server (libs/store/redis.conf) and clock_authority_server process(es)
# and stops them. Usage: tests/bench/clock_bench.sh   (optional: RUNS=3 DURATION=10s
# BAZEL="bazel --output_base=...")
set -euo pipefail
source "$(dirname "$0")/bench_lib.sh"
runs="${RUNS:-3}"
duration="${DURATION:-10s}"
build_opt //tests/bench:clock_bench
cd "$bin.runfiles/arbiter"
run() { "$bin" "$@" 2>/dev/null | grep -v '^{'; }
for fsync in always everysec; do
  for _ in $(seq "$runs"); do
    run --mode=press --appendfsync="$fsync" --duration="$duration"
  done
done
run --mode=flags --appendfsync=always --clocks=10000
run --mode=flags --appendfsync=always --clocks=10000 --replicas=2
