#!/bin/bash
# arbiterd + arbiterctl client commands end to end: the server on free loopback ports, the client's
# output and exit codes, the metrics endpoint, and a graceful stop on SIGTERM.
set -euo pipefail
dir="$(dirname "$0")"
ctl="$dir/arbiterctl"
server_bin="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-arbiter}/services/arbiterd/arbiterd"
[ -x "$server_bin" ] || server_bin="services/arbiterd/arbiterd"
log=$(mktemp)
fail() { echo "FAIL: $*" >&2; cat "$log" >&2; exit 1; }

"$server_bin" --services=all --insecure_dev --grpc_address=127.0.0.1:0 --metrics_address=127.0.0.1:0 \
  --shutdown_grace=200ms 2> "$log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q '"msg":"serving"' "$log" && break; sleep 0.05; done
port=$(grep -o '"grpc_port":"[0-9]*"' "$log" | grep -o '[0-9]*')
mport=$(grep -o '"metrics_port":"[0-9]*"' "$log" | grep -o '[0-9]*')
[ -n "$port" ] || fail "server did not start"
A=("$ctl" --server=127.0.0.1:$port)

"${A[@]}" health | grep -q "SERVING" || fail "health"
"${A[@]}" rules validate --fen startpos --move Sf3 | grep -q "legal: Nf3" || fail "validate legal"
set +e
"${A[@]}" rules validate --fen startpos --move Ke2 > /tmp/ctl.$$ ; rc=$?
set -e
[ $rc = 1 ] || fail "illegal move exit code $rc"
grep -q "ERR_ILLEGAL_MOVE OWN_PIECE_ON_TARGET" /tmp/ctl.$$ || fail "illegal move reason: $(cat /tmp/ctl.$$)"
set +e
"${A[@]}" rules validate --fen nonsense --move e4 --json > /tmp/ctl.$$ ; rc=$?
set -e
[ $rc = 2 ] || fail "bad FEN exit code $rc"
grep -q '"code":"ERR_BAD_FEN"' /tmp/ctl.$$ || fail "bad FEN json: $(cat /tmp/ctl.$$)"
"${A[@]}" rules status --fen startpos --moves Nf3,Nf6,Ng1,Ng8,Nf3,Nf6,Ng1 | grep -q "threefold claim (9.2): with a move Ng8" \
  || fail "status threefold"
"${A[@]}" rules perft --fen startpos --depth 3 | grep -q "Nodes searched: 8902" || fail "perft"
"${A[@]}" rules validate --fen startpos --move e4 --json | grep -q '"uci":"e2e4"' || fail "validate json"
python3 - "$mport" <<'PY' || fail "metrics"
import sys, urllib.request
body = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode()
assert 'arbiter_grpc_requests_total{code="OK",method="ValidateMove",service="arbiter.v1.RulesValidation"}' in body, body[:2000]
assert "arbiter_insecure_dev 1" in body
PY
kill -TERM $pid
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
kill -0 $pid 2>/dev/null && fail "server still running after SIGTERM"
grep -q '"msg":"stopped"' "$log" || fail "no graceful stop"
rm -f /tmp/ctl.$$
echo "arbiterd + arbiterctl end-to-end: ok"
