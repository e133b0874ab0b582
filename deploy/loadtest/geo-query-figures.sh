#!/usr/bin/env bash
# Geo query latency at DEVICES (1,000,000) last known positions (issue 19), on the embedded
# broker and on Redis: geo_query_figures.py fills a fresh server, then times QUERIES bbox and
# near queries of each kind (geo_query_figures.py says which) in ABBA order. Writes JSON
# lines to deploy/loadtest/results/geo-query.jsonl and the table to geo-query.md.
#
#   deploy/loadtest/geo-query-figures.sh        # a few minutes; starts its own redis-server
#
# Only 127.0.0.1 is targeted; every process runs under `timeout` and is stopped at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/geo-query-figures-build}"
devices=${DEVICES:-1000000}
queries=${QUERIES:-2000}
out="$here/results/geo-query.jsonl"
work=$(mktemp -d)
: >"$out"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

# run LABEL [server options]: a fresh server, filled and queried.
run() {
  local label=$1 port
  shift
  port=$(free_port)
  timeout 1800 "$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --max-devices "$devices" \
    --publish-rate 10000000 --publish-burst 10000000 --max-message-bytes 1048576 --log-level warning "$@" &
  local server=$!
  pids+=("$server")
  wait_ready "$port"
  timeout 1800 python3 "$here/geo_query_figures.py" --port "$port" --devices "$devices" --queries "$queries" \
    --label "$label" | tee -a "$out"
  kill "$server"
  wait "$server" 2>/dev/null || true
}

run embedded --store memory
redis_port=$(free_port)
timeout 1800 redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" \
  --logfile "$work/redis.log" &
pids+=("$!")
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
run redis --broker redis --redis-url "redis://127.0.0.1:$redis_port" --history-size 1
python3 - "$out" >"$here/results/geo-query.md" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("# Geo query latency\n")
print(f"{rows[0]['devices']:,} last known positions spread over 40° × 25° (Europe); each kind timed in two")
print("halves (ABBA), one connection per request, client side (connect to last byte). Raw: `geo-query.jsonl`.\n")
print("| broker | query | queries | p50 ms | p90 ms | p99 ms | max ms | devices returned | truncated | fill s |")
print("|---|---|---|---|---|---|---|---|---|---|")
for row in rows:
    print(f"| {row['label']} | {row['kind']} | {row['queries']} | {row['p50_ms']} | {row['p90_ms']} | {row['p99_ms']} | "
          f"{row['max_ms']} | {row['devices_mean']} | {row['truncated']} | {row['fill_s']} |")
PY
cat "$here/results/geo-query.md"
