#!/usr/bin/env bash
# The compose.yaml topology on loopback, without containers: one redis-server, two
# stream-server nodes with --broker redis, and HAProxy (deploy/haproxy.cfg with
# loopback addresses) in front. For demos and load tests where Docker cannot run.
#
#   deploy/scale-out.sh                 # until Ctrl-C
#   deploy/scale-out.sh --for 60        # stops by itself after 60 s
#
# Ports (environment): FRONT_PORT (HAProxy, 8080), NODE1_PORT (8081), NODE2_PORT (8082),
# REDIS_PORT (6390), STATS_PORT (HAProxy stats, 8404). BIN_DIR=DIR uses the stream-server
# in DIR instead of building a release one in $SCRATCH (/tmp/scale-out-build). Logs go to
# a temporary directory, printed at start. Everything binds 127.0.0.1, and everything it
# started stops when it exits.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
duration=""
while [ $# -gt 0 ]; do
  case "$1" in
    --for) duration=${2:?--for needs seconds}; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scale-out.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
front=${FRONT_PORT:-8080} node1=${NODE1_PORT:-8081} node2=${NODE2_PORT:-8082}
redis_port=${REDIS_PORT:-6390} stats=${STATS_PORT:-8404}
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/loadtest/lib.sh"
release_binaries "${SCRATCH:-/tmp/scale-out-build}"
logs=$(mktemp -d /tmp/locstream-scale-out.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 0' INT TERM

redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$logs" \
  --logfile "$logs/redis.log" &
pids+=($!)
for _ in $(seq 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

for n in 1 2; do
  port_var="node$n"
  # Every client reaches a node from HAProxy's address; HAProxy limits per client.
  "$BIN_DIR/stream-server" --host 127.0.0.1 --port "${!port_var}" --node "node$n" \
    --broker redis --redis-url "redis://127.0.0.1:$redis_port/0" \
    --max-connections-per-ip 10000 2>"$logs/node$n.log" &
  pids+=($!)
done

sed -e "s/bind :8080\b/bind 127.0.0.1:$front/" -e "s/bind :8404\b/bind 127.0.0.1:$stats/" \
  -e "s/server node1 node1:8080/server node1 127.0.0.1:$node1/" \
  -e "s/server node2 node2:8080/server node2 127.0.0.1:$node2/" \
  -e "s/maxconn [0-9]*/maxconn 8000/" "$here/haproxy.cfg" >"$logs/haproxy.cfg"
haproxy -dW -db -f "$logs/haproxy.cfg" >"$logs/haproxy.log" 2>&1 &
pids+=($!)

for port in "$node1" "$node2"; do
  wait_ready "$port" || { echo "see the logs in $logs" >&2; exit 1; }
done
cat <<INFO
locstream on loopback: Redis, two nodes, HAProxy (logs in $logs)
  through HAProxy:  ws://127.0.0.1:$front/v1/stream   map: http://127.0.0.1:$front/
  node1:            ws://127.0.0.1:$node1/v1/stream   metrics: http://127.0.0.1:$node1/metrics
  node2:            ws://127.0.0.1:$node2/v1/stream   metrics: http://127.0.0.1:$node2/metrics
  redis:            redis-cli -p $redis_port           HAProxy stats: http://127.0.0.1:$stats/stats
INFO
if [ -n "$duration" ]; then
  sleep "$duration"
else
  echo "Ctrl-C stops everything." >&2
  wait "${pids[0]}"
fi
