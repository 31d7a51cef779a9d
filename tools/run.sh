#!/bin/bash
# The main job: builds Arbiter, starts the all-in-one server (arbiterd --services=all: rules
# validation, clock authority, search analysis, arbitration; in-memory store; --insecure_dev) and
# runs a short demo against it with arbiterctl, then stops it.
# KEEP=1 tools/run.sh leaves the server running afterwards (stop it with Ctrl-C).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
bazel build //services/arbiterd //tools/arbiterctl
GRPC="${ARBITER_GRPC:-127.0.0.1:7070}"
METRICS="${ARBITER_METRICS:-127.0.0.1:9090}"
CONSOLE="${ARBITER_CONSOLE:-127.0.0.1:8090}"
log=$(mktemp)
bazel-bin/services/arbiterd/arbiterd --services=all --insecure_dev --grpc_address="$GRPC" \
  --metrics_address="$METRICS" --console_address="$CONSOLE" --shutdown_grace=500ms 2> "$log" &
pid=$!
stop() { kill -TERM $pid 2>/dev/null && wait $pid 2>/dev/null; rm -f "$log"; }
trap stop EXIT
for _ in $(seq 100); do grep -q '"msg":"serving"' "$log" && break; sleep 0.1; done
grep -q '"msg":"serving"' "$log" || { cat "$log"; echo "arbiterd did not start" >&2; exit 1; }

A=(bazel-bin/tools/arbiterctl/arbiterctl --server="$GRPC")
step() { echo; echo "\$ arbiterctl $*"; }
echo "arbiterd is serving on $GRPC (gRPC) with metrics on http://$METRICS/metrics and the arbiter's console on http://$CONSOLE/"
echo "(it runs with --insecure_dev: no authentication, as its log says loudly)"

step health
"${A[@]}" health
step rules validate --fen startpos --move Sf3
"${A[@]}" rules validate --fen startpos --move Sf3
step rules validate --fen startpos --move e2e5
"${A[@]}" rules validate --fen startpos --move e2e5 || true
step rules validate --fen "'4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1'" --move Nc3
"${A[@]}" rules validate --fen "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1" --move Nc3 || true
step rules apply --fen startpos --moves e4,e5,Nf3,Nc6,Bb5
"${A[@]}" rules apply --fen startpos --moves e4,e5,Nf3,Nc6,Bb5
step rules status --fen startpos --moves Nf3,Nf6,Ng1,Ng8,Nf3,Nf6,Ng1
"${A[@]}" rules status --fen startpos --moves Nf3,Nf6,Ng1,Ng8,Nf3,Nf6,Ng1
step clock create --game demo-1 --time-control "'G/3+2'" --edition fide2023
"${A[@]}" clock create --game demo-1 --time-control "G/3+2" --edition fide2023
step clock start --game demo-1
"${A[@]}" clock start --game demo-1
sleep 1.5
step clock press --game demo-1 "   (White's first move, 1.5 s later: +2 s increment)"
"${A[@]}" clock press --game demo-1
step clock get --game demo-1 --json
"${A[@]}" clock get --game demo-1 --json | cut -c1-240
echo
echo "A game through the arbitration service (fide2001, 40 moves in 90 minutes, then 30):"
G=(game --game demo-game)
step game create --game demo-game --white alice --black bob --edition fide2001 --time-control "'40/90, 30'"
"${A[@]}" "${G[@]}" create --white alice --black bob --edition fide2001 --time-control "40/90, 30" \
  --event "Arbiter demo" --site "127.0.0.1" --round 1 > /dev/null
"${A[@]}" "${G[@]}" start > /dev/null
for m in "white Sf3" "black Sf6" "white Sg1"; do
  set -- $m
  step game move --game demo-game --side "$1" --move "$2"
  "${A[@]}" "${G[@]}" move --side "$1" --move "$2" > /dev/null
done
step game claim --game demo-game --side black --kind threefold --move Sg8 \
  "   (only the second time: 9.5b, White +3 min, Black loses half, at most 3 min)"
"${A[@]}" "${G[@]}" claim --side black --kind threefold --move Sg8 || true
for m in "white Nf3" "black Nf6" "white Ng1"; do
  set -- $m
  "${A[@]}" "${G[@]}" move --side "$1" --move "$2" > /dev/null
done
step game claim --game demo-game --side black --kind threefold --move Ng8 "   (now the third time: 9.2a)"
"${A[@]}" "${G[@]}" claim --side black --kind threefold --move Ng8
"${A[@]}" "${G[@]}" confirm --side white > /dev/null
"${A[@]}" "${G[@]}" confirm --side black > /dev/null
step game pgn --game demo-game "   (after both players confirmed the result, 8.7)"
"${A[@]}" "${G[@]}" pgn
step game archive --game demo-game "   (the platform has the record: the game leaves Redis, its tombstone stays)"
"${A[@]}" "${G[@]}" archive

echo
echo "The arbiter's console (event \"Arbiter demo\"): a game whose player claims a draw under 10.2"
C=(game --game demo-claim)
"${A[@]}" "${C[@]}" create --white carol --black dave --edition fide2023 --time-control 5400 \
  --event "Arbiter demo" --site "127.0.0.1" --round 2 > /dev/null
"${A[@]}" "${C[@]}" start > /dev/null
for m in "white e4" "black e5" "white Nf3" "black Nc6"; do
  set -- $m
  "${A[@]}" "${C[@]}" move --side "$1" --move "$2" > /dev/null
done
"${A[@]}" "${C[@]}" set-clocks --white-ms 100000 --black-ms 100000 --reason "a quickplay finish" > /dev/null
step game claim --game demo-claim --side white --kind quickplay "   (10.2: the arbiter decides)"
"${A[@]}" "${C[@]}" claim --side white --kind quickplay || true
echo
echo "The arbiter's console: http://$CONSOLE/  (event: Arbiter demo; under --insecure_dev any"
echo "token opens it). The claim of demo-claim waits in its queue. KEEP=1 keeps it open."

step rules validate --fen nonsense --move e4 --json
"${A[@]}" rules validate --fen nonsense --move e4 --json || true

echo
echo "Metrics an operator would watch (http://$METRICS/metrics):"
python3 - "$METRICS" <<'PY'
import sys, urllib.request
body = urllib.request.urlopen(f"http://{sys.argv[1]}/metrics", timeout=5).read().decode()
for line in body.splitlines():
    if line.startswith(("arbiter_grpc_requests_total", "arbiter_insecure_dev", "arbiter_build_info",
                        "arbiter_arbitration_claims", "arbiter_arbitration_results")):
        print("  " + line)
PY
echo
echo "Offline tools on the same core: arbiterctl demo, analyze, pgn check, clock simulate:"
echo '{"time_control_human": "90+30", "edition": "fide2001", "events": [{"at_ms": 0, "type": "start"}, {"at_ms": 61234, "type": "press"}], "query_ms": 120000}' |
  bazel-bin/tools/arbiterctl/arbiterctl clock simulate | cut -c1-200
if [ "${KEEP:-0}" = 1 ]; then
  echo "KEEP=1: arbiterd keeps running on $GRPC, the console on http://$CONSOLE/; Ctrl-C stops it."
  wait $pid
fi
