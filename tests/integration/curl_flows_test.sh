#!/bin/bash
# A platform's flows over HTTP/JSON with curl alone, against a real redis-server: a round's games
# created and started, moves with a retry (replayed, applied once), a version conflict (409, its
# google.rpc.ErrorInfo in the JSON body), ListGames by event and status, the firehose's NDJSON
# while moves are made, and the list after a crash: arbiterd killed (SIGKILL) and started again on
# the same Redis lists every game with its status, and the game goes on.
set -euo pipefail
root="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-arbiter}"
source "$root/tests/integration/testing/http_json.sh"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
event="Curl Open"

# The test's redis-server, with the store's functions loaded as an administrator loads them.
command -v redis-server > /dev/null || fail "redis-server is not installed (tools/setup.sh installs it)"
rport=$(free_port)
redis-server --port "$rport" --bind 127.0.0.1 --save "" --dir "$tmp" > /dev/null 2>&1 &
redis_pid=$!
trap 'stop_arbiterd; kill -9 $redis_pid 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ "$(redis-cli -p "$rport" PING 2>/dev/null)" = PONG ] && break; sleep 0.05; done
redis-cli -p "$rport" -x FUNCTION LOAD REPLACE < "$root/libs/store/redis_functions.lua" |
  grep -q arbiter_v3 || fail "FUNCTION LOAD"

start_arbiterd --store="redis://127.0.0.1:$rport" --arbitration_sweep_interval=100ms
platform=$(token platform plat)
arbiter=$(token arbiter arb)

# The round: two games created and started.
for g in c1:ann:bob c2:cat:dan; do
  IFS=: read -r id white black <<< "$g"
  code=$(post arbiter.v1.Arbitration/CreateGame "$platform" "{\"gameId\": \"$id\", \"commandId\": \"create:$id\",
    \"whiteId\": \"$white\", \"blackId\": \"$black\", \"ruleset\": {\"edition\": \"EDITION_FIDE_2023\"},
    \"timeControl\": \"5400+30\", \"event\": \"$event\", \"round\": \"1\"}")
  [ "$code" = 200 ] || fail "CreateGame $id: HTTP $code"
  code=$(post arbiter.v1.Arbitration/StartGame "$arbiter" "{\"gameId\": \"$id\", \"commandId\": \"start:$id\"}")
  [ "$code" = 200 ] || fail "StartGame $id: HTTP $code"
done

# The firehose as NDJSON, read in the background while the moves are made; its first line (the
# position to resume from) says the stream stands.
watch=$tmp/watch.ndjson
curl -sS -N -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $platform" \
  --data-binary '{}' --max-time 30 "$base/arbiter.v1.Arbitration/WatchGames" > "$watch" 2>/dev/null &
watch_pid=$!
for _ in $(seq 200); do [ -s "$watch" ] && break; sleep 0.05; done
[ -s "$watch" ] || fail "WatchGames: no first line"

# Moves, the platform relaying them with command ids; one retried (the reply was lost).
move() {  # game command-id side move: prints the HTTP status
  post arbiter.v1.Arbitration/SubmitMove "$platform" \
    "{\"gameId\": \"$1\", \"commandId\": \"$2\", \"side\": \"$3\", \"move\": \"$4\"}"
}
[ "$(move c1 c1:1 COLOR_WHITE e4)" = 200 ] || fail "c1 e4"
grep -q '"replayed":true' "$out" && fail "c1 e4: replayed the first time"
[ "$(move c1 c1:1 COLOR_WHITE e4)" = 200 ] && grep -q '"replayed":true' "$out" || fail "c1 e4 retried: not replayed"
grep -q '"movesSan":\["e4"\]' "$out" || fail "c1 e4 retried: applied twice"
[ "$(move c2 c2:1 COLOR_WHITE d4)" = 200 ] || fail "c2 d4"
[ "$(move c1 c1:2 COLOR_BLACK c5)" = 200 ] || fail "c1 c5"
version=$(json_field game version)

# A version conflict: 409, the google.rpc.Status as the body with its ErrorInfo.
code=$(post arbiter.v1.Arbitration/SubmitMove "$platform" \
  "{\"gameId\": \"c1\", \"expectedVersion\": \"$((version - 1))\", \"side\": \"COLOR_WHITE\", \"move\": \"Nf3\"}")
[ "$code" = 409 ] || fail "version conflict: HTTP $code"
python3 - "$out" <<'PY' || fail "version conflict's body"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["code"] == 10, s  # ABORTED
info = [d for d in s["details"] if d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"]
assert len(info) == 1 and info[0]["reason"] == "ERR_VERSION_CONFLICT", s
assert info[0]["domain"] == "arbiter.v1", s
PY

# The firehose's lines: each a game's new events and a position; every move is there, once.
for _ in $(seq 100); do [ "$(grep -o '"san"' "$watch" | wc -l)" -ge 3 ] && break; sleep 0.1; done
sleep 0.2  # a move sent twice would show by now
kill $watch_pid 2>/dev/null || true
wait $watch_pid 2>/dev/null || true
python3 - "$watch" <<'PY' || fail "WatchGames NDJSON"
import json, sys
moves = {}
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert lines, "no line"
for line in lines:
    update = line["result"]
    assert update["position"], line
    for e in update.get("events", []):
        if "move" in e["event"]:
            moves.setdefault(update["gameId"], []).append(e["event"]["move"]["san"])
assert moves == {"c1": ["e4", "c5"], "c2": ["d4"]}, moves
PY

listed() {  # query JSON: prints "game status" per game, in the order of the ids
  code=$(post arbiter.v1.Arbitration/ListGames "$platform" "$1")
  [ "$code" = 200 ] || fail "ListGames $1: HTTP $code"
  python3 -c 'import json, sys
for g in json.load(open(sys.argv[1])).get("games", []): print(g["gameId"], g["status"])' "$out"
}
want=$'c1 LISTED_STATUS_ONGOING\nc2 LISTED_STATUS_ONGOING'
[ "$(listed "{\"event\": \"$event\"}")" = "$want" ] || fail "ListGames by event"
[ "$(listed "{\"event\": \"$event\", \"status\": \"LISTED_STATUS_ONGOING\", \"playerId\": \"dan\"}")" = \
  "c2 LISTED_STATUS_ONGOING" ] || fail "ListGames by event, status and player"
[ -z "$(listed "{\"event\": \"$event\", \"status\": \"LISTED_STATUS_ENDED\"}")" ] || fail "ListGames: ended"
# c2 ends: White resigns (5.1b).
code=$(post arbiter.v1.Arbitration/Resign "$platform" '{"gameId": "c2", "side": "COLOR_WHITE"}')
[ "$code" = 200 ] || fail "Resign: HTTP $code"

# A crash, and the same Redis: the list is the store's, the games go on.
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
start_arbiterd --store="redis://127.0.0.1:$rport" --arbitration_sweep_interval=100ms
want=$'c1 LISTED_STATUS_ONGOING\nc2 LISTED_STATUS_ENDED'
[ "$(listed "{\"event\": \"$event\"}")" = "$want" ] || fail "ListGames after the restart"
[ "$(move c1 c1:3 COLOR_WHITE Nf3)" = 200 ] || fail "c1 Nf3 after the restart"
grep -q '"movesSan":\["e4","c5","Nf3"\]' "$out" || fail "c1 does not go on"
[ "$(move c1 c1:1 COLOR_WHITE e4)" = 200 ] && grep -q '"replayed":true' "$out" ||
  fail "a move from before the restart, retried: not replayed"
echo "curl flows over HTTP/JSON: ok"
