#!/usr/bin/env bash
# Switching under load, the switch-ack figures: 2,000 subscribers over 100 devices, each
# switching sub every second (2,000 switches/s), while RATE publications/s (default 1,000:
# 20,000 frames/s) fan out. The server is pinned to core 0, the bench (`stream-client bench
# --scenario churn`) to core 1. With BASE_BIN_DIR, that build's server runs too, in ABBA
# order (RUNS=4: A B B A A B B A), received by the same bench (BIN_DIR's), so the two
# differ only in the server. After each run the server's own part of a switch, from the
# subscribe taken up to its ack queued, is read from its /metrics
# (`locstream_subscribe_to_ack_seconds`; a build without it shows "-"). Writes
# deploy/loadtest/results/churn-figures.md and churn-figures.jsonl.
#
#   deploy/loadtest/churn-figures.sh                                   # about 4 minutes
#   BASE_BIN_DIR=/tmp/old/release deploy/loadtest/churn-figures.sh     # about 8 minutes
#
# BIN_DIR=DIR uses binaries in DIR instead of a release build in $SCRATCH. Only
# 127.0.0.1 is targeted; every run is bounded by --duration, --time-limit and a timeout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/churn-figures-build}"
runs=${RUNS:-4}
duration=${DURATION:-10}
rate=${RATE:-1000}
port=${PORT:-18411}
out="$here/results/churn-figures.jsonl"
metrics="$here/results/churn-figures-server.jsonl"
: >"$out"
: >"$metrics"

# run LABEL SERVER_DIR: one churn run against SERVER_DIR's stream-server, appended to $out;
# the server's subscribe_to_ack histogram appended to $metrics.
run() {
  taskset -c 0 "$2/stream-server" --host 127.0.0.1 --port "$port" --event-loop libev --store memory \
    "${store_server_flags[@]}" &
  local server=$!
  wait_ready "$port"
  taskset -c 1 timeout 300 "$BIN_DIR/stream-client" bench "ws://127.0.0.1:$port/v1/stream" --server-pid "$server" \
    --event-loop libev --duration "$duration" --time-limit 200 --label "$1" --out "$out" --scenario churn \
    --subscribers 2000 --devices 100 --rate "$rate" --switch-ms 1000 >&2
  curl -fs "http://127.0.0.1:$port/metrics" |
    python3 "$here/churn_table.py" --scrape "$1" >>"$metrics"
  kill "$server"
  wait "$server" || true
}

for i in $(seq "$runs"); do
  if [[ -z "${BASE_BIN_DIR:-}" ]]; then
    run locstream "$BIN_DIR"
  elif (( i % 4 == 1 || i % 4 == 0 )); then
    run base "$BASE_BIN_DIR"
    run locstream "$BIN_DIR"
  else
    run locstream "$BIN_DIR"
    run base "$BASE_BIN_DIR"
  fi
done
python3 "$here/churn_table.py" "$out" "$metrics" >"$here/results/churn-figures.md"
cat "$here/results/churn-figures.md"
