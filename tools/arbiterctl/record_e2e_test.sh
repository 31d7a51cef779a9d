#!/bin/bash
# Signed records end to end: arbiterd signs with a key `arbiterctl record keygen` made, a game is
# played to its end through the arbitration service (real gRPC), its signed record is fetched
# and `arbiterctl record verify` (a process of its own, offline) accepts it and refuses every
# tampered copy with exit 1 and the reason. Then the key is rotated: a server signing with the
# new key publishes the old one too, and the first server's record still verifies.
set -euo pipefail
dir="$(dirname "$0")"
ctl="$dir/arbiterctl"
server_bin="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-arbiter}/services/arbiterd/arbiterd"
[ -x "$server_bin" ] || server_bin="services/arbiterd/arbiterd"
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/record.XXXXXX")
log="$work/server.log"
pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$log" >&2 2>/dev/null || true; exit 1; }

# start_server KEY [PUBLIC_KEYS]: arbiterd with every service, signing with KEY.
start_server() {
  local extra=()
  [ $# -ge 2 ] && extra+=("--record_public_keys=$2")
  : > "$log"
  "$server_bin" --services=all --insecure_dev --grpc_address=127.0.0.1:0 \
    --metrics_address=127.0.0.1:0 --shutdown_grace=200ms --record_signing_key="$1" \
    "${extra[@]}" 2> "$log" &
  pid=$!
  for _ in $(seq 200); do grep -q '"msg":"serving"' "$log" && break; sleep 0.05; done
  port=$(grep -o '"grpc_port":"[0-9]*"' "$log" | grep -o '[0-9]*')
  [ -n "$port" ] || fail "server did not start"
  A=("$ctl" --server=127.0.0.1:$port)
}
stop_server() {
  kill -TERM $pid
  for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
  pid=""
}

# play GAME: the fool's mate, 2. ... Qh4# (5.1a: 0-1), and both players confirm (8.7).
play() {
  local G=(game --game "$1")
  "${A[@]}" "${G[@]}" create --white alice --black bob --edition fide2023 --time-control "G/5" \
    --event "Records" > /dev/null
  "${A[@]}" "${G[@]}" start > /dev/null
  for m in "white f3" "black e5" "white g4" "black Qh4"; do
    set -- $m
    "${A[@]}" "${G[@]}" move --side "$1" --move "$2" > /dev/null
  done
  "${A[@]}" "${G[@]}" confirm --side white > /dev/null
  "${A[@]}" "${G[@]}" confirm --side black > /dev/null
}

# expect_refused FILE KEYFLAG KEYFILE CODE: verify exits 1 naming CODE.
expect_refused() {
  set +e
  "$ctl" record verify --record "$1" "$2" "$3" > "$work/out" 2> "$work/err"
  local rc=$?
  set -e
  [ $rc = 1 ] || fail "$1: exit $rc, not 1: $(cat "$work/out" "$work/err")"
  grep -q "$4" "$work/err" || fail "$1: not $4: $(cat "$work/err")"
}

"$ctl" record keygen --private-key "$work/old.key" --public-key "$work/old.pub" > /dev/null 2>&1
"$ctl" record keygen --private-key "$work/new.key" > "$work/new.pub" 2> /dev/null

# --- Signed with the old key ---------------------------------------------------------------------
start_server "$work/old.key"
play g-old
"${A[@]}" record get --game g-old > "$work/old.rec"
grep -q "^1\. f3" "$work/old.rec" || fail "the record holds no PGN: $(cat "$work/old.rec")"
grep -q "^result: 0-1$" "$work/old.rec" || fail "result"
"$ctl" record verify --record "$work/old.rec" --public-key "$work/old.pub" | grep -q \
  "verified: game g-old at version [0-9]*, result 0-1" || fail "the old record does not verify"
stop_server

# --- An outside verifier, OpenSSL alone, as docs/RECORDS.md describes -----------------------------
sed '/^-----BEGIN ARBITER SIGNED RECORD-----$/,$d' "$work/old.rec" > "$work/o.pgn"
sed -n '/^-----BEGIN ARBITER SIGNED RECORD-----$/,$p' "$work/old.rec" > "$work/o.block"
[ "$(sha256sum < "$work/o.pgn" | cut -d' ' -f1)" = "$(sed -n 's/^pgn-sha256: //p' "$work/o.block")" ] \
  || fail "the PGN's SHA-256 is not the block's"
sed -n '2,9p' "$work/o.block" > "$work/o.message"
sed -n 's/^signature: //p' "$work/o.block" | base64 -d > "$work/o.sig"
openssl pkeyutl -verify -pubin -inkey "$work/old.pub" -rawin -in "$work/o.message" \
  -sigfile "$work/o.sig" > /dev/null || fail "OpenSSL does not verify the signature"

# --- Tampered copies: each refused, with the part that changed -----------------------------------
sed 's/Qh4#/Qh5#/' "$work/old.rec" > "$work/moved.rec"
expect_refused "$work/moved.rec" --public-key "$work/old.pub" ERR_RECORD_DIGEST_MISMATCH
sed 's/^\[White "alice"\]/[White "alicf"]/' "$work/old.rec" > "$work/name.rec"
cmp -s "$work/old.rec" "$work/name.rec" && fail "the White tag was not found"
expect_refused "$work/name.rec" --public-key "$work/old.pub" ERR_RECORD_DIGEST_MISMATCH
sed 's/^result: 0-1$/result: 1-0/' "$work/old.rec" > "$work/result.rec"
expect_refused "$work/result.rec" --public-key "$work/old.pub" ERR_RECORD_SIGNATURE_INVALID
sed 's/^version: \([0-9]*\)$/version: 1\1/' "$work/old.rec" > "$work/version.rec"
expect_refused "$work/version.rec" --public-key "$work/old.pub" ERR_RECORD_SIGNATURE_INVALID
# One byte of the signature itself.
python3 - "$work/old.rec" "$work/sig.rec" <<'PY'
import sys
text = open(sys.argv[1], "rb").read()
at = text.index(b"signature: ") + len(b"signature: ") + 10
flipped = b"B" if text[at:at + 1] != b"B" else b"C"
open(sys.argv[2], "wb").write(text[:at] + flipped + text[at + 1:])
PY
expect_refused "$work/sig.rec" --public-key "$work/old.pub" ERR_RECORD_SIGNATURE_INVALID
# Another key's public half: not the signer.
expect_refused "$work/old.rec" --public-key "$work/new.pub" ERR_RECORD_KEY_UNKNOWN
# Every single byte, changed one at a time (a sample of positions across the whole file).
python3 - "$work/old.rec" "$work/byte" <<'PY'
import sys
text = open(sys.argv[1], "rb").read()
step = max(1, len(text) // 40)
for n, at in enumerate(list(range(0, len(text), step)) + [len(text) - 1]):
    changed = text[:at] + bytes([text[at] ^ 0x01]) + text[at + 1:]
    open(f"{sys.argv[2]}.{n}.rec", "wb").write(changed)
PY
for f in "$work"/byte.*.rec; do
  expect_refused "$f" --public-key "$work/old.pub" ERR_RECORD_
done

# --- Rotated: signing with the new key, publishing the old one too -------------------------------
start_server "$work/new.key" "$work/old.pub"
"${A[@]}" record keys > "$work/published.pem"
[ "$(grep -c 'BEGIN PUBLIC KEY' "$work/published.pem")" = 2 ] || fail "keys: $(cat "$work/published.pem")"
grep -q "(signing)" "$work/published.pem" || fail "no signing key named"
play g-new
"${A[@]}" record get --game g-new > "$work/new.rec"
"$ctl" record verify --record "$work/new.rec" --keys "$work/published.pem" > /dev/null \
  || fail "the new record does not verify with the published keys"
"$ctl" record verify --record "$work/old.rec" --keys "$work/published.pem" > /dev/null \
  || fail "the record signed before the rotation does not verify with the published keys"
expect_refused "$work/new.rec" --public-key "$work/old.pub" ERR_RECORD_KEY_UNKNOWN
# --json for tools.
"$ctl" record verify --record "$work/new.rec" --keys "$work/published.pem" --json \
  | grep -q '"verified":true,"game_id":"g-new"' || fail "verify --json"

# --- Archived: the tombstone keeps the signature; with the PGN the platform kept, it verifies ----
"${A[@]}" game --game g-new archive --json > "$work/archive.json"
python3 - "$work/archive.json" "$work/archive.rec" <<'PY' || fail "archive --json: $(cat "$work/archive.json")"
import json, sys
reply = json.load(open(sys.argv[1]))
open(sys.argv[2], "w").write(reply["signed_record"])
PY
"$ctl" record verify --record "$work/archive.rec" --keys "$work/published.pem" > /dev/null \
  || fail "the signed record ArchiveGame answered does not verify"
"${A[@]}" record get --game g-new > "$work/block" 2> "$work/get.err"
grep -q "archived" "$work/get.err" || fail "an archived game's answer: $(cat "$work/get.err")"
grep -q "^-----BEGIN ARBITER SIGNED RECORD-----$" "$work/block" || fail "block: $(cat "$work/block")"
sed '/^-----BEGIN ARBITER SIGNED RECORD-----$/,$d' "$work/new.rec" > "$work/kept.pgn"
cat "$work/kept.pgn" "$work/block" > "$work/archived.rec"
"$ctl" record verify --record "$work/archived.rec" --keys "$work/published.pem" > /dev/null \
  || fail "the archived game's signature does not verify with the PGN the platform kept"
stop_server
echo "signed records end to end: ok"
