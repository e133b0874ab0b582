#!/usr/bin/env bash
# Where the store's peak goes: store-figures.sh's peak run (1,000 subscribers over 1,000
# devices, 8 publishers offered RATE publications/s, default 180,000) with the server on one
# core, and each server thread's CPU per delivered frame, from /proc/PID/task/*/schedstat
# over WINDOW seconds (default 5) in the middle of each run. Writes
# deploy/loadtest/results/store-peak-threads.md.
#
#   deploy/loadtest/store-peak-threads.sh      # about 4 minutes with RUNS=2
#
# Four cases, in ABBA order RUNS/2 times:
#   memory   --store memory alone
#   spinner  --store memory beside a CPU-bound loop at nice 5 on the server's core, which
#            takes CPU from the service thread without touching much memory
#   streamer --store memory beside a loop at nice 5 on the server's core that writes every
#            cache line of 48 MiB in turn, which takes CPU and evicts the service thread's
#            data from the caches, as the writer's commits and the checkpoints may
#   sqlite   the embedded store on the disk
# A case whose service thread costs more per frame than memory's, at a lower rate, pays for
# something beside the CPU it lost: the spinner shows what losing CPU alone costs, the
# streamer what losing the caches too costs.
# BIN_DIR=DIR uses binaries in DIR instead of a release build in $SCRATCH. Only 127.0.0.1 is
# targeted; every run is bounded by --duration, --time-limit and a timeout, and each hog by
# timeout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/store-figures-build}"
runs=${RUNS:-2}
rate=${RATE:-180000}
window=${WINDOW:-5}
duration=$((window + 8))
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
store_cores "$work"
port=18415
out="$here/results/store-peak-threads.md"
rows="$work/rows.tsv"
: >"$rows"

threads() { # pid: "name ran-ns" per thread
  local task
  for task in /proc/"$1"/task/*; do
    printf '%s %s\n' "$(tr ' ' _ <"$task/comm")" "$(cut -d' ' -f1 "$task/schedstat")"
  done 2>/dev/null
}

hog() { # case: starts the case's hog on the server's core, if any
  case "$1" in
    spinner) timeout $((duration + 5)) nice -n 5 taskset -c "$server_core" sh -c 'while :; do :; done' & ;;
    streamer)
      timeout $((duration + 5)) nice -n 5 taskset -c "$server_core" python3 -c '
lines = bytearray(48 << 20)
while True:
    lines[::64] = bytes(len(lines) // 64)' &
      ;;
  esac
}

run() { # case
  local case=$1 options=(--store memory)
  [ "$case" = sqlite ] && options=(--store sqlite --data-dir "$work/data")
  echo "== $case (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  taskset -c "$server_core" "$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" "${options[@]}" \
    "${store_server_flags[@]}" 2>"$work/server.log" &
  local server=$!
  wait_ready "$port"
  hog "$case"
  timeout 120 taskset -c "$generator_core" "$BIN_DIR/stream-client" bench "ws://127.0.0.1:$port/v1/stream" \
    --server-pid "$server" --clients 2 --duration "$duration" --time-limit 100 --label "$case" \
    --out "$work/bench.jsonl" --scenario fanout --publishers 8 --subscribers 1000 --devices 1000 \
    --rate "$rate" >/dev/null 2>&1 &
  local bench=$!
  sleep 5
  threads "$server" >"$work/before"
  sleep "$window"
  threads "$server" >"$work/after"
  wait "$bench" || echo "bench $case failed" >&2
  kill "$server" $(jobs -p) 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work/data"
  python3 - "$case" "$window" "$work/before" "$work/after" "$work/bench.jsonl" >>"$rows" <<'PY'
import json, sys
case, window, before, after, bench = sys.argv[1], float(sys.argv[2]), *sys.argv[3:]
def read(path):
    ran = {}
    for line in open(path):
        name, ns = line.split()
        ran.setdefault(name, []).append(int(ns))
    return ran
start, end = read(before), read(after)
result = json.loads(open(bench).readlines()[-1])
fps = result["delivered_fps"]
share = {n: (sum(end[n]) - sum(start.get(n, [0] * len(end[n])))) / (window * 1e9) for n in end}
def cost(name): return share.get(name, 0) / fps * 1e6 if fps else 0
print("\t".join([case, "%.0f" % fps, "%.0f" % result["expected_fps"], "%.1f" % (100 * share.get("lws-server", 0)),
                 "%.2f" % cost("lws-server"), "%.2f" % cost("store-writer"), "%.2f" % cost("store-checkpt")]))
PY
}

cases=(memory spinner streamer sqlite)
for _ in $(seq $((runs / 2))); do
  for case in "${cases[@]}" $(printf '%s\n' "${cases[@]}" | tac); do run "$case"; done
done

{
  echo "# Where the store's peak goes: CPU per frame by thread"
  echo
  echo "\`deploy/loadtest/store-peak-threads.sh\`: release build on a $(nproc)-core machine, the server"
  echo "pinned to core $server_core and the generator to core $generator_core; 1,000 subscribers over 1,000"
  echo "devices, 8 publishers offered $rate publications/s, about 150-byte frames; each thread's"
  echo "CPU (\`schedstat\`) over $window s from 5 s into each run, divided by the frames delivered per"
  echo "second. Cases in ABBA order, $runs runs each; each figure is the median with the min–max."
  echo
  echo "| case | delivered/s | accepted/s | service thread's share of the core | service thread µs/frame | writer µs/frame | checkpointer µs/frame |"
  echo "|---|---|---|---|---|---|---|"
  python3 - "$rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    case, *values = line.rstrip("\n").split("\t")
    rows.setdefault(case, []).append([float(v) for v in values])
def cell(values, digits):
    return f"{statistics.median(values):,.{digits}f} ({min(values):,.{digits}f}–{max(values):,.{digits}f})"
for case, runs in rows.items():
    columns = list(zip(*runs))
    print(f"| {case} | " + " | ".join(cell(c, d) for c, d in zip(columns, (0, 0, 1, 2, 2, 2))) + " |")
PY
} >"$out"
cat "$out"
