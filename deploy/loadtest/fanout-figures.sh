#!/usr/bin/env bash
# locstream's fan-out beside the C limit kit (deploy/loadtest/limit, a copy of the team's
# reference kit): every server is received by the same native `gen`, the server pinned to
# core 0 and gen to core 1. locstream is fed by `pub` on core 1; the C servers make their
# updates in-process, and `tick` shares gen's core with them instead (side_by_side.py
# --ref-neighbour), waking there every millisecond as pub does: on this VM a neighbour
# that wakes gen's core makes every frame likelier to find gen asleep, and the sender pays
# for waking it (results/fanout.md, "the receiver's neighbour"). Each comparison runs in ABBA
# order (RUNS=4: A B B A A B B A), so a ratio compares runs minutes apart, never hours.
# Writes deploy/loadtest/results/fanout.md (ratios with their spread) and fanout.jsonl.
#
#   deploy/loadtest/fanout-figures.sh                      # about 25 minutes with RUNS=4
#   BASE_BIN_DIR=/tmp/old/release deploy/loadtest/fanout-figures.sh   # adds old-vs-new rows
#
# Comparisons (-R is publications/s over 100 devices; frames/s = R x S / 100):
#   light     5,000 subscribers, 20k frames/s: CPU per frame against raw epoll --batch.
#   peak      1,000 subscribers, R = PEAK_RATES (default 10000,30000,60000): frames/s
#             delivered against C lws --batch; the highest R is past locstream's peak.
#   idle      10,000 subscribed connections, nothing published: RSS per connection,
#             against C lws.
#
# BIN_DIR=DIR uses stream-server in DIR instead of a release build in $SCRATCH. Only
# 127.0.0.1 is targeted; every process runs under `timeout`. Needs gcc, libwebsockets-dev.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/fanout-figures-build}"
runs=${RUNS:-4}
duration=${DURATION:-8}
peak_rates=${PEAK_RATES:-10000,30000,60000}
out="$here/results/fanout.jsonl"

limit_kit
: >"$out"

# run LABEL BIN KINDS S R: one side_by_side run of KINDS (comma list), appended to $out.
# locstream runs with --store memory: the C servers keep nothing either.
run() {
  LOCSTREAM_BIN="$2" timeout 900 python3 "$work/side_by_side.py" "$3" -S "$4" -R "$5" -d "$duration" -w 2 \
    --srv-extra "--store memory" --ref-neighbour --note "$1" --out "$out" >&2
}

# abba S R REF: RUNS runs of locstream (and of BASE_BIN_DIR's) and of REF, in ABBA order.
abba() {
  for i in $(seq "$runs"); do
    if (( i % 4 == 1 || i % 4 == 0 )); then
      run new "$BIN_DIR" loc-libev "$1" "$2"
      [[ -n "${BASE_BIN_DIR:-}" ]] && run base "$BASE_BIN_DIR" loc-libev "$1" "$2"
      run ref "$BIN_DIR" "$3" "$1" "$2"
    else
      run ref "$BIN_DIR" "$3" "$1" "$2"
      [[ -n "${BASE_BIN_DIR:-}" ]] && run base "$BASE_BIN_DIR" loc-libev "$1" "$2"
      run new "$BIN_DIR" loc-libev "$1" "$2"
    fi
  done
}

abba 5000 400 raw-batch
for rate in ${peak_rates//,/ }; do abba 1000 "$rate" lws-batch; done
abba 10000 0 lws-batch
python3 "$here/fanout_table.py" "$out" >"$here/results/fanout.md"
cat "$here/results/fanout.md"
