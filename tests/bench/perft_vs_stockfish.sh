#!/bin/bash
# Perft speed, Arbiter vs Stockfish (single thread), in one run on one machine: the start position
# to depth 6 and Kiwipete to depth 5. Prints nodes/s of each and the ratio. Machines are noisy, so
# each side runs REPEAT times (default 3) and the best time counts.
# Usage: tests/bench/perft_vs_stockfish.sh   (builds //tools/arbiterctl first)
set -euo pipefail
cd "$(dirname "$0")/../.."
repeat="${REPEAT:-3}"
stockfish="${STOCKFISH:-/usr/games/stockfish}"
[ -x "$stockfish" ] || { echo "stockfish missing: apt-get install stockfish" >&2; exit 1; }
bazel build -c opt //tools/arbiterctl >/dev/null 2>&1
ctl=bazel-bin/tools/arbiterctl/arbiterctl

now_ns() { date +%s%N; }

# Best wall time in ms of a command over $repeat runs; the command's last token must be $expected.
best_ms() {
  local expected=$1; shift
  local best=0
  for _ in $(seq "$repeat"); do
    local t0 t1 out
    t0=$(now_ns)
    out=$("$@" 2>/dev/null | tail -n 3)
    t1=$(now_ns)
    local got
    got=$(echo "$out" | grep -Eo '[0-9]+' | tail -1)
    [ "$got" = "$expected" ] || { echo "wrong node count: got $got want $expected from $*" >&2; exit 1; }
    local ms=$(( (t1 - t0) / 1000000 ))
    if [ "$best" = 0 ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}

sf_perft() {  # fen depth
  printf 'setoption name Threads value 1\nposition %s\ngo perft %s\nquit\n' "$1" "$2" | "$stockfish" | grep 'Nodes searched'
}
# Stockfish's start-up (reading its network) is timed with depth 1 and subtracted.
sf_startup_ms=$(best_ms 20 sf_perft "startpos" 1)

printf '%-10s %6s %12s %10s %10s %12s %12s %7s\n' position depth nodes ours_ms sf_ms ours_Mnps sf_Mnps ratio
run() {  # name fen(for us) position(for stockfish) depth nodes
  local name=$1 fen=$2 sfpos=$3 depth=$4 nodes=$5
  local ours sf
  ours=$(best_ms "$nodes" "$ctl" perft --fen "$fen" --depth "$depth")
  sf=$(best_ms "$nodes" sf_perft "$sfpos" "$depth")
  sf=$(( sf > sf_startup_ms ? sf - sf_startup_ms : 1 ))
  ours=$(( ours > 0 ? ours : 1 ))
  awk -v n="$name" -v d="$depth" -v nodes="$nodes" -v o="$ours" -v s="$sf" 'BEGIN {
    printf "%-10s %6d %12d %10d %10d %12.1f %12.1f %6.2fx\n", n, d, nodes, o, s, nodes/o/1000, nodes/s/1000, s/o }'
}
run startpos startpos startpos 6 119060324
kiwi="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
run kiwipete "$kiwi" "fen $kiwi" 5 193690690
echo "(ratio = Stockfish time / Arbiter time; above 1 means Arbiter is faster. Stockfish start-up of ${sf_startup_ms} ms subtracted.)"
