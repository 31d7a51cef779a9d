#!/usr/bin/env bash
# A local Redis Cluster for arbiterd: three masters and three replicas on loopback, with the
# store's settings (libs/store/redis.conf) and function library (libs/store/redis_functions.lua,
# loaded on every master), formed as `redis-cli --cluster create --cluster-replicas 1` forms one.
# Prints the --store URL to give arbiterd:
#
#   arbiterd --services=all --insecure_dev --store="$(tools/local_cluster.sh)"
#   tools/local_cluster.sh stop
#
# PORT (7000: nodes on PORT..PORT+5) and DIR (/tmp/arbiter-cluster: each node's data and log)
# choose where; no authentication (a development cluster on loopback: the deployment's ACL is in
# k8s/components/redis-cluster). Starting again reuses a running cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-7000}"
DIR="${DIR:-/tmp/arbiter-cluster}"
NODES=6
ports=()
for ((i = 0; i < NODES; i++)); do ports+=($((PORT + i))); done

if [[ "${1:-start}" == "stop" ]]; then
  for p in "${ports[@]}"; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
  exit 0
fi

url="redis+cluster://$(printf '127.0.0.1:%s,' "${ports[@]}" | sed 's/,$//')"
if redis-cli -p "$PORT" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; then
  echo "$url"
  exit 0
fi

# A cluster node also listens on its bus port, 10000 above its own: redis-server refuses a port
# above 55535, and both must be free (something else there would make the cluster never form).
if ((PORT < 1 || PORT + NODES - 1 > 55535)); then
  echo "local_cluster.sh: PORT=$PORT: the nodes' ports must lie in 1..55535 (bus port = port + 10000)" >&2
  exit 1
fi
for p in "${ports[@]}"; do
  for q in "$p" $((p + 10000)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$q") 2>/dev/null; then
      echo "local_cluster.sh: 127.0.0.1:$q is taken (a node needs its port and port + 10000); choose PORT=" >&2
      exit 1
    fi
  done
done
for p in "${ports[@]}"; do
  mkdir -p "$DIR/$p"
  redis-server libs/store/redis.conf --port "$p" --bind 127.0.0.1 --dir "$DIR/$p" \
    --logfile "$DIR/$p/redis.log" --daemonize yes --cluster-enabled yes \
    --cluster-config-file nodes.conf --cluster-node-timeout 2000
done
for p in "${ports[@]}"; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
done
redis-cli --cluster create $(printf '127.0.0.1:%s ' "${ports[@]}") --cluster-replicas 1 \
  --cluster-yes >"$DIR/create.log"
for _ in $(seq 100); do
  redis-cli -p "$PORT" cluster info | grep -q '^cluster_state:ok' && break
  sleep 0.1
done
# FUNCTION LOAD runs per node: every master gets the library (its replicas by replication).
for p in "${ports[@]}"; do
  if redis-cli -p "$p" role | head -1 | grep -q master; then
    redis-cli -p "$p" -x function load replace <libs/store/redis_functions.lua >/dev/null
  fi
done
echo "$url"
