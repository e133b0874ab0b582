#!/usr/bin/env bash
# Location-stream figures for one node (fan-out, switching, saturation, on libev and on
# poll), with Mosquitto (MQTT over WebSocket) measured in the same run as the peer. The server (or the broker) is pinned to core 0 and
# the generator to core 1. Writes deploy/loadtest/results/stream.md and stream.jsonl (the
# raw reports, one JSON object per run, bench field names).
#
#   deploy/loadtest/stream-figures.sh            # about 6 minutes
#   DURATION=20 deploy/loadtest/stream-figures.sh
#
# Runs, each --duration seconds (10 by default):
#   fanout-20k   5,000 subscribers over 100 devices, 400 publications/s (20,000 frames/s):
#                locstream on libev and on poll in ABBA order, then Mosquitto.
#   churn        2,000 of those subscribers each switching sub every second
#                (2,000 switches/s), libev and poll: the switch-ack latency.
#   saturation   the fanout shape offered 50k, 100k, 200k and 400k frames/s (libev; 400k
#                on poll too), and Mosquitto at 50k, the most its Python generator drives.
#                "saturated" in each report says which process ran out of CPU.
# The bench talks to the server through libev too (`stream-client bench --event-loop`);
# lws's poll() on the bench side adds milliseconds of its own at 5,000 sockets.
#
# BIN_DIR=DIR uses binaries in DIR instead of a release build in $SCRATCH. Only
# 127.0.0.1 is targeted; every run is bounded by --duration and --time-limit and a timeout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/stream-figures-build}"
duration=${DURATION:-10}
out="$here/results/stream.jsonl"
: >"$out"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
command -v mosquitto >/dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null
}
venv="$here/.venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q paho-mqtt
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

locstream() { # loop label bench-options...
  local loop=$1 label=$2 port=18401
  shift 2
  taskset -c 0 "$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --event-loop "$loop" \
    --max-connections 20000 --max-connections-per-ip 20000 --publish-rate 10000000 --publish-burst 10000000 \
    --log-level warning 2>/dev/null &
  local server=$!
  wait_ready "$port"
  echo "== $label on $loop (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  timeout 180 taskset -c 1 "$BIN_DIR/stream-client" bench "ws://127.0.0.1:$port/v1/stream" --server-pid "$server" \
    --clients 2 --event-loop libev --duration "$duration" --time-limit 150 --label "$label/$loop" --out "$out" \
    "$@" >/dev/null 2>&1 || echo "bench $label on $loop failed" >&2
  kill "$server"
  wait "$server" 2>/dev/null || true
}

mosquitto_run() { # label mqtt_fanout-options...
  local label=$1 mqtt_port=18402 ws_port=18403
  shift
  mosquitto_conf "$mqtt_port" "$ws_port" >"$work/mosquitto.conf"
  taskset -c 0 mosquitto -c "$work/mosquitto.conf" 2>"$work/mosquitto.log" &
  local broker=$!
  for _ in $(seq 100); do
    ss -ltn | grep -q ":$ws_port " && break
    sleep 0.1
  done
  echo "== $label on mosquitto (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  timeout 300 taskset -c 1 "$venv/bin/python" "$here/mqtt_fanout.py" --port "$ws_port" --broker-pid "$broker" \
    --label "$label/mosquitto" --duration "$duration" --time-limit 240 "$@" >>"$out" 2>"$work/mqtt.txt" ||
    echo "mqtt_fanout $label failed: $(tail -n 3 "$work/mqtt.txt")" >&2
  kill "$broker"
  wait "$broker" 2>/dev/null || true
}

fanout=(--scenario fanout --subscribers 5000 --devices 100)
for loop in libev poll poll libev; do locstream "$loop" fanout-20k "${fanout[@]}" --rate 400; done
mosquitto_run fanout-20k --subscribers 5000 --devices 100 --rate 400
churn=(--scenario churn --subscribers 2000 --devices 100 --rate 400 --switch-ms 1000)
for loop in libev poll; do locstream "$loop" churn "${churn[@]}"; done
for rate in 1000 2000 4000 8000; do locstream libev "saturation-$((rate * 50 / 1000))k" "${fanout[@]}" --rate "$rate"; done
locstream poll saturation-400k "${fanout[@]}" --rate 8000
mosquitto_run saturation-50k --subscribers 5000 --devices 100 --rate 1000

python3 "$here/stream_table.py" "$out" "$duration" >"$here/results/stream.md"
echo "wrote $here/results/stream.md" >&2
