#!/usr/bin/env bash
# The map page before and after it moved to locstream.js and Leaflet: the renderer's CPU and
# the frames the page receives, with DEVICES simulated devices in view at each of RATES
# updates per second per device. Runs page_figures.py against a fresh server per run, in
# ABBA order (before, after, after, before), and appends one JSON object per rate and run to
# deploy/loadtest/results/page-js-quiet.jsonl.
#
#   BEFORE_BIN_DIR=/tmp/old/release BIN_DIR=.build/release deploy/loadtest/page-js-figures.sh
#
# BEFORE_BIN_DIR holds the stream-server of the old page (for example a release build of
# 8ab0814); BIN_DIR the new stream-server and the stream-client that simulates for both.
# FRAME_COUNTER=loop counts render frames as the figures before 2026-12-03 did (a probe
# loop that forces a frame every vsync; see page_figures.py). To compare page versions
# against one server binary, see page-cpu-figures.sh.
# Only 127.0.0.1 is targeted; every wait is bounded; every process started is stopped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${BEFORE_BIN_DIR:?set BEFORE_BIN_DIR to the directory of the old stream-server}"
: "${BIN_DIR:?set BIN_DIR to the directory of the new stream-server and stream-client}"
source "$here/lib.sh"
jsonl="$here/results/page-js-quiet.jsonl"

for label in before after after before; do
  bin=$BIN_DIR
  [[ $label == before ]] && bin=$BEFORE_BIN_DIR
  port="$(cd "$here" && python3 -B -c 'import page_figures; print(page_figures.free_port())')"
  "$bin/stream-server" --host 127.0.0.1 --port "$port" --store memory --publish-rate 100000 \
    --publish-burst 200000 --log-level warning &
  server=$!
  wait_ready "$port"
  python3 "$here/page_figures.py" --port "$port" --server-pid "$server" --client "$BIN_DIR/stream-client" \
    --devices "${DEVICES:-500}" --rates "${RATES:-1,20}" --seconds "${SECONDS_PER_RATE:-10}" --settle 3 \
    --frame-counter "${FRAME_COUNTER:-passive}" --jsonl "$jsonl.$label" >&2
  sed "s/^{/{\"page\":\"$label\",/" "$jsonl.$label" >>"$jsonl" && rm -f "$jsonl.$label"
  kill "$server"; wait "$server" 2>/dev/null || true
done
