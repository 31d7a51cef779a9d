#!/bin/bash
# The cost of durability: appends/s through the Redis game store (its real Lua write path) with
# appendfsync always vs everysec, and the in-memory store for reference, in one run on one
# machine. Each Redis run starts its own redis-server with libs/store/redis.conf on the data
# directory's disk (DIR, default /tmp: measure on the disk you deploy on).
# Usage: tests/bench/store_fsync.sh   (optional: SECONDS_PER_RUN=5 CLIENTS=1,4,16 DIR=/var/tmp
#        BAZEL="bazel --output_base=...")
set -euo pipefail
source "$(dirname "$0")/bench_lib.sh"
seconds="${SECONDS_PER_RUN:-5}"
clients="${CLIENTS:-1,4,16}"
dir="${DIR:-/tmp}"
build_opt //libs/store:store_benchmark
echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), data on $(df -T "$dir" | awk 'NR==2 {print $2, $1}')"
for fsync in always everysec; do
  run_dir=$(mktemp -d "$dir/store_fsync.XXXXXX")
  "$bin" --store=redis --appendfsync="$fsync" --clients="$clients" --seconds="$seconds" --dir="$run_dir"
  rm -rf "$run_dir"
done
"$bin" --store=memory --clients="$clients" --seconds="$seconds"
