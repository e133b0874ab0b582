#!/usr/bin/env bash
# The client library's figures (LocstreamClient, issue 17). Writes client.md and
# client.jsonl (one JSON object a line) to $RESULTS (deploy/loadtest/results).
#
#   deploy/loadtest/client-figures.sh         # about 3 minutes
#   BIN_DIR=.build/release deploy/loadtest/client-figures.sh
#   RUNS=2 DURATION=2 RATE=20000 SEQUENCES=100 RESULTS=/tmp/client deploy/loadtest/client-figures.sh  # a check
#
# receive  One consumer of DEVICES devices (1,000) on the lws transport while `stream-client
#          bench` publishes RATE locations/s (250,000) to them: location elements per second,
#          and per CPU-second of the consumer's process (what one core would take). In ABBA
#          order (raw, library, library, raw; RUNS=4 does that once, 8 twice), so a drift of
#          the machine hits both alike:
#            library  `client-bench receive … library`: a LocstreamClient sequence, every
#                     frame decoded into a Location, seqs tracked;
#            raw      `client-bench receive … raw`: the bench's receiver path (the connection's
#                     messages through the bench's frame scanner, no decoding).
#          The server and the load run on core $SERVER_CPU (0), the consumer alone on core
#          $CONSUMER_CPU (1), each for DURATION seconds (10) after a second's warm-up.
# feed     The same consumer against deploy/loadtest/loc-feeder.py instead of the server and
#          the load: a stand-in that answers the subscribe and then writes `loc` frames for
#          the DEVICES devices, pre-framed, as fast as the consumer reads them (or FEED_RATE
#          a second when set), on core $SERVER_CPU. The server costs about 20 us of CPU per
#          frame it sends, so it cannot offer one consumer 200k frames/s on this machine;
#          the feeder can, and the consumer's core is then what limits. Three receivers in
#          ABCCBA order (raw, library, raw-batch, raw-batch, library, raw; FEED_RUNS=6 does
#          that once, 12 twice, 0 skips it): raw-batch is `client-bench receive … raw-batch`,
#          the raw receiver taking the connection's messages a batch per wake-up, as the
#          library's reader does. Each line also has the feeder's CPU over the run.
# snapshots The same consumer, with no publishing load: `client-bench snapshots` stores
#          SNAPSHOT_DEVICES devices (20,000) in an area and subscribes to it again and again,
#          each time its whole snapshot has arrived (the library: a new sequence, a switch on
#          the same connection). The server, alone on core $SERVER_CPU, sends a snapshot far
#          faster than it can take publications, so this is the library's ceiling against the
#          real server. ABCCBA order as for feed (SNAPSHOT_RUNS=6 does that once, 0 skips
#          it); each line also has the server's CPU over the run.
# idle     The consumer process's resident memory per idle sequence: SEQUENCES (2,000)
#          sequences, each on its own connection with its subscription live, after twenty
#          for warm-up; RUNS times.
#
# BIN_DIR=DIR uses stream-server, stream-client and client-bench from DIR (for example
# .build/release after `swift build -c release`) instead of a release build in $SCRATCH.
# Only 127.0.0.1 is targeted; every run is bounded by its duration and a timeout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
source "$here/lib.sh"
release_binaries "${SCRATCH:-/tmp/client-figures-build}"
duration=${DURATION:-10}
runs=${RUNS:-4}
rate=${RATE:-250000}
devices=${DEVICES:-1000}
sequences=${SEQUENCES:-2000}
feed_runs=${FEED_RUNS:-6}
feed_rate=${FEED_RATE:-0}
snapshot_runs=${SNAPSHOT_RUNS:-6}
snapshot_devices=${SNAPSHOT_DEVICES:-20000}
server_cpu=${SERVER_CPU:-0}
consumer_cpu=${CONSUMER_CPU:-1}
results=${RESULTS:-$here/results}
mkdir -p "$results"
out="$results/client.jsonl"
: >"$out"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
port=18431
url="ws://127.0.0.1:$port/v1/stream"

start_server() { # sets $server
  taskset -c "$server_cpu" "$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --store memory \
    --max-connections 20000 --max-connections-per-ip 20000 --publish-rate 10000000 --publish-burst 10000000 \
    --log-level warning 2>"$work/server.log" &
  server=$!
  wait_ready "$port"
}

stop_server() {
  kill "$server"
  wait "$server" 2>/dev/null || true
}

# labelled RUN [KEY=VALUE...]: appends client-bench's line read from stdin to $out with the
# run's number, the load average and any KEY=VALUE given (a number when it reads as one).
labelled() {
  python3 -c 'import json, sys
line = sys.stdin.read().strip()
if line:
    record = json.loads(line)
    record.update(run=int(sys.argv[1]), load_average=float(sys.argv[2]))
    for key, value in (a.split("=", 1) for a in sys.argv[3:]):
        try:
            record[key] = float(value)
        except ValueError:
            record[key] = value
    print(json.dumps(record))' "$1" "$(cut -d' ' -f1 /proc/loadavg)" "${@:2}" >>"$out"
}

# cpu_ticks PID: utime + stime of PID, in clock ticks.
cpu_ticks() {
  python3 -c 'import sys
text = open(f"/proc/{sys.argv[1]}/stat").read()
fields = text[text.rindex(")") + 2:].split()
print(int(fields[11]) + int(fields[12]))' "$1"
}

# cpu_percent PID TICKS STARTED: PID's CPU % since it had used TICKS clock ticks at STARTED (date +%s.%N).
cpu_percent() {
  python3 -c 'import sys
ticks, seconds = int(sys.argv[2]) - int(sys.argv[1]), float(sys.argv[4]) - float(sys.argv[3])
print(round(ticks / int(sys.argv[5]) / seconds * 100, 1))' "$2" "$(cpu_ticks "$1")" "$3" "$(date +%s.%N)" \
    "$(getconf CLK_TCK)"
}

receive() { # run receiver
  local run=$1 receiver=$2
  start_server
  echo "== receive, $receiver, run $run (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  timeout $((duration + 60)) taskset -c "$consumer_cpu" "$BIN_DIR/client-bench" receive "$url" "$devices" bench- \
    "$receiver" "$duration" >"$work/figure.json" &
  local consumer=$!
  timeout $((duration + 60)) taskset -c "$server_cpu" "$BIN_DIR/stream-client" bench "$url" --scenario fanout \
    --subscribers 1 --devices "$devices" --per-subscriber 1 --rate "$rate" --publishers 2 \
    --duration $((duration + 3)) --time-limit $((duration + 50)) --server-pid "$server" \
    --label "client-figures/load" >"$work/load.json" 2>"$work/load.log" &
  local load=$!
  if wait "$consumer"; then labelled "$run" source=server <"$work/figure.json"; else echo "receive $receiver failed" >&2; fi
  wait "$load" || echo "the load of run $run failed: $(tail -n 3 "$work/load.log")" >&2
  stop_server
}

run=0
for _ in $(seq $(((runs + 3) / 4))); do
  for receiver in raw library library raw; do
    run=$((run + 1))
    receive "$run" "$receiver"
  done
done

fed() { # run receiver
  local run=$1 receiver=$2
  taskset -c "$server_cpu" python3 "$here/loc-feeder.py" "$port" $((duration + 45)) "$feed_rate" \
    2>"$work/feeder.log" &
  local feeder=$!
  sleep 0.5
  echo "== feed, $receiver, run $run (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  local ticks_before started
  ticks_before=$(cpu_ticks "$feeder")
  started=$(date +%s.%N)
  if timeout $((duration + 40)) taskset -c "$consumer_cpu" "$BIN_DIR/client-bench" receive "$url" "$devices" \
    bench- "$receiver" "$duration" >"$work/figure.json"; then
    labelled "$run" source=feeder feeder_cpu_percent="$(cpu_percent "$feeder" "$ticks_before" "$started")" \
      <"$work/figure.json"
  else
    echo "feed $receiver failed" >&2
  fi
  kill "$feeder" 2>/dev/null || true
  wait "$feeder" 2>/dev/null || true
}

# abccba RUNS FUNCTION: FUNCTION RUN RECEIVER for raw, library, raw-batch, raw-batch, library,
# raw, RUNS/6 times (rounded up), RUN counting from 1.
abccba() {
  local run=0
  for _ in $(seq $((($1 + 5) / 6))); do
    for receiver in raw library raw-batch raw-batch library raw; do
      run=$((run + 1))
      "$2" "$run" "$receiver"
    done
  done
}

abccba "$feed_runs" fed

snapshots() { # run receiver
  local run=$1 receiver=$2
  start_server
  echo "== snapshots, $receiver, run $run (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
  local ticks_before started
  ticks_before=$(cpu_ticks "$server")
  started=$(date +%s.%N)
  if timeout $((duration + 60)) taskset -c "$consumer_cpu" "$BIN_DIR/client-bench" snapshots "$url" \
    "$snapshot_devices" "$receiver" "$duration" >"$work/figure.json"; then
    labelled "$run" source=snapshots server_cpu_percent="$(cpu_percent "$server" "$ticks_before" "$started")" \
      <"$work/figure.json"
  else
    echo "snapshots $receiver failed" >&2
  fi
  stop_server
}

abccba "$snapshot_runs" snapshots

for run in $(seq "$runs"); do
  start_server
  echo "== idle, $sequences sequences, run $run" >&2
  if timeout 300 taskset -c "$consumer_cpu" "$BIN_DIR/client-bench" idle "$url" "$sequences" >"$work/figure.json"; then
    labelled "$run" <"$work/figure.json"
  else
    echo "idle run $run failed" >&2
  fi
  stop_server
done

python3 "$here/client_table.py" "$out" "$rate" "$duration" >"$results/client.md"
cat "$results/client.md"
