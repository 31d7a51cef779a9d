# The shell tests' HTTP/JSON client, sourced: arbiterd started with --http_address on free loopback
# ports, test tokens, POST /v1/{package.Service}/{Method} with curl. Expects $root (the runfiles'
# workspace) to be set.
server_bin="$root/services/arbiterd/arbiterd"
keys="$root/libs/service/testdata/keys.json"
log=$(mktemp)
out=$(mktemp)
pid=""

fail() { echo "FAIL: $*" >&2; echo "--- last body:" >&2; cat "$out" >&2; echo "--- server log:" >&2; tail -20 "$log" >&2; exit 1; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# arbiterd with every service, the test keys and its ports on loopback; extra flags after these
# override them. Sets pid, http (the HTTP port), mport (the metrics port) and base (the URL of /v1).
start_arbiterd() {
  : > "$log"
  "$server_bin" --services=all --store=memory --auth_keys="$keys" --grpc_address=127.0.0.1:0 \
    --http_address=127.0.0.1:0 --metrics_address=127.0.0.1:0 --shutdown_grace=100ms "$@" 2> "$log" &
  pid=$!
  for _ in $(seq 200); do grep -q '"msg":"serving"' "$log" && break; sleep 0.05; done
  http=$(grep -o '"http_port":"[0-9]*"' "$log" | grep -o '[0-9]*' || true)
  mport=$(grep -o '"metrics_port":"[0-9]*"' "$log" | grep -o '[0-9]*' || true)
  [ -n "$http" ] && [ "$http" != 0 ] || fail "no http_port in the serving line"
  base="http://127.0.0.1:$http/v1"
}
stop_arbiterd() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -f "$log" "$out"; }

# HS256 tokens signed with the test key (libs/service/testdata/mint_token.py).
token() {  # role subject [extra JSON claims]
  python3 "$root/libs/service/testdata/mint_token.py" "$keys" "$1" "$2" "${3:-}" 300
}

post() {  # path token body [curl options...]: prints the HTTP status, the body in $out
  local path=$1 tok=$2 body=$3
  shift 3
  curl -sS -o "$out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    ${tok:+-H "Authorization: Bearer $tok"} --data-binary "$body" "$@" "$base/$path"
}

json_field() {  # key...: prints the field of the last body at that path
  python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: v = v[k]
print(v)' "$out" "$@"
}
