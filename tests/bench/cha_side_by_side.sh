#!/bin/bash
# Unwinnability side by side with CHA, the Chess Unwinnability Analyzer (M. Ambrona,
# github.com/miguel-ambrona/D3-Chess, GPL-3): the same questions to both, in one run, on three
# sets:
#   hard   D3-Chess tests/test-vector.txt: CHA's hard test vectors, both sides, expected verdicts;
#   games  D3-Chess tests/lichess-30K-games.txt: final positions of 30,000 timeout games, the side
#          not to move (6.9: can the player whose opponent flagged still mate?);
#   ours   tests/data/unwinnable_positions.txt, both sides.
# CHA is GPL: nothing of it enters this tree. It is built outside (in $WORK, default /tmp/cha)
# from a D3-Chess checkout and a Stockfish checkout (CHA links Stockfish 51deae8 as a library),
# and its test data is read from the D3-Chess checkout.
#
#   tests/bench/cha_side_by_side.sh D3_CHESS_DIR STOCKFISH_DIR [hard|games|ours|all]
#   (STOCKFISH_DIR: a git checkout of github.com/official-stockfish/Stockfish with 51deae8; or
#   CHA=/path/to/cha to skip the build)
#
# Each set prints our mean time per question and CHA's (as it measures itself), the ratio,
# the undetermined answers of each, and contradictions (between the two and with CHA's expected
# verdicts). Exits 1 on a contradiction or an unsound line of ours.
set -euo pipefail
d3="$(cd "$1" && pwd)"
sf="$(cd "$2" && pwd)"
set_name="${3:-all}"
source "$(dirname "$0")/bench_lib.sh"
work="${WORK:-/tmp/cha}"
mkdir -p "$work"

if [[ -z "${CHA:-}" ]]; then
  if [[ ! -x "$work/cha" ]]; then
    # Stockfish as objects (no network: the NNUE net is not embedded; CHA never evaluates).
    rm -rf "$work/Stockfish"
    git clone -q "$sf" "$work/Stockfish"
    git -C "$work/Stockfish" checkout -q 51deae8
    cp "$d3/lib/stockfish/stockfish.cpp" "$d3/lib/stockfish/stockfish.h" "$work/Stockfish/src/"
    sed -i '/^OBJS/i SRCS += stockfish.cpp' "$work/Stockfish/src/Makefile"
    make -C "$work/Stockfish/src" -j2 ARCH=x86-64 COMP=gcc \
      EXTRACXXFLAGS="-fPIC -DNNUE_EMBEDDING_OFF" all >"$work/stockfish_build.log" 2>&1
    objs=$(ls "$work"/Stockfish/src/*.o | grep -v '/main.o$')
    (cd "$d3/src" && g++ -std=c++17 -O3 -DNDEBUG -DIS_64BIT -DUSE_PTHREADS -msse -msse2 \
      -DUSE_SSE2 -I"$work/Stockfish/src" -o "$work/cha" util.cpp semistatic.cpp dynamic.cpp \
      cha.cpp main.cpp $objs -flto -lpthread) 2>"$work/cha_build.log"
  fi
  CHA="$work/cha"
fi

# Built here with --jobs=2 (the machine is shared with other builds).
$bazel_cmd build -c opt --jobs=2 //tests/bench:unwinnable_bench >/dev/null 2>&1
bin="$($bazel_cmd info -c opt bazel-bin 2>/dev/null)/tests/bench/unwinnable_bench"
status=0
run() {
  echo "== $1"
  "$bin" "${@:2}" --peer "$CHA" 2>"$work/$1.err" || status=1
}
case "$set_name" in
  hard | all) run hard --vectors "$d3/tests/test-vector.txt" ;;&
  games | all) run games --games "$d3/tests/lichess-30K-games.txt" ;;&
  ours | all) run ours "$PWD/tests/data/unwinnable_positions.txt" ;;
esac
echo "(undetermined questions and contradictions are listed in $work/<set>.err)"
exit $status
