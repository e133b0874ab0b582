#!/usr/bin/env bash
# Live map page figures: what the page at GET / receives and draws with 500 simulated
# devices in view.
#
# Starts a release stream-server (embedded broker) on a free loopback port, then for each
# rate in RATES runs page_figures.py: `stream-client simulate` with DEVICES devices in the
# page's area (central Berlin, the simulator's default --area), the page in headless
# Chromium through chromedriver (plain WebDriver HTTP), SECONDS of once-a-second samples
# (page frames/s, markers, JS heap, render frames/s, CPU of the server / simulator /
# each Chromium process, the server's frames_sent_total rate). Screenshot of the 1/s run
# to results/page-500.png. Then the image-size estimate (no Docker needed). Writes
# deploy/loadtest/results/page.md (and page-runs.jsonl).
#
#   deploy/loadtest/page-figures.sh
#   RATES=1,5,10 SECONDS_PER_RATE=30 deploy/loadtest/page-figures.sh
#   BIN_DIR=/tmp/page-fig-build/release deploy/loadtest/page-figures.sh   # skip the build
#   STATIC_BUILD=1 deploy/loadtest/page-figures.sh   # image size with the Dockerfile's static binary
#
# Only 127.0.0.1 is targeted; every wait is bounded; every process started is stopped.
# Needs chromium and chromium-driver (Debian packages; `make deps` installs them) and python3.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export PATH="/opt/swift/usr/bin:$PATH"
scratch="${SCRATCH:-/tmp/page-fig-build}"
source "$here/lib.sh"
release_binaries "$scratch"
# The image-size section wants the binary as the Dockerfile builds it (--static-swift-stdlib):
# STATIC_BUILD=1 builds one into $scratch-static, or STATIC_BINARY names one already built.
if [[ "${STATIC_BUILD:-0}" == 1 && -z "${STATIC_BINARY:-}" ]]; then
    swift build -c release --static-swift-stdlib --product stream-server --package-path "$root" \
        --scratch-path "$scratch-static" >&2
    STATIC_BINARY="$scratch-static/release/stream-server"
fi
DEVICES="${DEVICES:-500}"
RATES="${RATES:-1,5}"
SECONDS_PER_RATE="${SECONDS_PER_RATE:-20}"
SETTLE="${SETTLE:-5}"
WIDTH="${WIDTH:-1280}"
HEIGHT="${HEIGHT:-800}"
results="$root/deploy/loadtest/results"
mkdir -p "$results"
out="$results/page.md"
jsonl="$results/page-runs.jsonl"
: >"$jsonl"

port="$(cd "$here" && python3 -B -c 'import page_figures; print(page_figures.free_port())')"
log="$(mktemp)"
# 500 devices × 5/s = 2500 locations/s from one simulator connection: above the default
# per-connection --publish-rate (1000/s, burst 2000), so both are raised for the run.
"$BIN_DIR/stream-server" --host 127.0.0.1 --port "$port" --publish-rate 100000 --publish-burst 200000 \
    --log-level warning 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$log"' EXIT
wait_ready "$port" || { cat "$log" >&2; exit 1; }

measured="$(python3 "$here/page_figures.py" --port "$port" --server-pid "$server" --client "$BIN_DIR/stream-client" \
    --devices "$DEVICES" --rates "$RATES" --seconds "$SECONDS_PER_RATE" --settle "$SETTLE" \
    --width "$WIDTH" --height "$HEIGHT" --screenshot-dir "$results" --jsonl "$jsonl")"

kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
trap 'rm -f "$log"' EXIT

chromium_version="$(/usr/bin/chromium --version 2>/dev/null | head -1 || echo unknown)"
{
    echo "# Live map page figures"
    echo
    echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)),"
    echo "$chromium_version headless, everything on one machine over loopback."
    echo
    echo "## Command"
    echo
    echo '```'
    echo "RATES=$RATES${STATIC_BINARY:+ STATIC_BINARY=$STATIC_BINARY} deploy/loadtest/page-figures.sh"
    echo "# defaults: DEVICES=500 RATES=1,5 SECONDS_PER_RATE=20 SETTLE=5 WIDTH=1280 HEIGHT=800; this run: DEVICES=$DEVICES SECONDS_PER_RATE=$SECONDS_PER_RATE SETTLE=$SETTLE WIDTH=$WIDTH HEIGHT=$HEIGHT"
    echo '```'
    echo
    echo "It builds release binaries (\`swift build -c release --scratch-path $scratch\`), starts"
    echo "\`stream-server --host 127.0.0.1 --port <free> --publish-rate 100000 --publish-burst 200000\`"
    echo "(embedded broker), and per rate runs"
    echo "\`stream-client simulate ws://127.0.0.1:<port> --devices $DEVICES --rate <R> --duration $((SETTLE + SECONDS_PER_RATE + 15)) --seed 7\`"
    echo "(default \`--area 13.08,52.33,13.76,52.68\`, the same box as the page's \`AREA\`) and"
    echo "\`deploy/loadtest/page_figures.py\`, which opens \`http://127.0.0.1:<port>/\` in a fresh headless"
    echo "Chromium (\`--headless=new --disable-gpu\`, \`--window-size=${WIDTH},${HEIGHT}\`: the viewport is the window"
    echo "less the headless window frame, see the tables) through \`/usr/bin/chromedriver\`."
    echo
    echo "## Conditions"
    echo
    echo "- Devices: $DEVICES, moving inside the page's area (central Berlin); rates: $RATES updates/s per device."
    echo "- View: the page's own initial view (\`fit()\`: the whole area, 95 % of the canvas; no URL"
    echo "  parameter or call is needed). The canvas is the window minus the 240 px side panel. Each run"
    echo "  checks that the view's bbox contains the whole area, so every marker is inside the canvas and drawn."
    echo "- The page is the only subscriber: the server's \`frames_sent_total\` rate is what it sent to that"
    echo "  one connection."
    echo "- Timing: the simulator starts 2 s before the page; the page must show all $DEVICES markers"
    echo "  (≤ 30 s), then ${SETTLE} s settle, then ${SECONDS_PER_RATE} one-second samples."
    echo "- CPU is utime+stime from \`/proc/PID/stat\` over the sampling window, in % of one core"
    echo "  (100 % = one core busy); Chromium processes are those under chromedriver, grouped by \`--type\`."
    echo "- JS heap is \`performance.memory.usedJSHeapSize\` (Chromium-only; \`--enable-precise-memory-info\`)."
    echo "- \"page \`fps\`\" is what the side panel's **frames/s** shows: \`loc\` WebSocket frames received in the"
    echo "  page's last 1 s panel tick (\`window.locstream.fps\`), i.e. data frames, not drawn frames. The"
    echo "  drawn (render) rate is measured separately by a \`requestAnimationFrame\` counter, and an exact"
    echo "  count of received messages by a WebSocket wrapper; both are injected before the page's script"
    echo "  via chromedriver's CDP bridge (\`Page.addScriptToEvaluateOnNewDocument\`); the page itself is unchanged."
    echo
    echo "## Results"
    echo
    echo "Screenshot (1/s run): [page-500.png](page-500.png). Raw numbers: [page-runs.jsonl](page-runs.jsonl)."
    echo
    echo "$measured"
    echo
    cat <<'CAVEATS'
## Caveats

- **Two meanings of "frames/s".** The side panel's *frames/s* (`window.locstream.fps`) counts `loc`
  WebSocket frames received per second, not frames drawn. The page redraws the whole canvas on every
  `requestAnimationFrame` whether or not data arrived, so its render rate is capped by the (headless,
  60 Hz) frame clock; a render rate at that cap means drawing 500 markers fits in a frame at the rates
  measured, not that the page could not go faster.
- **Sent vs received.** `frames_sent_total` counts frames *queued* to clients; with the page the only
  subscriber its rate is the server's side of that one connection. The page's figures come from a
  window offset by up to one WebDriver round trip and one 1 s panel tick, so differences below ~1 % are
  sampling, not loss; conflated drops (the server's slow-consumer policy) are reported separately.
- **Headless software rendering.** `--headless=new --disable-gpu`: the canvas is rasterised in software
  (SwiftShader, in the gpu-process) and nothing is presented to a display, so a desktop browser with a
  GPU spends its CPU differently. Device pixel ratio was 1; a 2× display has four times the pixels.
- **One shared machine.** Server, simulator and browser ran on the same few cores, and other work on the
  host (load-test runs of other sessions) competed for them; the *machine* row gives the whole-host busy
  share during each window. CPU figures are per-process CPU time over the window (contention shows up
  mostly as wall-clock delay, less in these), render and frame rates can suffer from it.
- **Raised publish limits.** The server ran with `--publish-rate 100000 --publish-burst 200000`: one
  simulator connection publishes devices × rate locations/s, and the default limit (1000/s, burst
  2000) would throttle anything above 2/s per device for 500 devices.
- **Instrumentation.** The injected counters add one message listener (a `startsWith` per frame) and one
  `requestAnimationFrame` callback to the page: small next to the page's own `JSON.parse` per frame.
  `performance.memory` is Chromium-only and covers the JS heap only (not the canvas backing store);
  renderer RSS includes memory shared with other Chromium processes.
- **Redraw dominates the renderer.** The page repaints all markers on every animation frame, so most of
  the renderer's CPU is the 60 Hz redraw, present at any update rate; the share that grows with the rate
  is parsing and bookkeeping of the incoming frames (compare the rates' renderer rows).
- **One run per rate**, 20 s windows (unless changed by the variables); no repetitions or error bars.
  The simulator's summary line covers its whole run (including the settle time) and ends early
  because the script stops it with SIGINT once sampling is over.
CAVEATS
    echo
    python3 "$here/image_size.py" --binary "$BIN_DIR/stream-server" ${STATIC_BINARY:+--static-binary "$STATIC_BINARY"}
} >"$out"
echo "wrote $out" >&2
