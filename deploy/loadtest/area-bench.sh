#!/usr/bin/env bash
# Publication cost against the number of matching area subscriptions: does an
# area subscription cost a publication anything when the device is outside it?
#
# Starts a release stream-server on a free port, runs area_bench.py against it, and
# stops it. Rows with the same `matching` and a different `background` (non-matching
# area subscriptions) should cost the same; cost should grow with `matching`.
#
#   deploy/loadtest/area-bench.sh                      # defaults
#   MATCHING=0,10,100 BACKGROUND=0,2000 deploy/loadtest/area-bench.sh
#   OUT=deploy/loadtest/results/area-bench.jsonl deploy/loadtest/area-bench.sh
#
# Needs python3 with the `websockets` package. BIN_DIR overrides where stream-server is.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/area-bench-build}"
port="${PORT:-18090}"
log="$(mktemp)"
"$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --publish-rate 10000000 --publish-burst 10000000 \
    --max-message-bytes 4194304 --max-connections 20000 --max-connections-per-ip 20000 --log-level warning \
    2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$log"' EXIT
wait_ready "$port"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
python3 "$here/area_bench.py" --url "ws://127.0.0.1:$port/v1/stream" --pid "$server" \
    --matching "${MATCHING:-0,1,10,100,500}" --background "${BACKGROUND:-0,1000}" ${OUT:+--out "$OUT"} "$@"
