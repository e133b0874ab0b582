#!/usr/bin/env bash
# What a world-wide aggregated subscription costs (issue 19): DEVICES simulated devices
# moving over the whole world (stream-client simulate, RATE reports per device per second),
# and one subscriber, received by the native `gen` of the limit kit, in one of three modes:
#   devices  a plain device subscription (one device): the reference for server CPU
#   cells    the whole world aggregated, cell_deg CELL_DEG, min_interval_ms 1000 (default)
#   area     the whole world as a plain area (--max-area-km2 raised): the reference for bytes
# One server and one simulator run through every mode, in the order devices, cells, area,
# area, cells, devices (ABCCBA), RUNS times. Each window: server CPU (utime+stime) per
# publication (publications from locstream_publish_total over the window) and bytes per
# second to the subscriber. Appends JSON lines to deploy/loadtest/results/cells.jsonl and
# writes the table to deploy/loadtest/results/cells.md.
#
#   deploy/loadtest/cells-figures.sh          # about 6 minutes with RUNS=2
#   BIN_DIR=/tmp/rel/release RUNS=3 deploy/loadtest/cells-figures.sh
#
# Only 127.0.0.1 is targeted; every process runs under `timeout` and is stopped at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/cells-figures-build}"
runs=${RUNS:-2}
devices=${DEVICES:-100000}
rate=${RATE:-0.2}
cell_deg=${CELL_DEG:-10}
duration=${DURATION:-15}
work=${WORK:-/tmp/locstream-cells}
out="$here/results/cells.jsonl"
: >"$out"

rm -rf "$work" && mkdir -p "$work" && cp "$here"/limit/* "$work"/
make -s -C "$work" gen >&2
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
timeout 3600 "$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --max-area-km2 600000000 \
  --publish-rate 10000000 --publish-burst 10000000 --log-level warning &
server_timeout=$!
trap 'kill "$server_timeout" "${simulator:-}" 2>/dev/null || true' EXIT
wait_ready "$port"
server=$(pgrep -P "$server_timeout" -n)  # the server itself, not its `timeout`
timeout 3600 "$BIN_DIR/stream-client" simulate "ws://127.0.0.1:$port/v1/stream" --devices "$devices" \
  --rate "$rate" --area -180,-80,180,80 --seed 19 >"$work/simulate.log" 2>&1 &
simulator=$!
sleep "${WARMUP:-20}"

published() {
  curl -fs "http://127.0.0.1:$port/metrics" | awk '$1 == "locstream_publish_total" { print $2 }'
}

# measure MODE FRAME: one gen window for the subscribe FRAME, appended to $out.
measure() {
  local before after started ended line
  before=$(published)
  started=$(date +%s.%N)
  line=$(timeout 300 "$work/gen" -p "$port" -P /v1/stream -S 1 -D 1 --sub "$2" --pid "$server" -w 3 \
    -d "$duration" --label "$1" -q)
  ended=$(date +%s.%N)
  after=$(published)
  python3 - "$line" "$before" "$after" "$started" "$ended" "$devices" "$rate" "$cell_deg" >>"$out" <<'PY'
import json, sys
row = json.loads(sys.argv[1])
before, after, started, ended = map(float, sys.argv[2:6])
row["publications_per_s"] = (after - before) / (ended - started)
row["server_us_per_publication"] = row["server_cpu_pct"] * 1e4 / row["publications_per_s"]
row.update(devices=int(sys.argv[6]), rate=float(sys.argv[7]), cell_deg=float(sys.argv[8]))
print(json.dumps(row))
PY
}

world='{"bbox":[-180,-90,180,90]}'
for _ in $(seq "$runs"); do
  for mode in devices cells area area cells devices; do
    case $mode in
      devices) measure devices '{"op":"subscribe","sub":"d","devices":["sim-1"]}' ;;
      cells) measure cells "{\"op\":\"subscribe\",\"sub\":\"c\",\"area\":$world,\"aggregate\":{\"cell_deg\":$cell_deg}}" ;;
      area) measure area "{\"op\":\"subscribe\",\"sub\":\"a\",\"area\":$world}" ;;
    esac
  done
done
python3 "$here/cells_table.py" "$out" >"$here/results/cells.md"
cat "$here/results/cells.md"
