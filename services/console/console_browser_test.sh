#!/bin/bash
# The arbiter's console in a real browser: arbiterd with --console_address, two players playing
# through gRPC (arbiterctl with their tokens), and headless Chromium driven by puppeteer-core
# (tools/console-test/console_test.js): a player's token and another event's arbiter token are
# refused with their codes, the event's arbiter signs in, sees a 10.2 claim in the queue within a
# second, rejects it, the game and its PGN show the ruling, and the event's pause from the page
# stops every clock of the event. The queue's screenshot is kept in TEST_UNDECLARED_OUTPUTS_DIR.
#
# Needs Debian's chromium and tools/console-test/node_modules (tools/setup.sh installs both; node
# resolves the modules from the script's real path in the checkout, so the test is tagged local).
# Without the npm packages and without the setup having run, it says so and counts as skipped.
set -euo pipefail
root="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-arbiter}"
server_bin="$root/services/arbiterd/arbiterd"
ctl="$root/tools/arbiterctl/arbiterctl"
keys="$root/libs/service/testdata/keys.json"
script=$(readlink -f "$root/tools/console-test/console_test.js")
modules="$(dirname "$script")/node_modules"
log=$(mktemp)
fail() { echo "FAIL: $*" >&2; echo "--- server log:" >&2; tail -20 "$log" >&2; exit 1; }
skip() {
  echo "SKIPPED: console_browser_test: $*"
  if [ -n "${XML_OUTPUT_FILE:-}" ]; then
    cat > "$XML_OUTPUT_FILE" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="0" errors="0" skipped="1">
<testsuite name="console_browser_test" tests="1" failures="0" errors="0" skipped="1">
<testcase name="console_browser_test" classname="console_browser_test"><skipped message="$*"/></testcase>
</testsuite>
</testsuites>
XML
  fi
  exit 0
}
if [ ! -d "$modules/puppeteer-core" ]; then
  # npm ci ran (the folder is there) but left it out: a broken setup, not a skip.
  [ ! -d "$modules" ] || fail "$modules has no puppeteer-core: run tools/setup.sh again"
  skip "puppeteer-core is not installed in $(dirname "$script") (tools/setup.sh installs it)"
fi
command -v node > /dev/null || fail "node is not installed (tools/setup.sh installs nodejs)"
chromium=$(command -v chromium || true)
[ -n "$chromium" ] || fail "Debian's chromium is not installed (tools/setup.sh installs it)"

"$server_bin" --services=all --store=memory --auth_keys="$keys" --grpc_address=127.0.0.1:0 \
  --console_address=127.0.0.1:0 --metrics_address=127.0.0.1:0 --shutdown_grace=100ms 2> "$log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 200); do grep -q '"msg":"serving"' "$log" && break; sleep 0.05; done
grpc=$(grep -o '"grpc_port":"[0-9]*"' "$log" | grep -o '[0-9]*' || true)
console=$(grep -o '"console_port":"[0-9]*"' "$log" | grep -o '[0-9]*' || true)
[ -n "$grpc" ] && [ -n "$console" ] && [ "$console" != 0 ] || fail "no ports in the serving line"

# HS256 tokens signed with the test key (libs/service/testdata/mint_token.py).
token() {  # role subject [extra JSON claims]
  python3 "$root/libs/service/testdata/mint_token.py" "$keys" "$1" "$2" "${3:-}" 600
}
event=open-2026
platform=$(token platform plat)
arbiter=$(token arbiter arb "{\"event\": \"$event\"}")
other=$(token arbiter arb2 '{"event": "other-2026"}')
alice=$(token player alice "{\"event\": \"$event\"}")  # a person's token for the event
bob=$(token player bob "{\"event\": \"$event\"}")
carol=$(token player carol "{\"event\": \"$event\"}")
dave=$(token player dave "{\"event\": \"$event\"}")
as() { local tok=$1; shift; "$ctl" --server="127.0.0.1:$grpc" --token="$tok" "$@" > /dev/null || fail "arbiterctl $*"; }

# Two games of the event (2023, 90 minutes without increment: Guidelines III applies), and one of
# another event that the event's arbiter never sees.
create() {  # game white black event
  as "$platform" game create --game "$1" --white "$2" --black "$3" --edition fide2023 \
    --time-control 5400 --event "$4" --round 1
  as "$platform" game start --game "$1"
}
create c1 alice bob "$event"
create c2 carol dave "$event"
create x1 erin frank other-2026
# The players play through gRPC, each with his own token.
for m in "alice white e4" "bob black e5" "alice white Nf3" "bob black Nc6"; do
  set -- $m
  tok=${!1}
  as "$tok" game move --game c1 --side "$2" --move "$3"
done
as "$carol" game move --game c2 --side white --move d4
# 6.14: the arbiter's clock setting puts c1 into its last two minutes (III.4: a claim is possible).
as "$arbiter" game set-clocks --game c1 --white-ms 100000 --black-ms 100000 --reason "a quickplay finish"

export CONSOLE_URL="http://127.0.0.1:$console/"
export EVENT="$event" ARBITER_TOKEN="$arbiter" OTHER_TOKEN="$other" PLAYER_TOKEN="$alice"
export CLAIM_GAME=c1 GAMES=c1,c2 CHROMIUM="$chromium"
export CLAIM_COMMAND="[\"$ctl\", \"--server=127.0.0.1:$grpc\", \"--token=$alice\", \"game\", \"claim\", \"--game\", \"c1\", \"--side\", \"white\", \"--kind\", \"quickplay\"]"
export ARBITERCTL="[\"$ctl\", \"--server=127.0.0.1:$grpc\", \"--token=$arbiter\"]"
out_dir="${TEST_UNDECLARED_OUTPUTS_DIR:-$(mktemp -d)}"
export SCREENSHOT="$out_dir/console_queue.png"
timeout 90 node "$script" || fail "the browser's checks"
[ -s "$SCREENSHOT" ] || fail "no screenshot at $SCREENSHOT"
echo "PASS (the queue's screenshot: $SCREENSHOT)"
