#!/usr/bin/env bash
# The map page's renderer CPU, page version against page version, with one server: each run
# serves one version's page files (index.html, map.js, map.css, locstream.js as they are at a
# git revision, or in the work tree for ".") through page_proxy.py in front of the same
# stream-server, and measures it with page_figures.py (DEVICES simulated devices in view at
# RATES updates/s each). Only the page differs between runs. Order: the pages in turn, then
# in reverse (ABCCBA), ROUNDS times; one JSON object per run and rate goes to OUT, with
# "page" naming the version.
#
#   BIN_DIR=.build-rel/release PAGES="old=8ab0814 main=main new=." deploy/loadtest/page-cpu-figures.sh OUT.jsonl
#
# Only 127.0.0.1 is targeted; every wait is bounded; every process started is stopped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${BIN_DIR:?set BIN_DIR to the directory of stream-server and stream-client}"
out=${1:?usage: page-cpu-figures.sh OUT.jsonl}
pages=(${PAGES:-old=8ab0814 main=main new=.})
source "$here/lib.sh"
work=$(mktemp -d)
server=""
proxy=""
cleanup() {
  [[ -n $proxy ]] && kill "$proxy" 2>/dev/null || true
  [[ -n $server ]] && kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

for page in "${pages[@]}"; do
  name=${page%%=*} rev=${page#*=}
  mkdir -p "$work/$name"
  for f in index.html map.js map.css; do
    if [[ $rev == . ]]; then
      cp -L "$root/Sources/StreamServer/MapPage/$f" "$work/$name/$f"
    else
      git -C "$root" show "$rev:Sources/StreamServer/MapPage/$f" >"$work/$name/$f"
    fi
  done
  if [[ $rev == . ]]; then
    cp "$root/clients/js/locstream.js" "$work/$name/locstream.js"
  elif git -C "$root" cat-file -e "$rev:clients/js/locstream.js" 2>/dev/null; then
    git -C "$root" show "$rev:clients/js/locstream.js" >"$work/$name/locstream.js"
  fi
done

port="$(cd "$here" && python3 -B -c 'import page_figures; print(page_figures.free_port())')"
"$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --store memory --publish-rate 100000 \
  --publish-burst 200000 --log-level warning &
server=$!
wait_ready "$port"

order=("${pages[@]}")
for ((i = ${#pages[@]} - 1; i >= 0; i--)); do order+=("${pages[i]}"); done
for _ in $(seq "${ROUNDS:-1}"); do
  for page in "${order[@]}"; do
    name=${page%%=*}
    front="$(cd "$here" && python3 -B -c 'import page_figures; print(page_figures.free_port())')"
    python3 -u "$here/page_proxy.py" "$front" "$port" "$work/$name" >"$work/proxy.out" 2>&1 &
    proxy=$!
    for _ in $(seq 50); do grep -q "proxy ready" "$work/proxy.out" && break; sleep 0.1; done
    grep -q "proxy ready" "$work/proxy.out" || { cat "$work/proxy.out" >&2; exit 1; }
    python3 "$here/page_figures.py" --port "$front" --server-pid "$server" --client "$BIN_DIR/stream-client" \
      --devices "${DEVICES:-500}" --rates "${RATES:-1}" --seconds "${SECONDS_PER_RATE:-15}" --settle 3 \
      --frame-counter "${FRAME_COUNTER:-passive}" --jsonl "$work/run.jsonl" >&2
    sed "s/^{/{\"page\":\"$name\",/" "$work/run.jsonl" >>"$out" && rm -f "$work/run.jsonl"
    kill "$proxy"; wait "$proxy" 2>/dev/null || true
    proxy=""
  done
done
