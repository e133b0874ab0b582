#!/usr/bin/env bash
# Scale-out figures: several nodes on the Redis broker against one node. In one run,
# on loopback:
#   1. the same fanout load against one node with the embedded broker, and against two
#      nodes on one redis-server, publishers on node1 and subscribers on node2:
#      delivered frames/s, latency, and the CPU of every process (nodes, Redis, bench);
#   2. Redis killed (SIGKILL) during a publish flood and restarted with its append-only
#      file: time until both nodes are ready and live frames flow again, publishes
#      refused meanwhile, and the frames a viewer gets back when it resumes with since
#      (scale_out_recovery.py).
# Writes deploy/loadtest/results/$REPORT.md (and $REPORT.jsonl, the raw reports);
# REPORT is scale-out unless set.
#
#   deploy/loadtest/scale-out-bench.sh                    # about 1 minute
#   SUBSCRIBERS=2000 RATE=10000 REPORT=scale-out-20k deploy/loadtest/scale-out-bench.sh
#
# BIN_DIR=DIR uses the stream-server and stream-client in DIR instead of a release build.
# Only 127.0.0.1 is targeted; every load is bounded (bench --duration and --time-limit,
# the recovery script's own deadline), and everything started here stops on exit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
results="$here/results"
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/scale-out-build}"
subscribers=${SUBSCRIBERS:-1000} devices=${DEVICES:-1000} rate=${RATE:-1000} duration=${DURATION:-15}
work=$(mktemp -d /tmp/locstream-scale-bench.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
report=${REPORT:-scale-out}
out="$results/$report.jsonl"
: >"$out"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
start_node() { # port name [extra options...]
  local port=$1 name=$2
  shift 2
  "$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --node "$name" --log-level warning \
    --publish-rate 10000000 --publish-burst 10000000 --max-connections-per-ip 10000 "$@" 2>>"$work/$name.log" &
  pids+=($!)
  wait_ready "$port"
}
bench() { # label subscriber-url server-pid [extra options...]
  local label=$1 url=$2 pid=$3
  shift 3
  "$BIN_DIR/stream-client" bench "$url" --scenario fanout --subscribers "$subscribers" --devices "$devices" \
    --rate "$rate" --duration "$duration" --server-pid "$pid" --time-limit 120 --label "$label" \
    --out "$out" "$@" >/dev/null 2>>"$work/bench.log"
}
ticks_per_second=$(getconf CLK_TCK)

echo "== single node, embedded broker" >&2
start_node 18301 single
single_pid=${pids[-1]}
before=$(cpu_ticks "$single_pid")
bench single "ws://127.0.0.1:18301/v1/stream" "$single_pid"
single_cpu=$(( $(cpu_ticks "$single_pid") - before ))
kill "$single_pid"

echo "== two nodes on one Redis" >&2
redis-server --port 16391 --bind 127.0.0.1 --save "" --appendonly no --dir "$work" --logfile "$work/redis.log" &
redis_pid=$!
pids+=("$redis_pid")
for _ in $(seq 100); do redis-cli -p 16391 ping >/dev/null 2>&1 && break; sleep 0.05; done
start_node 18311 node1 --broker redis --redis-url redis://127.0.0.1:16391/0
node1_pid=${pids[-1]}
start_node 18312 node2 --broker redis --redis-url redis://127.0.0.1:16391/0
node2_pid=${pids[-1]}
before=($(cpu_ticks "$node1_pid") $(cpu_ticks "$node2_pid") $(cpu_ticks "$redis_pid"))
bench redis "ws://127.0.0.1:18312/v1/stream" "$node2_pid" --publish-url "ws://127.0.0.1:18311/v1/stream"
after=($(cpu_ticks "$node1_pid") $(cpu_ticks "$node2_pid") $(cpu_ticks "$redis_pid"))
kill "$node1_pid" "$node2_pid" "$redis_pid"

echo "== Redis killed and restarted during a flood" >&2
python3 "$here/scale_out_recovery.py" --bin-dir "$BIN_DIR" --work "$work" >"$work/recovery.json"

python3 - "$out" "$work/recovery.json" "$single_cpu" "${before[*]}" "${after[*]}" "$ticks_per_second" \
  "$subscribers" "$devices" "$rate" "$duration" >"$results/$report.md" <<'PY'
import json, sys
runs = {r["label"]: r for r in map(json.loads, open(sys.argv[1]))}
recovery = json.load(open(sys.argv[2]))
single_cpu = int(sys.argv[3])
before, after = [list(map(int, a.split())) for a in sys.argv[4:6]]
hz = int(sys.argv[6])
subs, devices, rate, duration = sys.argv[7:11]
s, r = runs["single"], runs["redis"]
cpu = lambda ticks: 100.0 * ticks / hz / int(duration)
node1, node2, redis = (cpu(a - b) for a, b in zip(after, before))
ratio = lambda a, b: f"{a / b:.2f}×" if b else "n/a"
print(f"""# Scale-out on Redis: two nodes against one

`deploy/loadtest/scale-out-bench.sh`, release build, one 2-core VM (shared, noisy): every
process below ran on the same two cores, so read the ratios, not the absolute figures.
Load (`stream-client bench --scenario fanout`): {subs} subscribers, each watching 1 of
{devices} devices, {rate} updates/s in total in 5 ms batches, {duration} s, payload
{s['conditions']['payload_bytes']:.0f} bytes per location. Two-node run: publishers on node1,
subscribers on node2, so every frame crosses Redis.

| | one node, embedded broker | two nodes + Redis | ratio |
|---|---|---|---|
| delivered frames/s | {s['delivered_fps']} | {r['delivered_fps']} | {ratio(r['delivered_fps'], s['delivered_fps'])} |
| missing / gaps / duplicates | {s['missing']} / {s['seq_gaps']} / {s['duplicates']} | {r['missing']} / {r['seq_gaps']} / {r['duplicates']} | |
| latency p50 ms | {s['latency_ms']['p50']} | {r['latency_ms']['p50']} | {ratio(r['latency_ms']['p50'], s['latency_ms']['p50'])} |
| latency p99 ms | {s['latency_ms']['p99']} | {r['latency_ms']['p99']} | {ratio(r['latency_ms']['p99'], s['latency_ms']['p99'])} |
| server CPU % (subscribers' node) | {cpu(single_cpu):.1f} | {node2:.1f} (node2) | {ratio(node2, cpu(single_cpu))} |
| publishing node CPU % | (same process) | {node1:.1f} (node1) | |
| Redis CPU % | | {redis:.1f} | |
| bench CPU % | {s['bench_cpu_percent']} | {r['bench_cpu_percent']} | |
| saturated (bench's verdict) | {s['saturated']} | {r['saturated']} | |

Redis CPU per node: with one publishing node and one subscribing node, Redis spent
{redis:.1f} % of a core for {rate} publications/s, each one publish script (seq, last
position, geo set, history stream, channel messages) and one channel message to
node2.

## Redis killed during a flood, then restarted

`scale_out_recovery.py`: two nodes on a Redis with an append-only file (fsync always), a
publisher on node1 at about {recovery['publish_rate']} updates/s of one device (ack per
publish), a viewer of that device on node2. Redis was killed with SIGKILL, kept down
{recovery['down_seconds']} s, and restarted on the same port and file.

| | |
|---|---|
| node2 /readyz turned 503 after the kill | {recovery['not_ready_after_s']} s |
| both nodes ready again after the restart | {recovery['ready_after_restart_s']} s |
| first live frame on the viewer after the restart | {recovery['first_live_after_restart_s']} s |
| publishes refused with `internal` during the outage | {recovery['refused']} (accepted: {recovery['accepted']}) |
| viewer stayed connected through it | {recovery['viewer_connected']} |
| frames replayed to a viewer resuming with since (its last seq before the kill) | {recovery['replayed']} (gap-free: {recovery['replay_gap_free']}) |
| node2 broker_errors_total / broker_connects_total after | {recovery['node2_errors']} / {recovery['node2_connects']} |
""")
PY
echo "wrote $results/$report.md" >&2
