#!/usr/bin/env bash
# Publications/s one node handles with 10,000 city-sized viewports and 10,000 moving
# devices, against the same load with no viewer and with 10,000 device subscriptions
# (what area subscriptions cost at city scale). Starts a release stream-server on 127.0.0.1 pinned to core 0, runs
# area_cities.py (publishers and viewer workers) pinned to core 1, and stops the server.
# Prints one line per phase; OUT=FILE appends the rows as JSON lines.
#
#   deploy/loadtest/area-cities.sh
#   OUT=deploy/loadtest/results/area-cities.jsonl deploy/loadtest/area-cities.sh --seconds 30
#   PIN=0 deploy/loadtest/area-cities.sh        # let the scheduler place everything
#   SERVER_OPTIONS="--event-loop libev" deploy/loadtest/area-cities.sh
#
# Needs python3 with `websockets` (deploy/loadtest/.venv is used when it exists).
# BIN_DIR overrides where stream-server is; otherwise it is built in $SCRATCH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/area-bench-build}"
python=python3
[[ -x "$here/.venv/bin/python" ]] && python="$here/.venv/bin/python"
server_core=() client_core=()
if [[ "${PIN:-1}" == 1 ]]; then server_core=(taskset -c 0) client_core=(taskset -c 1); fi
port="${PORT:-18093}"
log="$(mktemp)"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# shellcheck disable=SC2086 # SERVER_OPTIONS is a list of words
"${server_core[@]}" "$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --log-level warning ${SERVER_OPTIONS:-} \
    --publish-rate 10000000 --publish-burst 10000000 --max-message-bytes 4194304 \
    --max-connections 20000 --max-connections-per-ip 20000 --idle-timeout 600 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; cat "$log" >&2; rm -f "$log"' EXIT
wait_ready "$port"
echo "# $(date -Is) load average $(cut -d' ' -f1-3 /proc/loadavg); server pid $server${PIN:+ (PIN=$PIN)}"
timeout 900 "${client_core[@]}" "$python" "$here/area_cities.py" --port "$port" --pid "$server" \
    ${OUT:+--out "$OUT"} "$@"
