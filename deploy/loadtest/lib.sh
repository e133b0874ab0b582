# Shared by the load-test and topology scripts: `source` it after setting $root (the
# repository) and with `set -euo pipefail` on.

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
