#!/usr/bin/env bash
# idle_sweep.sh [BIN] [LABEL] [PORT]: an idle arbiterd --services=clock_authority (no clocks) on
# one Redis for 10 s after 3 s of warm-up: Redis commands/s, arbiterd and Redis CPU (% of one
# core). BIN: an arbiterd binary (bazel-bin's by default), e.g. two trees' alternated ABBA.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-$SRC/bazel-bin/services/arbiterd/arbiterd}"; LABEL="${2:-arbiterd}"; PORT="${3:-46391}"
D=$(mktemp -d /tmp/idle.XXXX)
redis-server $SRC/libs/store/redis.conf --port $PORT --bind 127.0.0.1 --dir $D --logfile $D/redis.log --daemonize yes --pidfile $D/redis.pid
for _ in $(seq 50); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p $PORT -x function load replace < $SRC/libs/store/redis_functions.lua >/dev/null
RPID=$(cat $D/redis.pid)
"$BIN" --services=clock_authority --insecure_dev --store=redis://127.0.0.1:$PORT \
  --grpc_address=127.0.0.1:$((PORT+1)) --metrics_address=127.0.0.1:$((PORT+2)) >$D/arbiterd.log 2>&1 &
APID=$!
sleep 3
ticks() { awk '{print $14+$15}' /proc/$1/stat; }
c0=$(redis-cli -p $PORT info stats | awk -F: '/^total_commands_processed/{print $2+0}')
a0=$(ticks $APID); r0=$(ticks $RPID); t0=$(date +%s.%N)
sleep 10
c1=$(redis-cli -p $PORT info stats | awk -F: '/^total_commands_processed/{print $2+0}')
a1=$(ticks $APID); r1=$(ticks $RPID); t1=$(date +%s.%N)
HZ=$(getconf CLK_TCK)
python3 - "$LABEL" $c0 $c1 $a0 $a1 $r0 $r1 $t0 $t1 $HZ <<'PY'
import sys
l,c0,c1,a0,a1,r0,r1,t0,t1,hz=sys.argv[1:]
dt=float(t1)-float(t0); hz=float(hz)
print(f"{l}: {(int(c1)-int(c0))/dt:,.0f} commands/s, arbiterd {100*(int(a1)-int(a0))/hz/dt:.1f} %, redis {100*(int(r1)-int(r0))/hz/dt:.1f} % of a core, load {open('/proc/loadavg').read().split()[0]}")
PY
kill $APID; wait $APID 2>/dev/null || true
redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true
rm -rf $D
