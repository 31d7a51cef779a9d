#!/bin/bash
# End-to-end checks of the arbiterctl binary's command-line contracts.
set -euo pipefail
ctl="$(dirname "$0")/arbiterctl"
[ -x "$ctl" ] || ctl="tools/arbiterctl/arbiterctl"
fail() { echo "FAIL: $*" >&2; exit 1; }

# perft: the node count is the last token of stdout.
out=$("$ctl" perft --fen startpos --depth 4 2>/dev/null)
[ "$(echo $out | awk '{print $NF}')" = "197281" ] || fail "perft startpos 4: $out"
out=$("$ctl" perft --fen "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1" --depth 3 --divide 2>/dev/null)
[ "$(echo $out | awk '{print $NF}')" = "97862" ] || fail "perft kiwipete divide: $out"
echo "$out" | grep -q "^e1g1: " || fail "divide lists per-move counts"
if "$ctl" perft --fen "bad" --depth 2 2>/dev/null; then fail "bad FEN must fail"; fi

# analyze: one JSON line per input line.
n=$(printf '{"fen":"startpos","moves":["e4"]}\n{"fen":"bad"}\n' | "$ctl" analyze | wc -l)
[ "$n" = "2" ] || fail "analyze line count $n"
printf '{"fen":"startpos","moves":["e4"]}\n' | "$ctl" analyze | grep -q '"turn":"black"' || fail "analyze turn"

# pgn check: exit 1 and the game number on a bad game.
tmp=$(mktemp)
printf '[Event "x"]\n\n1. e4 e5 2. Ke3 *\n' > "$tmp"
if "$ctl" pgn check "$tmp" > "$tmp.out"; then fail "pgn check must fail"; fi
grep -q "game 1: ERR_ILLEGAL_MOVE" "$tmp.out" || fail "pgn check output: $(cat "$tmp.out")"
rm -f "$tmp" "$tmp.out"
# demo: the rules core's walk-through runs to its end (it once read a position the game had moved).
out=$("$ctl" demo) || fail "demo exited $?"
echo "$out" | grep -q "REFUSED" || fail "demo shows the illegal attempt refused"
echo "$out" | grep -q "^Position: " || fail "demo reaches the final position"
echo "arbiterctl end-to-end: ok"
