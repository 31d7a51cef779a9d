#!/bin/bash
# arbiterd --http_address driven with curl: a unary call, its errors (HTTP status and the
# google.rpc.Status body with its ErrorInfo), the same auth as gRPC, a bidirectional stream and a
# server stream as NDJSON (WatchGame, and WatchGames resumed from a position), and the gateway's own
# refusals (404, 405, 411, 413, bad JSON).
set -euo pipefail
root="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-arbiter}"
source "$root/tests/integration/testing/http_json.sh"

start_arbiterd --max_message_bytes=65536
trap stop_arbiterd EXIT
platform=$(token platform plat)
arbiter=$(token arbiter arb)
white=$(token player alice '{"game": "h1", "color": "white"}')

# A unary call.
code=$(post arbiter.v1.RulesValidation/ValidateMove "$platform" '{"position": {"fen": "startpos"}, "move": "e4"}')
[ "$code" = 200 ] || fail "ValidateMove: HTTP $code"
grep -q '"legal":true' "$out" || fail "ValidateMove: not legal"
grep -q '"uci":"e2e4"' "$out" || fail "ValidateMove: no uci"

# An error: the HTTP status of its gRPC code, the google.rpc.Status as the body.
code=$(post arbiter.v1.RulesValidation/ValidateMove "$platform" '{"position": {"fen": "nonsense"}, "move": "e4"}')
[ "$code" = 400 ] || fail "bad FEN: HTTP $code"
python3 - "$out" <<'PY' || fail "bad FEN body"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["code"] == 3, s  # INVALID_ARGUMENT
info = s["details"][0]
assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo", info
assert info["reason"] == "ERR_BAD_FEN" and info["domain"] == "arbiter.v1", info
PY

# The same auth as gRPC: no token 401, a wrong role 403.
code=$(post arbiter.v1.RulesValidation/ValidateMove "" '{"position": {"fen": "startpos"}, "move": "e4"}')
[ "$code" = 401 ] || fail "no token: HTTP $code"
grep -q '"reason":"ERR_UNAUTHENTICATED"' "$out" || fail "no token: reason"
code=$(post arbiter.v1.Arbitration/CreateGame "$white" '{"gameId": "h1"}')
[ "$code" = 403 ] || fail "a player creating a game: HTTP $code"
grep -q '"reason":"ERR_PERMISSION_DENIED"' "$out" || fail "player create: reason"

# A game over HTTP: created by the platform, started by the arbiter, White moves.
code=$(post arbiter.v1.Arbitration/CreateGame "$platform" \
  '{"game_id": "h1", "white_id": "alice", "black_id": "bob", "ruleset": {"edition": "EDITION_FIDE_2023"}, "time_control": "5400+30", "event": "Open", "round": "1"}')
[ "$code" = 200 ] || fail "CreateGame: HTTP $code"
code=$(post arbiter.v1.Arbitration/StartGame "$arbiter" '{"gameId": "h1"}')
[ "$code" = 200 ] || fail "StartGame: HTTP $code"
code=$(post arbiter.v1.Arbitration/SubmitMove "$white" '{"gameId": "h1", "commandId": "m1", "move": "e4"}')
[ "$code" = 200 ] || fail "SubmitMove: HTTP $code"
grep -q '"movesSan":\["e4"\]' "$out" || fail "SubmitMove: no e4"
# Retried: replayed, not applied twice.
code=$(post arbiter.v1.Arbitration/SubmitMove "$white" '{"gameId": "h1", "commandId": "m1", "move": "e4"}')
[ "$code" = 200 ] && grep -q '"replayed":true' "$out" || fail "retried SubmitMove: HTTP $code"
# A version conflict is 409.
code=$(post arbiter.v1.Arbitration/SubmitMove "$white" '{"gameId": "h1", "expectedVersion": "1", "move": "d4"}')
[ "$code" = 409 ] || fail "version conflict: HTTP $code"
grep -q '"reason":"ERR_VERSION_CONFLICT"' "$out" || fail "version conflict: reason"

# An event over HTTP: created once (a retry replayed, another content 409 ERR_EVENT_EXISTS), a round
# of its games created in one call, its results by round.
event='{"event": "h-open", "command_id": "e1", "ruleset": {"edition": "EDITION_FIDE_2023", "regulations": {"default_time_ms": "1800000"}}, "time_control_human": "90+30"}'
code=$(post arbiter.v1.Arbitration/CreateEvent "$platform" "$event")
[ "$code" = 200 ] || fail "CreateEvent: HTTP $code"
grep -q '"timeControl":"5400+30"' "$out" || fail "CreateEvent: no recorded time control"
code=$(post arbiter.v1.Arbitration/CreateEvent "$platform" "$event")
[ "$code" = 200 ] && grep -q '"replayed":true' "$out" || fail "retried CreateEvent: HTTP $code"
code=$(post arbiter.v1.Arbitration/CreateEvent "$platform" '{"event": "h-open", "ruleset": {"edition": "EDITION_FIDE_2005"}, "time_control": "90+30"}')
[ "$code" = 409 ] || fail "another event under the id: HTTP $code"
grep -q '"reason":"ERR_EVENT_EXISTS"' "$out" || fail "another event: reason"
code=$(post arbiter.v1.Arbitration/CreateEvent "$white" '{"event": "h-mine", "ruleset": {"edition": "EDITION_FIDE_2023"}, "time_control": "5400"}')
[ "$code" = 403 ] || fail "a player creating an event: HTTP $code"
code=$(post arbiter.v1.Arbitration/CreateRound "$arbiter" \
  '{"event": "h-open", "command_id": "r1", "round": 1, "start": true, "pairings": [{"white_id": "ann", "black_id": "bob"}, {"white_id": "cid", "black_id": "dan"}]}')
[ "$code" = 200 ] || fail "CreateRound: HTTP $code"
grep -q '"gameId":"h-open.r1.b2"' "$out" || fail "CreateRound: no board 2"
code=$(post arbiter.v1.Arbitration/GetEventResults "$platform" '{"event": "h-open"}')
[ "$code" = 200 ] && grep -q '"pending":true' "$out" || fail "GetEventResults: HTTP $code"

# A bidirectional stream: NDJSON in, NDJSON out, one line per message.
code=$(post arbiter.v1.RulesValidation/ValidateMoveStream "$platform" \
  $'{"position": {"fen": "startpos"}, "move": "e4", "id": "a"}\n{"position": {"fen": "startpos"}, "move": "Ke2", "id": "b"}\n')
[ "$code" = 200 ] || fail "ValidateMoveStream: HTTP $code"
[ "$(grep -c '^{"result":' "$out")" = 2 ] || fail "ValidateMoveStream: not two lines"
grep -q '"id":"b"' "$out" || fail "ValidateMoveStream: no b"

# A server stream: the game's updates as NDJSON while the client stays (curl leaves after 2 s,
# which cancels the watch).
set +e
code=$(post arbiter.v1.Arbitration/WatchGame "$arbiter" '{"gameId": "h1"}' --max-time 2 2>/dev/null)
set -e
[ "$code" = 200 ] || fail "WatchGame: HTTP $code"
[ "$(grep -c '^{"result":' "$out")" -ge 3 ] || fail "WatchGame: fewer than 3 updates"
grep -q '"created"' "$out" || fail "WatchGame: no created event"
# A stream refused before its first message is an ordinary error.
code=$(post arbiter.v1.Arbitration/WatchGame "$arbiter" '{"gameId": "nosuchgame"}' --max-time 5)
[ "$code" = 404 ] || fail "WatchGame of no game: HTTP $code"

# The firehose: every game on one stream as NDJSON, each line a game's new events and the position
# to resume from; resumed from the first line's position, the move made meanwhile comes.
set +e
code=$(post arbiter.v1.Arbitration/WatchGames "$platform" '{}' --max-time 1 2>/dev/null)
set -e
[ "$code" = 200 ] || fail "WatchGames: HTTP $code"
position=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["result"]["position"])' "$out") \
  || fail "WatchGames: no position on the first line"
black=$(token player bob '{"game": "h1", "color": "black"}')
code=$(post arbiter.v1.Arbitration/SubmitMove "$black" '{"gameId": "h1", "move": "e5"}')
[ "$code" = 200 ] || fail "SubmitMove e5: HTTP $code"
set +e
code=$(post arbiter.v1.Arbitration/WatchGames "$platform" "{\"position\": \"$position\"}" --max-time 2 2>/dev/null)
set -e
[ "$code" = 200 ] || fail "WatchGames resumed: HTTP $code"
grep -q '"gameId":"h1"' "$out" && grep -q '"san":"e5"' "$out" || fail "WatchGames resumed: no e5 of h1"
code=$(post arbiter.v1.Arbitration/WatchGames "$platform" '{"position": "nonsense"}' --max-time 5)
[ "$code" = 400 ] && grep -q '"reason":"ERR_BAD_FEED_POSITION"' "$out" || fail "bad position: HTTP $code"

# The gateway's own refusals.
code=$(post arbiter.v1.RulesValidation/NoSuchMethod "$platform" '{}')
[ "$code" = 404 ] && grep -q '"reason":"ERR_NO_SUCH_METHOD"' "$out" || fail "unknown method: HTTP $code"
code=$(curl -sS -o "$out" -w '%{http_code}' "$base/arbiter.v1.RulesValidation/ValidateMove")
[ "$code" = 405 ] || fail "GET: HTTP $code"
code=$(post arbiter.v1.RulesValidation/ValidateMove "$platform" '{"position": ')
[ "$code" = 400 ] && grep -q '"reason":"ERR_BAD_REQUEST_JSON"' "$out" || fail "bad JSON: HTTP $code"
code=$(post arbiter.v1.RulesValidation/ValidateMove "$platform" '{"nosuchfield": 1}')
[ "$code" = 400 ] || fail "unknown field: HTTP $code"
big=$(head -c 70000 /dev/zero | tr '\0' ' ')
code=$(post arbiter.v1.RulesValidation/ValidateMove "$platform" "{$big}")
[ "$code" = 413 ] && grep -q '"reason":"ERR_TOO_LARGE"' "$out" || fail "too large: HTTP $code"
code=$(printf 'POST /v1/arbiter.v1.RulesValidation/ValidateMove HTTP/1.1\r\nHost: x\r\n\r\n' |
  python3 -c "
import socket, sys
s = socket.create_connection(('127.0.0.1', $http)); s.sendall(sys.stdin.buffer.read())
print(s.recv(100).split()[1].decode())")
[ "$code" = 411 ] || fail "no Content-Length: HTTP $code"

# The calls are the gRPC server's, counted by method and code.
python3 - "$mport" <<'PY' || fail "metrics"
import sys, urllib.request
body = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode()
for want in ['code="OK",method="ValidateMove"', 'code="INVALID_ARGUMENT",method="ValidateMove"',
             'code="ABORTED",method="SubmitMove"']:
    assert any(want in l for l in body.splitlines() if l.startswith("arbiter_grpc_requests_total")), want
PY

# Without authentication the gateway, like the gRPC port, serves loopback only.
set +e
"$server_bin" --services=rules_validation --insecure_dev --grpc_address=127.0.0.1:0 \
  --http_address=0.0.0.0:0 --metrics_address=none > "$out" 2>&1
rc=$?
set -e
[ $rc = 2 ] && grep -q "ERR_BAD_FLAG" "$out" || fail "--insecure_dev with a public --http_address: rc $rc"

kill -TERM $pid
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
kill -0 $pid 2>/dev/null && fail "server still running after SIGTERM"
echo "HTTP/JSON gateway with curl: ok"
