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
# An unknown flag is refused before anything runs (exit 2), naming it and the known one it is
# close to; ignored, a mistyped --ca would send the call in plaintext and fail as UNAVAILABLE.
expect_unknown() {  # expected message, then the command line
  local want="$1"; shift
  local rc=0
  "$ctl" "$@" >/dev/null 2>"$tmp.err" || rc=$?
  [ "$rc" = "2" ] || fail "$* exited $rc, not 2"
  grep -qF -- "$want" "$tmp.err" || fail "$*: stderr $(cat "$tmp.err"), wanted: $want"
}
tmp=$(mktemp)
expect_unknown "unknown flag --ca; did you mean --tls_ca?" --server=127.0.0.1:1 --ca=ca.pem game get --game g1
expect_unknown "unknown flag --ca; did you mean --tls_ca?" --ca ca.pem clock get --game g1
expect_unknown "unknown flag --tokn; did you mean --token?" --tokn=x health
expect_unknown "unknown flag --fenn; did you mean --fen?" rules validate --fenn startpos --move e4
expect_unknown "unknown flag --dividee; did you mean --divide?" perft --fen startpos --depth 1 --dividee
expect_unknown "unknown flag --max-node; did you mean --max-nodes?" dead --fen startpos --max-node 5
expect_unknown "unknown flag --enigne; did you mean --engine?" advise --fen startpos --enigne none
expect_unknown "unknown flag --jsn; did you mean --json?" pgn check /dev/null --jsn
expect_unknown "unknown flag --offer-drawn; did you mean --offer-draw?" game move --game g1 --side white --move e4 --offer-drawn
expect_unknown "unknown flag --delta; did you mean --delta-ms?" clock adjust --game g1 --side white --delta 5
expect_unknown "unknown flag --zzz" game simulate --zzz=1
grep -q "did you mean" "$tmp.err" && fail "no suggestion for a flag close to none: $(cat "$tmp.err")"
# A known flag of another command is unknown here.
expect_unknown "unknown flag --depth" game get --game g1 --depth 3
rm -f "$tmp" "$tmp.err"
echo "arbiterctl end-to-end: ok"
