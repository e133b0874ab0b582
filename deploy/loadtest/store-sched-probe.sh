#!/usr/bin/env bash
# Who takes the server's core from the service thread during store-figures.sh's fanout-20k
# run (2,000 subscribers, 2,000 devices, 20,000 publications/s), for --store memory, sqlite
# on the disk and sqlite on a tmpfs: `perf sched record` on the server's core for RECORD
# seconds in the middle of each run. Writes deploy/loadtest/results/store-sched.md.
#
#   deploy/loadtest/store-sched-probe.sh        # about a minute; needs perf (linux-perf)
#
# For each store: the milliseconds each task ran on that core, the service thread's
# scheduling delays (`perf sched latency`), and which tasks ran when the service thread was
# preempted. The server runs on the core that takes the disk's interrupts, as in
# store-figures.sh. BIN_DIR=DIR uses binaries in DIR instead of a release build in $SCRATCH.
# Only 127.0.0.1 is targeted; every run is bounded by --duration, --time-limit and a timeout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
command -v perf >/dev/null || {
  echo "needs perf (apt-get install linux-perf)" >&2
  exit 1
}
release_binaries "${SCRATCH:-/tmp/store-figures-build}"
record=${RECORD:-4}
work=$(mktemp -d)
shm=$(mktemp -d -p /dev/shm)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work" "$shm"' EXIT
store_cores "$work"
port=18414
out="$here/results/store-sched.md"

probe() { # store data-directory-options...
  local store=$1
  shift
  taskset -c "$server_core" "$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" "$@" \
    "${store_server_flags[@]}" 2>"$work/server.log" &
  local server=$!
  wait_ready "$port"
  timeout 120 taskset -c "$generator_core" "$BIN_DIR/stream-client" bench "ws://127.0.0.1:$port/v1/stream" \
    --server-pid "$server" --clients 2 --duration $((record + 8)) --time-limit 100 --label "probe/$store" \
    --out "$work/bench.jsonl" "${fanout_20k[@]}" >/dev/null 2>&1 &
  local bench=$!
  sleep 5
  perf sched record -C "$server_core" -o "$work/sched.data" -- sleep "$record" >/dev/null 2>&1
  wait "$bench" || true
  kill "$server"
  wait "$server" 2>/dev/null || true
  rm -rf "$work/data" "$shm/data"
  {
    echo
    echo "## $store"
    echo
    echo "Ran on core $server_core over $record s (ms), the ten busiest:"
    echo
    perf sched timehist -i "$work/sched.data" 2>/dev/null | awk 'NR > 3 {
      name = $3; sub(/\[.*/, "", name); ran[name] += $NF } END { for (n in ran) printf "%s %.1f\n", n, ran[n] }' |
      sort -k2 -nr | head -n 10 | awk '{ printf "- %s: %s\n", $1, $2 }'
    echo
    echo "The service thread's scheduling delays:"
    echo
    perf sched latency -i "$work/sched.data" 2>/dev/null | awk -F'|' '/lws-server/ {
      gsub(/ +/, " "); printf "- ran%s, %s switches, delay:%s, delay%s\n", $2, $3, $4, $5 }'
    echo
    echo "Ran next when the service thread was preempted, by the time they ran:"
    echo
    perf sched timehist --state -i "$work/sched.data" 2>/dev/null | awk 'NR > 3 {
      if (previous ~ /lws-server/ && state == "R") { name = $3; sub(/\[.*/, "", name); count[name]++; ran[name] += $(NF - 1) }
      previous = $3; state = $NF }
      END { for (n in count) printf "%.2f %s %d\n", ran[n], n, count[n] }' | sort -nr | head -n 8 |
      awk '{ printf "- %s: %s ms, %d times\n", $2, $1, $3 }'
    echo
    echo "Fan-out latency of this run: $(python3 -c 'import json, sys
latency = json.loads(open(sys.argv[1]).readlines()[-1])["latency_ms"]
print("p50 %s ms, p99 %s ms" % (latency["p50"], latency["p99"]))' "$work/bench.jsonl")"
  } >>"$out"
}

{
  echo "# Who takes the server's core, fanout-20k"
  echo
  echo "\`deploy/loadtest/store-sched-probe.sh\`: the server on core $server_core (the disk's interrupts:"
  echo "core ${disk_cpu:-unknown}), the generator on core $generator_core; \`perf sched record\` on core"
  echo "$server_core for $record s, from 5 s into each run. One run per store: a diagnosis, not a figure."
} >"$out"
probe memory --store memory
probe sqlite --store sqlite --data-dir "$work/data"
probe tmpfs --store sqlite --data-dir "$shm/data"
cat "$out"
