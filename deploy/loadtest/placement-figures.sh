#!/usr/bin/env bash
# The light-load comparison of fanout-figures.sh (5,000 subscribers, 20k frames/s, CPU per
# frame against raw epoll --batch), with locstream's publisher on either core: beside gen
# (core 1, the kit's rule) and beside the server (core 0). The C servers make their updates
# in-process and have no publisher; raw epoll runs alone, and again with `tick` on gen's core
# (side_by_side.py --ref-neighbour: pub's wake-ups every millisecond, without its sends).
# Each round runs, in ABBA order, locstream with pub on core 1, raw epoll alone, raw epoll
# with tick, and locstream with pub on core 0; every run records how often a frame woke the
# sleeping gen (the function-call interrupts sent to gen's core, per frame).
# Writes deploy/loadtest/results/placement.md and placement.jsonl.
#
#   deploy/loadtest/placement-figures.sh                        # about 8 minutes with RUNS=6
#   HALT_POLL_NS=200000 deploy/loadtest/placement-figures.sh    # as root: twice as long
#
# HALT_POLL_NS (root, on a VM whose idle cores use the guest haltpoll driver) runs the
# rounds a second time with idle cores polling that long before they halt
# (/sys/module/haltpoll/parameters/guest_halt_poll_ns, 200000 being the kernel's default),
# and puts the machine's own setting back when the script ends, however it ends.
#
# BIN_DIR=DIR uses stream-server in DIR instead of a release build in $SCRATCH. Only
# 127.0.0.1 is targeted; every process runs under `timeout`. Needs gcc, libwebsockets-dev.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
halt_poll=/sys/module/haltpoll/parameters/guest_halt_poll_ns
if [[ -n "${HALT_POLL_NS:-}" && ! -w "$halt_poll" ]]; then
  echo "HALT_POLL_NS needs root and the guest haltpoll driver ($halt_poll)" >&2
  exit 2
fi
release_binaries "${SCRATCH:-/tmp/fanout-figures-build}"
runs=${RUNS:-6}
duration=${DURATION:-6}
out="$here/results/placement.jsonl"

limit_kit
: >"$out"

# run NOTE KIND [ARGS...]: one light-load run of KIND, appended to $out.
run() {
  LOCSTREAM_BIN="$BIN_DIR" timeout 900 python3 "$work/side_by_side.py" "$2" -S 5000 -R 400 -d "$duration" -w 2 \
    --srv-extra "--store memory" --note "$1" --out "$out" "${@:3}" >&2
}

# rounds: RUNS rounds in ABBA order.
rounds() {
  for i in $(seq "$runs"); do
    if (( i % 4 == 1 || i % 4 == 0 )); then
      run pub-core-1 loc-libev --pub-cpu 1
      run ref raw-batch
      run ref-tick raw-batch --ref-neighbour
      run pub-core-0 loc-libev --pub-cpu 0
    else
      run pub-core-0 loc-libev --pub-cpu 0
      run ref-tick raw-batch --ref-neighbour
      run ref raw-batch
      run pub-core-1 loc-libev --pub-cpu 1
    fi
  done
}

rounds
if [[ -n "${HALT_POLL_NS:-}" ]]; then
  own=$(cat "$halt_poll")
  trap 'echo "$own" >"$halt_poll"' EXIT
  echo "$HALT_POLL_NS" >"$halt_poll"
  rounds
fi
python3 "$here/placement_table.py" "$out" >"$here/results/placement.md"
cat "$here/results/placement.md"
