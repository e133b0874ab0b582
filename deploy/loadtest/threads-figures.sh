#!/usr/bin/env bash
# --threads 1 against --threads 2 on this machine, with the C limit kit's receiver: the
# server unpinned (both cores), `gen` and `pub` pinned to core 1, so with two threads the
# server shares a core with the generator. 1,000 subscribers over 100 devices, offered
# R x 10 frames/s for each R in PEAK_RATES (default 60000,120000: 600k and 1.2M frames/s),
# in ABBA order (RUNS=4: 1 2 2 1 1 2 2 1). Writes deploy/loadtest/results/threads.md and
# threads.jsonl.
#
#   deploy/loadtest/threads-figures.sh              # about 8 minutes with RUNS=4
#
# BIN_DIR=DIR uses stream-server in DIR instead of a release build in $SCRATCH. Only
# 127.0.0.1 is targeted; every process runs under `timeout`. Needs gcc, libwebsockets-dev.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/threads-figures-build}"
runs=${RUNS:-4}
duration=${DURATION:-8}
peak_rates=${PEAK_RATES:-60000,120000}
out="$here/results/threads.jsonl"

limit_kit
: >"$out"

# run THREADS R: one unpinned side_by_side run of locstream with --threads THREADS.
run() {
  LOCSTREAM_BIN="$BIN_DIR" timeout 900 python3 "$work/side_by_side.py" loc-libev -S 1000 -R "$2" \
    -d "$duration" -w 2 --unpinned --srv-extra "--store memory --threads $1" --note "threads-$1" --out "$out" >&2
}

for rate in ${peak_rates//,/ }; do
  for i in $(seq "$runs"); do
    if (( i % 4 == 1 || i % 4 == 0 )); then run 1 "$rate"; run 2 "$rate"; else run 2 "$rate"; run 1 "$rate"; fi
  done
done
python3 "$here/threads_table.py" "$out" >"$here/results/threads.md"
cat "$here/results/threads.md"
