#!/usr/bin/env bash
# What the embedded store costs, against --store memory measured in the same run, in
# ABBA order (memory, sqlite, sqlite, memory; RUNS=4 repeats that twice). Writes
# deploy/loadtest/results/store.md and store.jsonl (raw reports, one JSON object a line).
#
#   deploy/loadtest/store-figures.sh           # about 10 minutes
#   DURATION=20 RUNS=4 deploy/loadtest/store-figures.sh
#
# Runs (the server pinned to one core, the generator to the other, each --duration seconds):
#   fanout-20k   2,000 subscribers each watching one of 2,000 devices, 20,000 publications/s
#                (20,000 frames/s): every publication is a store row. Fan-out latency. Where
#                /dev/shm is a tmpfs, also sqlite with its data directory there ("tmpfs"):
#                the store's own work without the disk's, to tell the two apart.
#   peak-P       1,000 subscribers over 1,000 devices offered P publications/s (PEAK_RATES,
#                default "120000 150000 180000") by 8 publisher connections: what gets
#                through, and which process saturated. Memory delivers all of 120k and peaks
#                at 150k offered; 180k is past its peak.
#   ack          one publisher, 500 publishes/s with "ack":true, one at a time: publish to
#                `published`; memory, sqlite (--sync normal) and --sync full.
#   restart      a store filled with 1,000,000 devices (store-bench fill): stream-server
#                start to /readyz 200, its RSS then, and the bytes on disk per device.
#   writer-cost  the writer's CPU per update, alone (store-bench writer-cost): 1,000 devices at
#                20k and 60k/s, 2,000 at 20k/s (fanout-20k's shape).
# fanout-20k and peak-P also run sqlite with its writer and checkpointer on the generator's core
# (--store-cpus, "apart"): the store on a host with a core besides the service thread's (here
# the generator uses about half of it).
#
# BIN_DIR=DIR uses binaries in DIR instead of a release build in $SCRATCH. BASE_BIN_DIR=DIR
# adds DIR's stream-server with the store ("base") to the fanout-20k runs, between the two
# stores (memory, sqlite, base, base, sqlite, memory): a change measured in the same run. Only
# 127.0.0.1 is targeted; every run is bounded by --duration, --time-limit and a timeout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/store-figures-build}"
duration=${DURATION:-10}
runs=${RUNS:-2}
out="$here/results/store.jsonl"
: >"$out"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
venv="$here/.venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q websockets
work=$(mktemp -d)
shm=
[[ "$(findmnt -no FSTYPE -T /dev/shm 2>/dev/null | head -n 1)" == tmpfs ]] && shm=$(mktemp -d -p /dev/shm)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work" ${shm:+"$shm"}' EXIT
port=18411
store_cores "$work"
echo "server on core $server_core, generator on core $generator_core (the disk's interrupts: core ${disk_cpu:-unknown})" >&2

start_server() { # store(memory|sqlite|tmpfs|base|full|kept) extra-options... ; sets $server
  local store=$1 bin=$BIN_DIR
  shift
  local options=(--store memory)
  case "$store" in
    sqlite) options=(--store sqlite --data-dir "$work/data") ;;
    tmpfs) options=(--store sqlite --data-dir "$shm/data") ;;
    base)
      options=(--store sqlite --data-dir "$work/data")
      bin=$BASE_BIN_DIR
      ;;
    full) options=(--store sqlite --data-dir "$work/data" --sync full) ;;
    kept) options=(--store sqlite --data-dir "$work/data" --max-devices 2000000) ;;
    apart) options=(--store sqlite --data-dir "$work/data" --store-cpus "$generator_core") ;;
  esac
  taskset -c "$server_core" "$bin/stream-server" --host 127.0.0.1 --port "$port" "${options[@]}" \
    "${store_server_flags[@]}" "$@" 2>"$work/server.log" &
  server=$!
  wait_ready "$port"
}

stop_server() {
  kill "$server"
  wait "$server" 2>/dev/null || true
  rm -rf "$work/data" ${shm:+"$shm/data"}
}

bench() { # store label bench-options...
  local store=$1 label=$2
  shift 2
  start_server "$store"
  echo "== $label on $store (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  timeout 180 taskset -c "$generator_core" "$BIN_DIR/stream-client" bench "ws://127.0.0.1:$port/v1/stream" --server-pid "$server" \
    --clients 2 --duration "$duration" --time-limit 150 --label "$label/$store" --out "$out" \
    "$@" >/dev/null 2>&1 || echo "bench $label on $store failed" >&2
  stop_server
}

abba() { # "stores" label bench-options...: the stores, then in reverse order, RUNS/2 times
  local stores=($1)
  shift
  for _ in $(seq $((runs / 2))); do
    for store in "${stores[@]}" $(printf '%s\n' "${stores[@]}" | tac); do bench "$store" "$@"; done
  done
}

abba "memory sqlite apart${shm:+ tmpfs}${BASE_BIN_DIR:+ base}" fanout-20k "${fanout_20k[@]}"
# Eight publishers: the bench client writes one publish frame per loop turn and connection, so
# two could not offer 120k/s (they skipped most of it while the server idled at 50-60%).
for rate in ${PEAK_RATES:-120000 150000 180000}; do
  abba "memory sqlite apart" "peak-$rate" --scenario fanout --publishers 8 --subscribers 1000 --devices 1000 --rate "$rate"
done

for _ in $(seq $((runs / 2))); do
  for store in memory sqlite full full sqlite memory; do
    start_server "$store"
    echo "== ack on $store" >&2
    timeout 120 taskset -c "$generator_core" "$venv/bin/python" "$here/store_ack.py" --url "ws://127.0.0.1:$port/v1/stream" \
      --rate 500 --duration "$duration" --time-limit 90 --label "ack/$store" >>"$out" ||
      echo "ack on $store failed" >&2
    stop_server
  done
done

echo "== restart with 1,000,000 devices" >&2
"$BIN_DIR/store-bench" fill "$work/data" 1000000 1 >&2
bytes=$(du -cb "$work/data"/locstream.db* | tail -n 1 | cut -f1)
for _ in $(seq "$runs"); do
  began=$(date +%s%N)
  start_server kept
  ready=$(date +%s%N)
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
  kill "$server"
  wait "$server" 2>/dev/null || true
  echo "{\"label\":\"restart/sqlite\",\"devices\":1000000,\"ready_s\":$(((ready - began) / 1000000))e-3,\"rss_kib\":$rss,\"disk_bytes\":$bytes}" >>"$out"
done
rm -rf "$work/data"

"$venv/bin/python" "$here/store_table.py" "$out" "$duration" "$server_core" "$generator_core" >"$here/results/store.md"
writer_builds=("$BIN_DIR" ${BASE_BIN_DIR:+"$BASE_BIN_DIR"})
{
  echo
  echo "The writer alone (\`store-bench writer-cost\`, publishes without ack, $duration s, CPU time, so"
  echo "comparable on a busy machine), each shape twice${BASE_BIN_DIR:+, this build and the base build in ABBA order}:"
  echo
  for shape in "1000 20000" "1000 60000" "2000 20000"; do
    for bin in "${writer_builds[@]}" $(printf '%s\n' "${writer_builds[@]}" | tac); do
      label=$([[ "$bin" == "$BIN_DIR" ]] && echo "this build" || echo "base")
      echo "- $label: $(taskset -c "$server_core" "$bin/store-bench" writer-cost "$work/writer" $shape "$duration")"
    done
  done
} >>"$here/results/store.md"
cat "$here/results/store.md"
