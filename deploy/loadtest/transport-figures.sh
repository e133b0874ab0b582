#!/usr/bin/env bash
# Transport figures: idle memory per connection and echo round trips, each
# against a Python `websockets` server measured in the same run. Loopback only;
# bounded. Writes deploy/loadtest/results/transport.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
root=$(pwd)
source deploy/loadtest/lib.sh
make deps >/dev/null
swift build -c release --product stream-server -Xswiftc -warnings-as-errors >/dev/null
venv=deploy/loadtest/.venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q websockets
ulimit -n 20000
mkdir -p deploy/loadtest/results
{
  echo "# Transport figures ($(date -u +%Y-%m-%d), $(nproc) cores, server pinned to core 0, client to core 1)"
  echo
  "$venv/bin/python" deploy/loadtest/transport_figures.py .build/release/stream-server "$@"
} | tee deploy/loadtest/results/transport.md
