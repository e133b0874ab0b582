#!/usr/bin/env bash
# Memory per device of the embedded broker: starts a stream-server on a free loopback
# port, publishes N new device ids over POST /v1/locations (batches of 1000, one
# location each), and reports the server's RSS growth divided by N.
#
#   BIN_DIR=.build/release deploy/loadtest/device-memory.sh [N]     # N defaults to 100000
#
# BIN_DIR is the folder holding stream-server (unset: a release build in a scratch
# folder). The publish rate and the device limit are lifted for the run (the latter only
# when the binary has --max-devices), so every id is stored.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"
release_binaries "${TMPDIR:-/tmp}/locstream-device-memory"
count=${1:-100000}

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
options=(--host 127.0.0.1 --port "$port" --log-level warning --publish-rate 10000000 --publish-burst 10000000)
if [[ "$("$BIN_DIR/stream-server" --help)" == *--max-devices* ]]; then
  options+=(--max-devices "$((count + 1000))")
fi
log="$(mktemp)"
"$BIN_DIR/stream-server" "${options[@]}" 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$log"' EXIT
wait_ready "$port" || { cat "$log" >&2; exit 1; }

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$server/status"; }
publish() { # PREFIX COUNT: COUNT new ids PREFIX-0 … in batches of 1000
  python3 - "$port" "$1" "$2" <<'PY'
import http.client, json, sys
port, prefix, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
connection = http.client.HTTPConnection("127.0.0.1", port)
for start in range(0, count, 1000):
    batch = [{"device": f"{prefix}-{i}", "lat": 52 + (i % 1000) / 1000, "lon": 13 + (i // 1000 % 1000) / 1000,
              "ts": 1764421200000 + i, "speed": 8.3, "heading": 271.0}
             for i in range(start, min(start + 1000, count))]
    connection.request("POST", "/v1/locations", json.dumps(batch), {"Content-Type": "application/json"})
    response = connection.getresponse()
    body = response.read()
    if response.status != 202:
        sys.exit(f"POST /v1/locations: {response.status} {body.decode()}")
PY
}

publish warmup 1000
sleep 1
before=$(rss_kib)
publish dev "$count"
sleep 1
after=$(rss_kib)
echo "devices=$count rss_before_kib=$before rss_after_kib=$after" \
  "bytes_per_device=$(( (after - before) * 1024 / count ))"
