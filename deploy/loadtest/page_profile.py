#!/usr/bin/env python3
"""Where the map page's CPU goes, with DEVICES simulated devices at 1 update/s in view: the CPU of
each Chromium process (/proc), CDP Performance.getMetrics deltas (script, layout, style, task
time), optionally a JavaScript CPU profile (--profile: CDP Profiler.start/stop, self time by
function; OUT.cpuprofile loads in DevTools) and a Chromium trace (--trace: --trace-startup in
JSON to OUT.trace.json, summarised by page_trace_summary.py OUT). Same browser and probe as
page_figures.py; a server must be running on --port (page_proxy.py in front of it serves another
page version). Used for results/page-js.md, 2026-12-03.

    page_profile.py --port P --client .build-rel/release/stream-client [--inject none|passive|loop]
                    [--seconds 10] [--profile] [--trace] [--out /tmp/page]
"""
import argparse, collections, json, os, signal, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page_figures as pf
from procstat import cpu_ticks


ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--client", required=True)
ap.add_argument("--inject", default="none")
ap.add_argument("--seconds", type=int, default=10)
ap.add_argument("--devices", type=int, default=500)
ap.add_argument("--trace", action="store_true")
ap.add_argument("--profile", action="store_true")
ap.add_argument("--out", default="/tmp/page")
a = ap.parse_args()

sim = subprocess.Popen([a.client, "simulate", f"ws://127.0.0.1:{a.port}", "--devices", str(a.devices), "--rate", "1",
                        "--duration", str(a.seconds + 40), "--seed", "7"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
drv = None
try:
    time.sleep(2)
    drv = pf.WebDriver.__new__(pf.WebDriver)
    # same as pf.WebDriver.__init__ but with the perf log when tracing
    started = False
    for _ in range(5):
        drv.port = pf.free_port()
        drv.proc = subprocess.Popen(["/usr/bin/chromedriver", f"--port={drv.port}", "--allowed-ips=127.0.0.1"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        deadline = time.time() + 20
        while time.time() < deadline:
            line = drv.proc.stdout.readline()
            if not line or "started successfully" in line:
                started = bool(line); break
        if started: break
    opts = {"binary": "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", "--no-first-run", "--no-default-browser-check", "--enable-precise-memory-info"]}
    caps = {"browserName": "chrome", "goog:chromeOptions": opts}
    if a.trace:
        if os.path.exists(a.out + ".trace.json"): os.remove(a.out + ".trace.json")
        opts["args"] += ["--trace-startup=toplevel,blink,cc,viz,gpu,renderer,renderer.scheduler,devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.frame,v8,mojom,ipc,net,skia,disabled-by-default-skia,benchmark,blink.net,loading",
                         "--trace-startup-file=" + a.out + ".trace.json", "--trace-startup-format=json", "--trace-startup-duration=%d" % (a.seconds + 20)]
    drv.session = drv.request("POST", "/session", {"capabilities": {"alwaysMatch": caps}}, timeout=60)["sessionId"]
    if a.inject == "loop":
        drv.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": pf.INJECT.replace("FRAME_COUNTER", '"loop"')})
    elif a.inject == "passive":
        drv.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": pf.INJECT.replace("FRAME_COUNTER", '"passive"')})
    drv.navigate(f"http://127.0.0.1:{a.port}/")
    for _ in range(150):
        p = drv.execute(pf.PROBE)
        if p and p["state"] == "connected" and p["markers"] >= a.devices: break
        time.sleep(0.2)
    time.sleep(3)
    drv.cdp("Performance.enable", {})
    if a.profile:
        drv.cdp("Profiler.enable", {}); drv.cdp("Profiler.setSamplingInterval", {"interval": 200}); drv.cdp("Profiler.start", {})
    procs = pf.chromium_processes(drv.proc.pid)
    c0 = {pid: cpu_ticks(pid) for pid in procs}
    m0 = {m["name"]: m["value"] for m in drv.cdp("Performance.getMetrics", {})["metrics"]}
    d0 = drv.execute("return [window.locstream.draws, window.__pf ? window.__pf.raf : null]")
    t0 = time.time(); mono0 = time.monotonic()
    time.sleep(a.seconds)
    wall = time.time() - t0; mono1 = time.monotonic()
    c1 = {pid: cpu_ticks(pid) for pid in procs}
    m1 = {m["name"]: m["value"] for m in drv.cdp("Performance.getMetrics", {})["metrics"]}
    d1 = drv.execute("return [window.locstream.draws, window.__pf ? window.__pf.raf : null]")
    cpu = collections.defaultdict(float)
    for pid, kind in procs.items():
        if c0[pid] is not None and c1[pid] is not None:
            cpu[kind] = max(cpu[kind], 100.0 * (c1[pid] - c0[pid]) / pf.CLK / wall) if kind == "renderer" else cpu[kind] + 100.0 * (c1[pid] - c0[pid]) / pf.CLK / wall
    print("cpu %:", {k: round(v, 1) for k, v in cpu.items()}, "load", open("/proc/loadavg").read().split()[:3])
    print("draws/s", (d1[0] - d0[0]) / wall, "raf/s", (d1[1] - d0[1]) / wall if d1[1] is not None else None)
    for k in ["TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration", "TaskOtherDuration", "ThreadTime", "ProcessTime", "LayoutCount", "RecalcStyleCount"]:
        if k in m1:
            v = (m1[k] - m0[k]) / wall
            print(f"  {k}: {v*100:.2f} %/s" if "Duration" in k or "Time" in k else f"  {k}: {v:.1f}/s")
    if a.profile:
        prof = drv.cdp("Profiler.stop", {})["profile"]
        json.dump(prof, open(a.out + ".cpuprofile", "w"))
        nodes = {n["id"]: n for n in prof["nodes"]}
        dt = collections.Counter()
        for sid, delta in zip(prof["samples"], prof["timeDeltas"]):
            dt[sid] += delta
        self_by = collections.Counter()
        for nid, t in dt.items():
            cf = nodes[nid]["callFrame"]
            self_by[f'{cf["functionName"] or "(anon)"} {os.path.basename(cf["url"])}:{cf["lineNumber"]+1}'] += t
        total = sum(self_by.values())
        print("JS profile self time (ms over %.1fs):" % (total / 1e6))
        for k, v in self_by.most_common(25):
            print(f"  {v/1000:8.1f} ms  {k}")
    if a.trace:
        for _ in range(60):
            if os.path.exists(a.out + ".trace.json") and os.path.getsize(a.out + ".trace.json") > 0:
                time.sleep(3); break
            time.sleep(1)
        json.dump({"mono0": mono0, "mono1": mono1, "procs": {str(k): v for k, v in procs.items()}}, open(a.out + ".window.json", "w"))
finally:
    if drv: drv.quit()
    pf.stop(sim, signal.SIGINT)
