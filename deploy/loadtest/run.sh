#!/usr/bin/env bash
# locstream load tests: builds the release binaries, starts stream-server on a free
# loopback port pinned to core 0, runs the standard `stream-client bench` scenarios pinned
# to core 1, and writes deploy/loadtest/results/report.md (figures and their conditions)
# with PNG plots of the per-second timelines.
#
#   deploy/loadtest/run.sh                  # standard: about 5 minutes
#   deploy/loadtest/run.sh --quick          # every scenario, shorter and smaller: under 2 minutes
#   deploy/loadtest/run.sh --peer mosquitto # also the same fanout shape against Mosquitto
#                                           # (MQTT over WebSocket, Python paho-mqtt generator)
#
# Only 127.0.0.0/8 is ever targeted. Every run is bounded (bench --duration, --time-limit,
# and timeouts here), and whatever this script started is stopped when it exits.
# LOADTEST_SCRATCH=DIR builds in DIR instead of .build (swift build --scratch-path);
# LOADTEST_BIN=DIR skips the build and uses the stream-server and stream-client in DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/lib.sh"
mode=standard
peer=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --peer)
      [ $# -ge 2 ] || { echo "run.sh: --peer needs a value (mosquitto)" >&2; exit 2; }
      peer=$2
      shift ;;
    --peer=*) peer=${1#--peer=} ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$peer" ] && [ "$peer" != mosquitto ]; then
  echo "run.sh: --peer must be mosquitto, not '$peer'" >&2
  exit 2
fi

export PATH="/opt/swift/usr/bin:$PATH"
results="$here/results"
venv="$here/.venv"
scratch="${LOADTEST_SCRATCH:-$root/.build}"
work=$(mktemp -d /tmp/locstream-loadtest.XXXXXX)
server_pid=""
broker_pid=""
port=""
started=$(date +%s)

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Stops a process this script started: TERM, then TERM again, then KILL, each bounded.
stop_pid() {
  local pid=$1 name=$2 tries
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  for signal in TERM TERM KILL; do
    kill "-$signal" "$pid" 2>/dev/null || true
    for tries in $(seq 1 30); do
      kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
      sleep 0.5
    done
    log "$name (pid $pid) still running after SIG$signal"
  done
}

cleanup() {
  stop_pid "$server_pid" stream-server
  stop_pid "$broker_pid" mosquitto
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits (at most 30 s) until FILE has a line matching REGEX; prints that line.
wait_for_line() {
  local file=$1 regex=$2 i
  for i in $(seq 1 300); do
    if grep -m1 -E "$regex" "$file" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}

# A TCP port free on every interface (Mosquitto's websockets listener binds them all).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1]); s.close()'
}

if [ -n "${LOADTEST_BIN:-}" ]; then
  bin=$LOADTEST_BIN
  log "using the binaries in $bin"
  [ -x "$bin/stream-server" ] && [ -x "$bin/stream-client" ] || { echo "run.sh: no binaries in $bin" >&2; exit 2; }
else
  log "building release binaries (scratch: $scratch)"
  (cd "$root" && make deps >/dev/null)
  (cd "$root" && swift build -c release --scratch-path "$scratch" -Xswiftc -warnings-as-errors \
    --product stream-server >"$work/build.log" 2>&1 &&
    swift build -c release --scratch-path "$scratch" -Xswiftc -warnings-as-errors \
      --product stream-client >>"$work/build.log" 2>&1) || { cat "$work/build.log" >&2; exit 1; }
  bin=$(cd "$root" && swift build -c release --scratch-path "$scratch" --show-bin-path)
fi

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
packages=(matplotlib)
[ -n "$peer" ] && packages+=(paho-mqtt)
"$venv/bin/pip" install -q "${packages[@]}"
python="$venv/bin/python"

ulimit -n "$(ulimit -Hn)"
mkdir -p "$results"
exec 2> >(tee "$results/run.log" >&2)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg) (other processes on these cores skew the figures)"
runs="$results/runs.jsonl"
: >"$runs"
rm -f "$results"/timeline-*.jsonl "$results"/plot-*.png "$results/metrics-slow.txt"

# Server flags beyond the defaults, for the options this build knows: load tests publish
# far above the per-connection default rate and open more connections than the default cap.
server_flags=(--host 127.0.0.1 --port 0 --log-level info)
server_help=$("$bin/stream-server" --help)
for flag in "--publish-rate 10000000" "--publish-burst 10000000" "--max-connections 100000" \
  "--max-connections-per-ip 100000"; do
  if grep -q -- "${flag%% *}" <<<"$server_help"; then server_flags+=($flag); fi
done

start_server() {
  stop_pid "$server_pid" stream-server
  : >"$work/server.log"
  taskset -c 0 "$bin/stream-server" "${server_flags[@]}" >"$work/server.log" 2>&1 &
  server_pid=$!
  local line
  line=$(wait_for_line "$work/server.log" 'listening') || { cat "$work/server.log" >&2; exit 1; }
  port=$(grep -oE 'port[=:]"?[0-9]+' <<<"$line" | grep -oE '[0-9]+$')
  log "stream-server pid $server_pid on 127.0.0.1:$port (core 0)"
}

# bench NAME ARGS...: one bench run against the running server, on core 1.
bench() {
  local name=$1
  shift
  log "bench $name: $*"
  taskset -c 1 "$bin/stream-client" bench "ws://127.0.0.1:$port" --server-pid "$server_pid" --label "$name" \
    --out "$runs" --time-limit 240 "$@" 2>"$work/bench-$name.txt" >/dev/null ||
    log "bench $name failed: $(tail -n 3 "$work/bench-$name.txt")"
  sed 's/^/    /' "$work/bench-$name.txt" >&2
}

metrics() { "$python" -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "http://127.0.0.1:$port/metrics"; }

if [ "$mode" = quick ]; then
  duration=4; wide=(1000 200 5 2000); capacity=(6000 2000); storm=2000; churn_subs=500
else
  duration=15; wide=(2000 200 5 2000); capacity=(15000 2500); storm=8000; churn_subs=1000
fi

# 1. fanout: many subscribers, few devices each.
start_server
bench fanout-wide --scenario fanout --subscribers "${wide[0]}" --devices "${wide[1]}" \
  --per-subscriber "${wide[2]}" --rate "${wide[3]}" --duration "$duration" \
  --timeline "$results/timeline-fanout-wide.jsonl"
# 2. fanout: 500k frames/s asked of one bench core, then far past it (who saturates first?).
start_server
bench fanout-500k --scenario fanout --subscribers 100 --devices 100 --per-subscriber 100 --rate 5000 \
  --duration "$duration" --timeline "$results/timeline-fanout-500k.jsonl"
start_server
bench fanout-peak --scenario fanout --subscribers 100 --devices 100 --per-subscriber 100 --rate 8000 \
  --duration "$duration" --timeline "$results/timeline-fanout-peak.jsonl"
# 3. churn: every subscriber switches its sub twice a second under load.
start_server
bench churn --scenario churn --subscribers "$churn_subs" --devices 200 --per-subscriber 5 --rate 2000 \
  --switch-ms 500 --duration "$duration" --timeline "$results/timeline-churn.jsonl"
# 4. slow: 10 subscribers that never read, beside 50 that do; a baseline run without them first.
start_server
bench slow --scenario slow --subscribers 50 --devices 100 --per-subscriber 20 --rate 10000 --attrs-bytes 400 \
  --slow 10 --baseline --duration "$duration" --timeline "$results/timeline-slow.jsonl"
metrics | grep -E '^locstream_(frames_dropped_total|frames_sent_total|connections)' >"$results/metrics-slow.txt" || true
# 5. capacity: idle subscribed connections in steps, server RSS after each.
start_server
bench capacity --scenario capacity --connections "${capacity[0]}" --step "${capacity[1]}" --settle-ms 1000 \
  --source-addresses 8
# 6. storm: connect at once, close all, reconnect all at once.
start_server
bench storm --scenario storm --connections "$storm" --parallel 1000 --source-addresses 8

# 7. the peer: the same fanout shape against Mosquitto and against locstream.
peer_args=(--subscribers 100 --devices 100 --per-subscriber 10 --rate 2000 --duration "$duration")
if [ -n "$peer" ]; then
  if ! command -v mosquitto >/dev/null; then
    log "installing mosquitto from Debian"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null
  fi
  mqtt_port=$(free_port)
  ws_port=$(free_port)
  mosquitto_conf "$mqtt_port" "$ws_port" >"$work/mosquitto.conf"
  stop_pid "$server_pid" stream-server
  server_pid=""
  taskset -c 0 mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
  broker_pid=$!
  for i in $(seq 1 100); do
    ss -ltn | grep -q ":$ws_port " && break
    sleep 0.1
  done
  log "mosquitto pid $broker_pid: mqtt 127.0.0.1:$mqtt_port, websockets :$ws_port (core 0)"
  for shape in peer peer-high; do
    args=("${peer_args[@]}")
    [ "$shape" = peer-high ] && args=(--subscribers 100 --devices 100 --per-subscriber 10 --rate 5000 --duration "$duration")
    log "mqtt_fanout $shape-mosquitto: ${args[*]}"
    taskset -c 1 "$python" "$here/mqtt_fanout.py" --port "$ws_port" --broker-pid "$broker_pid" \
      --label "$shape-mosquitto" --timeline "$results/timeline-$shape-mosquitto.jsonl" --time-limit 240 \
      "${args[@]}" >>"$runs" 2>"$work/mqtt-$shape.txt" || log "mqtt_fanout failed: $(tail -n 3 "$work/mqtt-$shape.txt")"
  done
  stop_pid "$broker_pid" mosquitto
  broker_pid=""
  start_server
  bench peer-locstream --scenario fanout "${peer_args[@]}" --timeline "$results/timeline-peer-locstream.jsonl"
  start_server
  bench peer-high-locstream --scenario fanout --subscribers 100 --devices 100 --per-subscriber 10 --rate 5000 \
    --duration "$duration" --timeline "$results/timeline-peer-high-locstream.jsonl"
fi
stop_pid "$server_pid" stream-server
server_pid=""

log "writing plots and $results/report.md"
"$python" "$here/plot.py" --out "$results" "$results"/timeline-*.jsonl
"$python" "$here/report.py" --runs "$runs" --metrics "$results/metrics-slow.txt" --mode "$mode" \
  --seconds "$(($(date +%s) - started))" --load-before "$load_before" --binaries "$bin" \
  --note "${LOADTEST_NOTE:-}" --out "$results/report.md"
log "done in $(($(date +%s) - started)) s: $results/report.md"
