# Shared by the load-test and topology scripts: `source` it after setting $root (the
# repository) and with `set -euo pipefail` on.

# The load tests measure the stream, so the servers they start keep nothing on disk
# (--store memory) unless a script says otherwise: store-figures.sh measures the store
# against memory, and no run leaves a ./locstream-data behind. Flags win over it.
export LOCSTREAM_STORE="${LOCSTREAM_STORE:-memory}"

# release_binaries SCRATCH: unless BIN_DIR is set, builds the release stream-server and
# stream-client in SCRATCH (swift build --scratch-path) and points BIN_DIR there.
release_binaries() {
  if [[ -z "${BIN_DIR:-}" ]]; then
    swift build -c release --package-path "$root" --scratch-path "$1" >&2
    BIN_DIR="$1/release"
  fi
}

# wait_ready PORT: waits up to 10 s for http://127.0.0.1:PORT/readyz to answer 200.
wait_ready() {
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$1/readyz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "nothing ready on 127.0.0.1:$1" >&2
  return 1
}

# disk_irq_cpu DIR: prints the CPU that takes the interrupts of the disk holding DIR (a
# virtio or NVMe device, as /proc/interrupts names it), or nothing when that cannot be told.
disk_irq_cpu() {
  local source disk device irq
  source=$(findmnt -no SOURCE -T "$1" 2>/dev/null | head -n 1) || return 0
  disk=$(lsblk -no PKNAME "$source" 2>/dev/null | head -n 1)
  disk=${disk:-$(basename "$source")}
  device=$(basename "$(readlink -f "/sys/block/$disk/device" 2>/dev/null)")
  [[ -n "$device" ]] || return 0
  irq=$(awk -v name="$device" '$0 ~ name"-req|"name"q" {sub(":", "", $1); print $1; exit}' /proc/interrupts)
  [[ -n "$irq" ]] || return 0
  cut -d, -f1 "/proc/irq/$irq/effective_affinity_list" 2>/dev/null | cut -d- -f1
}

# store_cores DIR: the placement of the store figures. The server runs on the core that
# takes the interrupts of the disk holding DIR (core 0 when that cannot be told), the
# generator on another: the store's I/O completions then cost the server, as they would on
# a server host, instead of delaying the generator's clock, which would measure the
# instrument rather than the server. Sets disk_cpu, server_core and generator_core.
store_cores() {
  disk_cpu=$(disk_irq_cpu "$1")
  server_core=${disk_cpu:-0}
  generator_core=$((server_core == 0 ? 1 : 0))
}

# What the store figures give every stream-server: limits that never shape a figure, and
# quiet logs.
store_server_flags=(--max-connections 20000 --max-connections-per-ip 20000 --publish-rate 10000000
  --publish-burst 10000000 --log-level warning)

# fanout-20k, the store's fan-out run: 2,000 subscribers each watching one of 2,000
# devices, 20,000 publications/s (20,000 frames/s), every publication a store row.
fanout_20k=(--scenario fanout --publishers 2 --subscribers 2000 --devices 2000 --rate 20000)

# mosquitto_conf MQTT_PORT WS_PORT: prints the Mosquitto configuration of the peer runs:
# anonymous, no persistence, errors and warnings only, a websockets listener on WS_PORT.
mosquitto_conf() {
  cat <<CONF
per_listener_settings false
allow_anonymous true
persistence false
log_dest stderr
log_type error
log_type warning
# Mosquitto 2.0.11 will not start with only a websockets listener: a plain one on loopback too.
listener $1 127.0.0.1
# This listener binds every interface whatever address is given; its port was free on all.
listener $2 127.0.0.1
protocol websockets
CONF
}

# limit_kit: copies the C limit kit (deploy/loadtest/limit) to $WORK (default
# /tmp/locstream-limit), builds it there and sets $work to it.
limit_kit() {
  work=${WORK:-/tmp/locstream-limit}
  rm -rf "$work" && mkdir -p "$work/logs" && cp "$here"/limit/* "$work"/
  make -s -C "$work" >&2
}
