#!/usr/bin/env python3
"""Live map page figures: frames/s the page receives with N simulated devices
in view, the page's render rate, heap, and the CPU of the browser and the server.

For each rate in --rates: starts `stream-client simulate` (N devices in the page's
area, central Berlin), opens the page in headless Chromium through chromedriver (plain
W3C WebDriver over HTTP, like Tests/TestSupport/WebDriver.swift), lets it
settle, then samples once a second for --seconds:

  * window.locstream.fps (and the side panel's #p-fps text): `loc` frames the page
    received in its last 1 s panel tick;
  * markers held (window.locstream.markers().length) and whether the view's bbox
    holds the whole simulation area (then every marker is drawn);
  * performance.memory.usedJSHeapSize;
  * counters injected before the page's script through chromedriver's CDP bridge
    (Page.addScriptToEvaluateOnNewDocument): WebSocket messages received, so the page-side
    total is exact, and render frames/s: with --frame-counter passive (the default) the
    page's own requestAnimationFrame callbacks, counted by wrapping the function, so a page
    that draws only on change shows how often it draws; with --frame-counter loop (the
    figures before 2026-12-03) a requestAnimationFrame loop of the probe's own, which
    always reads about 60 and itself keeps Chromium producing a frame every vsync, so it
    adds its own cost to the renderer's CPU;
  * the server's /metrics frames_sent_total / publish_total / conflated drops
    (the page is the only subscriber, so the delta is what was sent to it);
  * CPU (utime+stime from /proc/PID/stat) of the server, the simulator, and each
    Chromium process by --type (renderer, gpu-process, utility, browser).

Only 127.0.0.1 is targeted; every wait is bounded; every process started is stopped.
Prints a markdown section per rate on stdout and one JSON line per rate to --jsonl.
"""
import argparse
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from procstat import cpu_ticks, rss_kib

AREA = (13.08, 52.33, 13.76, 52.68)  # MapPageScript.swift's AREA == simulate's default --area
CLK = os.sysconf("SC_CLK_TCK")

INJECT = r"""
(() => {
  const pf = window.__pf = { raf: 0, wsMessages: 0, wsLoc: 0, wsBytes: 0 };
  if (FRAME_COUNTER === "loop") {
    const tick = () => { pf.raf++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  } else {
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (callback) => raf((t) => { pf.raf++; callback(t); });
  }
  const Orig = window.WebSocket;
  window.WebSocket = class extends Orig {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        pf.wsMessages++;
        if (typeof e.data === "string") {
          pf.wsBytes += e.data.length;
          if (e.data.startsWith('{"op":"loc"')) pf.wsLoc++;
        }
      });
    }
  };
})();
"""

PROBE = r"""
const l = window.locstream, pf = window.__pf || null;
if (!l) return null;
const m = performance.memory || null;
const el = document.getElementById("p-fps");
const c = document.getElementById("map");
return {
  t: performance.now(), state: l.state, sub: l.sub, stale: l.stale, fps: l.fps,
  panelFps: el ? el.textContent : null, markers: l.markers().length, bbox: l.bbox(),
  heapUsed: m ? m.usedJSHeapSize : null, heapTotal: m ? m.totalJSHeapSize : null,
  raf: pf ? pf.raf : null, wsMessages: pf ? pf.wsMessages : null, wsLoc: pf ? pf.wsLoc : null,
  wsBytes: pf ? pf.wsBytes : null, errors: l.errors.length,
  canvas: c ? [c.clientWidth, c.clientHeight] : null, dpr: window.devicePixelRatio,
  inner: [window.innerWidth, window.innerHeight],
};
"""


def free_port():
    """A port free on 127.0.0.1 and ::1, below the ephemeral range: chromedriver binds both
    families, and a kernel-picked ephemeral port can be taken on ::1 by then under load."""
    import random
    for _ in range(200):
        port = random.randint(20000, 30000)
        try:
            with socket.socket() as s4, socket.socket(socket.AF_INET6) as s6:
                s4.bind(("127.0.0.1", port))
                s6.bind(("::1", port))
            return port
        except OSError:
            continue
    raise SystemExit("no free loopback port")


def children_map():
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(name))
    return kids


def descendants(root):
    kids, out, todo = children_map(), [], [root]
    while todo and len(out) < 500:
        pid = todo.pop()
        for child in kids.get(pid, []):
            out.append(child)
            todo.append(child)
    return out


def chromium_processes(driver_pid):
    """{pid: kind} for the Chromium processes under chromedriver."""
    procs = {}
    for pid in descendants(driver_pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if len([a for a in argv if a]) == 1:  # Chromium rewrites its children's titles: one string
            argv = argv[0].split(b" ")
        if not argv or b"chrom" not in os.path.basename(argv[0]):
            continue
        kind = "browser"
        for arg in argv:
            if arg.startswith(b"--type="):
                kind = arg[7:].decode()
                if kind == "utility":
                    for a in argv:
                        if a.startswith(b"--utility-sub-type="):
                            kind = "utility:" + a.split(b"=", 1)[1].decode().split(".")[-1]
        if kind == "renderer" and b"--top-chrome-webui" in argv:
            kind = "renderer-webui"
        procs[pid] = kind
    return procs


def system_ticks():
    """(busy, total) jiffies of all cores, from /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


def metrics(port):
    wanted = {
        "locstream_frames_sent_total": "sent",
        "locstream_publish_total": "published",
        'locstream_frames_dropped_total{reason="conflated"}': "conflated",
        "locstream_subscriptions": "subscriptions",
        "locstream_connections": "connections",
    }
    out = {}
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] in wanted:
                out[wanted[parts[0]]] = float(parts[1])
    return out


class WebDriver:
    """chromedriver + one headless Chromium session, W3C WebDriver over HTTP."""

    def __init__(self, chromedriver, chromium, width, height):
        started = False
        for _ in range(5):
            self.port = free_port()
            self.proc = subprocess.Popen(
                [chromedriver, f"--port={self.port}", "--allowed-ips=127.0.0.1"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            deadline = time.time() + 20
            while time.time() < deadline:
                line = self.proc.stdout.readline()
                if not line or "started successfully" in line:
                    started = bool(line)
                    break
            if started:
                break
            stop(self.proc, wait=5)
        if not started:
            raise SystemExit("chromedriver did not start")
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         f"--window-size={width},{height}", "--no-first-run", "--no-default-browser-check",
                         "--enable-precise-memory-info"],
            },
        }}}
        value = self.request("POST", "/session", caps, timeout=60)
        self.session = value["sessionId"]

    def request(self, method, path, body=None, timeout=30):
        data = json.dumps(body).encode() if body is not None else (b"{}" if method == "POST" else None)
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json; charset=utf-8"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                reply = json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            reply = json.loads(e.read().decode() or "{}")
        value = reply.get("value")
        if isinstance(value, dict) and "error" in value:
            raise RuntimeError(f"{method} {path}: {value['error']}: {value.get('message', '')[:300]}")
        return value

    def s(self, suffix):
        return f"/session/{self.session}{suffix}"

    def cdp(self, cmd, params):
        return self.request("POST", self.s("/goog/cdp/execute"), {"cmd": cmd, "params": params})

    def navigate(self, url):
        self.request("POST", self.s("/url"), {"url": url}, timeout=60)

    def execute(self, script, args=()):
        return self.request("POST", self.s("/execute/sync"), {"script": script, "args": list(args)})

    def screenshot(self):
        return base64.b64decode(self.request("GET", self.s("/screenshot")))

    def quit(self):
        try:
            self.request("DELETE", self.s(""), timeout=20)
        except Exception:  # noqa: BLE001 - best effort; the driver is killed below anyway
            pass
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def stop(proc, sig=signal.SIGTERM, wait=15):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def pct(ticks, seconds):
    return 100.0 * ticks / CLK / seconds if ticks is not None else float("nan")


def run_rate(a, rate):
    port = a.port
    sim_seconds = a.settle + a.seconds + 15
    sim = subprocess.Popen(
        [a.client, "simulate", f"ws://127.0.0.1:{port}", "--devices", str(a.devices), "--rate", str(rate),
         "--duration", str(sim_seconds), "--seed", "7"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    driver = None
    result = {"devices": a.devices, "rate": rate, "seconds": a.seconds, "window": [a.width, a.height],
              "frame_counter": a.frame_counter}
    try:
        time.sleep(2)  # let every simulated device publish once before the page subscribes
        driver = WebDriver(a.chromedriver, a.chromium, a.width, a.height)
        try:
            source = INJECT.replace("FRAME_COUNTER", json.dumps(a.frame_counter))
            driver.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": source})
            result["injected"] = True
        except RuntimeError as e:
            print(f"note: CDP injection unavailable ({e}); render rate and exact totals missing", file=sys.stderr)
            result["injected"] = False
        driver.navigate(f"http://127.0.0.1:{port}/")
        deadline = time.time() + 30
        probe = None
        while time.time() < deadline:
            probe = driver.execute(PROBE)
            if probe and probe["state"] == "connected" and probe["sub"] and probe["markers"] >= a.devices:
                break
            time.sleep(0.2)
        if not probe or probe["markers"] < a.devices:
            print(f"warning: page shows {probe and probe['markers']} markers of {a.devices}", file=sys.stderr)
        time.sleep(a.settle)

        procs = chromium_processes(driver.proc.pid)
        watched = {"server": a.server_pid, "simulator": sim.pid}
        watched.update({f"chromium {kind} {pid}": pid for pid, kind in procs.items()})
        cpu0 = {name: cpu_ticks(pid) for name, pid in watched.items()}
        sys0 = system_ticks()
        m0, p0, t0 = metrics(port), driver.execute(PROBE), time.time()
        samples = []
        for _ in range(a.seconds):
            time.sleep(max(0.0, t0 + len(samples) + 1 - time.time()))
            samples.append(driver.execute(PROBE))
        m1, p1, t1 = metrics(port), samples[-1], time.time()
        cpu1 = {name: cpu_ticks(pid) for name, pid in watched.items()}
        sys1 = system_ticks()
        machine_busy = 100.0 * (sys1[0] - sys0[0]) / max(1, sys1[1] - sys0[1])
        wall = t1 - t0
        page_wall = (p1["t"] - p0["t"]) / 1000.0

        cpu = {}
        for name in watched:
            if cpu0[name] is not None and cpu1[name] is not None:
                cpu[name] = round(pct(cpu1[name] - cpu0[name], wall), 1)
        chromium_total = sum(v for k, v in cpu.items() if k.startswith("chromium"))
        # The page's renderer is the busiest renderer; the others are spare or WebUI ones.
        renderers = [pid for pid, kind in procs.items() if kind == "renderer" and f"chromium renderer {pid}" in cpu]
        page_renderer = max(renderers, key=lambda pid: cpu[f"chromium renderer {pid}"]) if renderers else None
        by_kind = {}
        for pid, kind in procs.items():
            key = f"chromium {kind} {pid}"
            if key in cpu:
                base = kind.split(":")[0] if kind.startswith("utility") else kind
                if kind == "renderer":
                    base = "renderer (the page)" if pid == page_renderer else "renderer (others)"
                by_kind[base] = round(by_kind.get(base, 0) + cpu[key], 1)
        renderer_rss = rss_kib(page_renderer) if page_renderer else 0

        fps_values = [s["fps"] for s in samples]
        panel_values = [int(s["panelFps"]) for s in samples if s["panelFps"] and s["panelFps"].isdigit()]
        bb = p1["bbox"]
        result.update({
            "wall_s": round(wall, 2),
            "page_fps_mean": round(sum(fps_values) / len(fps_values), 1),
            "page_fps_min": min(fps_values), "page_fps_max": max(fps_values),
            "panel_fps_mean": round(sum(panel_values) / len(panel_values), 1) if panel_values else None,
            "server_sent_per_s": round((m1["sent"] - m0["sent"]) / wall, 1),
            "server_published_per_s": round((m1["published"] - m0["published"]) / wall, 1),
            "conflated_per_s": round((m1.get("conflated", 0) - m0.get("conflated", 0)) / wall, 1),
            "expected_per_s": a.devices * rate,
            "subscriptions": m1.get("subscriptions"), "connections": m1.get("connections"),
            "markers_min": min(s["markers"] for s in samples), "markers_max": max(s["markers"] for s in samples),
            "area_in_view": bb[0] <= AREA[0] and bb[1] <= AREA[1] and bb[2] >= AREA[2] and bb[3] >= AREA[3],
            "bbox": bb, "canvas_css_px": p1["canvas"], "dpr": p1["dpr"], "inner": p1["inner"],
            "stale": p1["stale"], "page_errors": p1["errors"],
            "heap_used_mib": [round(s["heapUsed"] / 1048576, 1) for s in (samples[0], samples[-1])]
            if p1["heapUsed"] else None,
            "heap_used_max_mib": round(max(s["heapUsed"] for s in samples) / 1048576, 1) if p1["heapUsed"] else None,
            "renderer_rss_mib": round(renderer_rss / 1024, 1),
            "server_rss_mib": round((rss_kib(a.server_pid) or 0) / 1024, 1),
            "machine_busy_pct": round(machine_busy, 1), "cores": os.cpu_count(),
            "loadavg_1m": float(open("/proc/loadavg").read().split()[0]),
            "cpu_pct": cpu, "chromium_cpu_pct_by_kind": by_kind, "chromium_cpu_pct_total": round(chromium_total, 1),
        })
        if result["injected"] and p0.get("raf") is not None:
            result["render_fps"] = round((p1["raf"] - p0["raf"]) / page_wall, 1)
            result["page_loc_per_s_exact"] = round((p1["wsLoc"] - p0["wsLoc"]) / page_wall, 1)
            result["page_msgs_per_s_exact"] = round((p1["wsMessages"] - p0["wsMessages"]) / page_wall, 1)
            result["page_kib_per_s"] = round((p1["wsBytes"] - p0["wsBytes"]) / page_wall / 1024, 1)
        if a.screenshot_dir:
            name = "page-500.png" if rate == a.screenshot_rate else f"page-{a.devices}-{rate:g}hz.png"
            if rate == a.screenshot_rate or a.all_screenshots:
                path = os.path.join(a.screenshot_dir, name)
                png = driver.screenshot()
                with open(path, "wb") as f:
                    f.write(png)
                result["screenshot"] = path
    finally:
        if driver:
            driver.quit()
        stop(sim, signal.SIGINT)
        out = sim.stdout.read() if sim.stdout else ""
        result["simulator_summary"] = " ".join(out.split())[-400:]
    return result


def markdown(r):
    lines = [f"### {r['devices']} devices × {r['rate']:g}/s (expected {r['expected_per_s']:g} loc/s)", ""]
    lines.append("| figure | value |")
    lines.append("|---|---|")
    rows = [
        ("server `frames_sent_total` rate (to the page, its only subscriber)", f"{r['server_sent_per_s']:g}/s"),
        ("server `publish_total` rate", f"{r['server_published_per_s']:g}/s"),
        ("server conflated drops", f"{r['conflated_per_s']:g}/s"),
        ("page `window.locstream.fps` mean (min–max) over 1 s ticks",
         f"{r['page_fps_mean']:g} ({r['page_fps_min']}–{r['page_fps_max']})"),
        ("page side-panel `frames/s` text, mean", f"{r['panel_fps_mean']}"),
    ]
    if "page_loc_per_s_exact" in r:
        rows += [
            ("page `loc` frames received (injected counter, exact)", f"{r['page_loc_per_s_exact']:g}/s"),
            ("page WebSocket payload received", f"{r['page_kib_per_s']:g} KiB/s"),
            (f"page render frames/s (requestAnimationFrame callbacks, {r.get('frame_counter', 'loop')} counter)",
             f"{r['render_fps']:g}"),
        ]
    rows += [
        ("viewport / canvas (CSS px), device pixel ratio",
         f"{r['inner'][0]}×{r['inner'][1]} / {r['canvas_css_px'][0]}×{r['canvas_css_px'][1]}, {r['dpr']:g}"),
        ("markers held (min–max)", f"{r['markers_min']}–{r['markers_max']}"),
        ("whole simulation area inside the view bbox", "yes" if r["area_in_view"] else "NO"),
        ("stale frames / page errors", f"{r['stale']} / {r['page_errors']}"),
        ("JS heap used, first → last sample (max)",
         f"{r['heap_used_mib'][0]} → {r['heap_used_mib'][1]} MiB ({r['heap_used_max_mib']} MiB)"
         if r["heap_used_mib"] else "n/a"),
        ("renderer RSS / server RSS", f"{r['renderer_rss_mib']} MiB / {r['server_rss_mib']} MiB"),
        ("CPU: server", f"{r['cpu_pct'].get('server', float('nan'))}%"),
        ("CPU: simulator (stream-client)", f"{r['cpu_pct'].get('simulator', float('nan'))}%"),
    ]
    for kind, value in sorted(r["chromium_cpu_pct_by_kind"].items()):
        rows.append((f"CPU: chromium {kind}", f"{value}%"))
    rows.append(("CPU: chromium, all processes", f"{r['chromium_cpu_pct_total']}%"))
    ours = r["chromium_cpu_pct_total"] + r["cpu_pct"].get("server", 0) + r["cpu_pct"].get("simulator", 0)
    rows.append(("machine: all cores busy / of which not these processes / load avg 1 min",
                 f"{r['machine_busy_pct']}% of {r['cores']} cores / "
                 f"{max(0.0, r['machine_busy_pct'] * r['cores'] - ours):.0f}% of one core / {r['loadavg_1m']}"))
    lines += [f"| {k} | {v} |" for k, v in rows]
    lines += ["", f"Simulator summary: `{r['simulator_summary']}`", ""]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--server-pid", type=int, required=True)
    p.add_argument("--client", required=True, help="path to stream-client")
    p.add_argument("--devices", type=int, default=500)
    p.add_argument("--rates", default="1,5")
    p.add_argument("--seconds", type=int, default=20)
    p.add_argument("--settle", type=int, default=5)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=800)
    p.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--screenshot-dir")
    p.add_argument("--screenshot-rate", type=float, default=1.0)
    p.add_argument("--all-screenshots", action="store_true")
    p.add_argument("--jsonl")
    p.add_argument("--frame-counter", choices=["passive", "loop"], default="passive",
                   help="render frames/s from the page's own requestAnimationFrame callbacks (passive), "
                        "or from a loop of the probe's own that forces a frame every vsync (loop)")
    a = p.parse_args()
    a.seconds = max(1, min(a.seconds, 300))
    a.settle = max(0, min(a.settle, 60))
    for rate in [float(x) for x in a.rates.split(",") if x][:5]:
        r = run_rate(a, rate)
        if a.jsonl:
            with open(a.jsonl, "a") as f:
                f.write(json.dumps(r) + "\n")
        print(markdown(r), flush=True)


if __name__ == "__main__":
    main()
