#!/usr/bin/env bash
# poll against libev (issue 3): the same loads on `--event-loop poll` and
# `--event-loop libev`, back to back in ABBA order, the server pinned to core 0 and
# `stream-client bench` to core 1. Writes deploy/loadtest/results/event-loop.md and
# event-loop.jsonl (the raw bench reports).
#
#   deploy/loadtest/event-loop-bench.sh          # about 4 minutes
#   DURATION=30 deploy/loadtest/event-loop-bench.sh
#
# Loads: fanout, 5,000 subscribers over 100 devices at 400 publications/s (20,000
# frames/s); churn, 2,000 subscribers each switching every second over the same devices.
# BIN_DIR=DIR uses binaries in DIR instead of a release build in $SCRATCH. Only
# 127.0.0.1 is targeted; every run is bounded by --duration and --time-limit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/event-loop-build}"
duration=${DURATION:-15}
out="$here/results/event-loop.jsonl"
: >"$out"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

run() { # loop label bench-options...
  local loop=$1 label=$2 port=18401
  shift 2
  taskset -c 0 "$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --event-loop "$loop" \
    --max-connections 20000 --max-connections-per-ip 20000 --publish-rate 10000000 --publish-burst 10000000 \
    --log-level warning 2>/dev/null &
  local server=$!
  wait_ready "$port"
  echo "== $label on $loop (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  timeout 180 taskset -c 1 "$BIN_DIR/stream-client" bench "ws://127.0.0.1:$port/v1/stream" --server-pid "$server" \
    --clients 2 --duration "$duration" --time-limit 150 --label "$label/$loop" --out "$out" "$@" >/dev/null 2>&1 || true
  kill "$server"
  wait "$server" 2>/dev/null || true
}

fanout=(--scenario fanout --subscribers 5000 --devices 100 --rate 400)
churn=(--scenario churn --subscribers 2000 --devices 100 --rate 400 --switch-ms 1000)
for loop in poll libev libev poll; do run "$loop" fanout "${fanout[@]}"; done
for loop in libev poll poll libev; do run "$loop" churn "${churn[@]}"; done

python3 - "$out" "$duration" >"$here/results/event-loop.md" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"""# Event loops: lws's poll() against libev (epoll)

`deploy/loadtest/event-loop-bench.sh`: release build, server on core 0 (`taskset -c 0`), bench on
core 1 with two lws client threads, {sys.argv[2]} s per run, back to back in ABBA order, on a shared
2-core VM. µs/frame is server CPU time per delivered frame.

| run | loop | frames/s | server CPU % | µs/frame | p50 ms | p99 ms | switch-ack p50 / p99 ms | missing | stale |
|---|---|---|---|---|---|---|---|---|---|""")
for r in rows:
    label, loop = r["label"].split("/")
    fps = r["delivered_fps"] or 0
    cpu = r["server_cpu_percent"] or 0
    per_frame = f"{cpu * 10000 / fps:.1f}" if fps else "n/a"
    ack = r.get("switch_ack_ms") or {}
    acks = f"{ack.get('p50', '')} / {ack.get('p99', '')}" if ack else ""
    lat = r["latency_ms"] or {}
    print(f"| {label} | {loop} | {fps:,.0f} | {cpu:.1f} | {per_frame} | {lat.get('p50')} | {lat.get('p99')} | {acks} | {r['missing']} | {r['stale_after_ack']} |")
PY
echo "wrote $here/results/event-loop.md" >&2
