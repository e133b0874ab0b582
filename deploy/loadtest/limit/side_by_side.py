#!/usr/bin/env python3
"""Driver for side-by-side fan-out runs: locstream (stream-server), the C limit kit servers,
and Mosquitto, all received by the same native `gen` (limit/gen.c; --mqtt for Mosquitto).

Server pinned to CPU 0 (unless --unpinned), gen (and the external publisher, unless --pub-cpu, or
`tick` beside a C server with --ref-neighbour) to CPU 1.
Each run: quiet gate, fresh server, gen connects S subscribers, publisher starts once gen has
connected, gen measures a window, the driver samples per-thread CPU and context switches of the
server over the run, scrapes locstream /metrics, kills everything it started by PID.
One JSON line per run is appended to --out. Loopback only; every process under `timeout`.
"""
import argparse, json, os, re, signal, socket, subprocess, sys, threading, time, urllib.request

import send_rhythm

HERE = os.path.dirname(os.path.abspath(__file__))
LIM = HERE
BIN = os.environ.get("LOCSTREAM_BIN", ".build/release")  # run from the project root
HZ = os.sysconf("SC_CLK_TCK")
LOC_SUB = '{"op":"subscribe","sub":"s","devices":["veh-%d"]}'
MINE = set()

C_SERVERS = {
    "lws": ["./lws_fanout"],
    "lws-batch": ["./lws_fanout", "--batch", "--ring", "512"],
    "lws-uv": ["./lws_fanout", "--uv"],
    "raw-batch": ["./epoll_fanout", "--mode", "batch"],
    "raw-write": ["./epoll_fanout", "--mode", "write"],
}


def loc_cmd(port, loop, extra):
    return [BIN + "/stream-server", "--host", "127.0.0.1", "--port", str(port), "--event-loop", loop,
            "--max-connections", "20000", "--max-connections-per-ip", "20000", "--publish-rate", "10000000",
            "--publish-burst", "10000000", "--log-level", "warning"] + extra


def machine_busy(interval=1.0):
    def rd():
        v = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
        return v[0] + v[1] + v[2] + v[5] + v[6], sum(v)
    b0, t0 = rd()
    time.sleep(interval)
    b1, t1 = rd()
    return 100.0 * (os.cpu_count() or 1) * (b1 - b0) / max(1, t1 - t0)


def quiet_wait(limit, max_wait=180):
    t = time.time()
    b = machine_busy()
    while b >= limit and time.time() - t < max_wait:
        print(f"  (machine busy {b:.0f}% of a core, waiting)", flush=True)
        time.sleep(3)
        b = machine_busy()
    return b


def proc_times():
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            s = open(f"/proc/{d}/stat").read()
        except OSError:
            continue
        r = s.rfind(")")
        f = s[r + 2:].split()
        out[int(d)] = (s[s.find("(") + 1:r], int(f[11]) + int(f[12]), int(f[1]))
    return out


def tasks(pid):
    """{tid: (comm, utime+stime ticks, vol, nonvol, processor)} of every thread of pid."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for t in tids:
        try:
            s = open(f"/proc/{pid}/task/{t}/stat").read()
            st = open(f"/proc/{pid}/task/{t}/status").read()
        except OSError:
            continue
        r = s.rfind(")")
        f = s[r + 2:].split()
        vol = int(re.search(r"voluntary_ctxt_switches:\s+(\d+)", st).group(1))
        nv = int(re.search(r"nonvoluntary_ctxt_switches:\s+(\d+)", st).group(1))
        out[int(t)] = (s[s.find("(") + 1:r], int(f[11]) + int(f[12]), vol, nv, int(f[36]))
    return out


def classify(pid):
    """Role of each thread of an idle server, from the syscall it waits in."""
    roles = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            comm = open(f"/proc/{pid}/task/{t}/comm").read().strip()
            nr = int(open(f"/proc/{pid}/task/{t}/syscall").read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        if int(t) == pid:
            role = "main"
        elif comm.endswith("overcommit"):
            role = "dispatch-overcommit"
        elif nr in (232, 281, 7, 271):
            role = "lws-service"
        else:
            role = "swift-pool"
        roles[int(t)] = role
    return roles


def rss_kb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return -1
    return -1


def cpu_ticks(pid):
    try:
        s = open(f"/proc/{pid}/stat").read()
        f = s[s.rfind(")") + 2:].split()
        return int(f[11]) + int(f[12])
    except OSError:
        return None


def wakeup_ipis():
    """Per-CPU function-call interrupts so far (/proc/interrupts CAL): on this kernel, how
    often a thread on one core woke a sleeping thread on another (ttwu_queue_wakelist)."""
    try:
        for line in open("/proc/interrupts"):
            f = line.split()
            if f and f[0] == "CAL:":
                return [int(x) for x in f[1:] if x.isdigit()]
    except OSError:
        pass
    return None


def guest_halt_poll_ns():
    """How long an idle core of this VM polls before it halts (the guest's cpuidle
    haltpoll driver), or None off a VM: at 0, every wake-up of a sleeping thread on the
    other core costs an interrupt to a halted virtual CPU."""
    try:
        return int(open("/sys/module/haltpoll/parameters/guest_halt_poll_ns").read())
    except (OSError, ValueError):
        return None


def wait_port(port, timeout=15.0):
    t = time.time()
    while time.time() - t < timeout:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def child_of(pid, timeout=3.0):
    """The process `timeout` started (taskset execs into the server)."""
    t = time.time()
    while time.time() - t < timeout:
        try:
            kids = open(f"/proc/{pid}/task/{pid}/children").read().split()
        except OSError:
            kids = []
        if kids:
            return int(kids[0])
        time.sleep(0.02)
    return None


def scrape(port):
    try:
        txt = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=3).read().decode()
    except Exception as e:  # noqa
        return {"metrics_error": str(e)}
    out = {}
    for line in txt.splitlines():
        if line.startswith("locstream_frames_dropped_total") or line.startswith("locstream_frames_sent_total") \
                or line.startswith("locstream_publish_total") or line.startswith("locstream_outbox_frames_per_write_") or line.startswith("locstream_connections "):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def parse_c_counters(text, t0, t1):
    keys = ("pub", "enq", "sent", "writes", "drops", "iters", "eagain")
    agg = {k: 0 for k in keys}
    lag, dt_sum, prev = 0, 0, None
    for line in text.splitlines():
        if "ts_us=" not in line:
            continue
        kv = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
        ts = int(kv["ts_us"])
        dt = int(kv.get("dt_us", ts - prev if prev else 1_000_000))
        prev = ts
        if t0 <= ts - dt // 2 <= t1:
            dt_sum += dt
            lag = max(lag, int(kv.get("max_lag_us", 0)))
            for k in keys:
                agg[k] += int(kv.get(k, 0))
    out = {f"srv_{k}_per_s": (round(agg[k] * 1e6 / dt_sum) if dt_sum else None) for k in keys}
    out["srv_max_lag_us"] = lag
    return out


def kill(pid, sig=signal.SIGTERM):
    if pid:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def run_once(a, kind, S, R, port):
    warm, dur, settle = a.warmup, a.duration, a.settle
    total = int(warm + dur + settle + 120)
    pin = [] if a.unpinned else ["taskset", "-c", "0"]
    log = open(os.path.join(HERE, "logs", f"{kind}-S{S}-R{R}-{int(time.time())}.log"), "w+")
    env = dict(os.environ)
    ext_pub = kind.startswith("loc") or kind == "mosq"
    rhythm_path = os.path.join(HERE, "logs", f"rhythm-{kind}-S{S}-R{R}.data")
    mqtt_ws = port + 1
    if kind in C_SERVERS:
        cmd = ["timeout", str(total)] + pin + C_SERVERS[kind] + ["-p", str(port), "-D", str(a.D), "-R", str(R),
                                                                 "--max-seconds", str(total - 10)]
        cwd = LIM
    elif kind == "mosq":
        conf = os.path.join(HERE, "logs", f"mosq-{port}.conf")
        open(conf, "w").write(
            "per_listener_settings false\nallow_anonymous true\npersistence false\nlog_dest stderr\n"
            "log_type error\nlog_type warning\nmax_queued_messages 1000\n"
            f"listener {port} 127.0.0.1\nlistener {mqtt_ws} 127.0.0.1\nprotocol websockets\n")
        cmd = ["timeout", str(total)] + pin + ["mosquitto", "-c", conf]
        cwd = HERE
    else:
        loop = "poll" if kind.startswith("loc-poll") else "libev"
        extra = a.srv_extra.split() if a.srv_extra else []
        cmd = ["timeout", str(total)] + pin + loc_cmd(port, loop, extra)
        cwd = HERE
    sp = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=log, env=env, preexec_fn=raise_nofile)
    MINE.add(sp.pid)
    spid = child_of(sp.pid)
    MINE.add(spid)
    gport = mqtt_ws if kind == "mosq" else port
    if not wait_port(gport):
        kill(spid)
        raise RuntimeError("server did not listen")
    time.sleep(0.5)
    rss_fresh = rss_kb(spid)
    roles = classify(spid)
    nsrc = max(1, (S + 999) // 1000)
    gen = ["timeout", str(total), "taskset", "-c", "1", "./gen", "-p", str(gport), "-S", str(S), "-D", str(a.D),
           "--src", str(nsrc), "--per-src", "1000", "-w", str(warm), "-d", str(dur), "--settle", str(settle),
           "--pid", str(spid), "--label", f"{kind} S={S} R={R}"]
    if kind.startswith("loc"):
        path = "/v1/stream" + (f"?token={a.token}" if a.token else "")
        gen += ["-P", path, "--proto", "locstream.v1", "--sub", LOC_SUB]
    elif kind == "mosq":
        gen += ["-P", "/mqtt", "--proto", "mqtt", "--mqtt", "--sub", "bench/veh-%d"]
    samples = []  # (t, tasks, pubticks)
    stop = threading.Event()
    pubp = [None]
    perfp = [None]
    t_open = [None]
    gen_err = []

    def sampler():
        while not stop.is_set():
            pt = cpu_ticks(pubp[1]) if len(pubp) > 1 and pubp[1] else None
            samples.append((time.time(), tasks(spid), pt, wakeup_ipis()))
            stop.wait(0.5)

    p0 = proc_times()
    t0 = time.time()
    g = subprocess.Popen(gen, cwd=LIM, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=raise_nofile)
    MINE.add(g.pid)
    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    for line in g.stderr:
        gen_err.append(line.rstrip())
        if " open," in line and t_open[0] is None:
            t_open[0] = time.time()
            if ext_pub and R > 0:
                pcmd = ["timeout", str(total), "taskset", "-c", str(a.pub_cpu), os.path.join(HERE, "pub"), "-p", str(port),
                        "-R", str(R), "-D", str(a.D), "-t", str(settle + warm + dur + 2), "--cycle-us",
                        str(a.cycle_us)]
                if kind == "mosq":
                    pcmd += ["--mqtt"]
                if a.token:
                    pcmd += ["--token", a.token]
            elif a.ref_neighbour and R > 0:
                # pub's schedule on gen's core, for a server that makes its updates in-process
                pcmd = ["timeout", str(total), "taskset", "-c", str(a.pub_cpu), os.path.join(HERE, "tick"), "-t",
                        str(settle + warm + dur + 2), "--cycle-us", str(a.cycle_us)]
            else:
                pcmd = None
            if pcmd:
                pubp[0] = subprocess.Popen(pcmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                MINE.add(pubp[0].pid)
                pubp.append(child_of(pubp[0].pid))
                MINE.add(pubp[-1])
            if a.perf_record:
                pc = ["timeout", str(total), "perf", "record", "-F", "1999", "-g", "-p", str(spid), "-o",
                      os.path.join(HERE, "logs", f"perf-{kind}-S{S}-R{R}.data"), "--", "sleep", str(dur - 2)]
                perfp[0] = threading.Timer(settle + warm + 1.0, lambda: perf_start(pc, perfp))
                perfp[0].start()
            if a.perf_rhythm:
                events = ",".join("syscalls:sys_enter_" + s for s in send_rhythm.EVENTS)
                pc = ["timeout", str(total), "perf", "record", "-e", events, "-p", str(spid), "-o",
                      rhythm_path, "--", "sleep", "1"]
                perfp[0] = threading.Timer(settle + warm + 1.0, lambda: perf_start(pc, perfp))
                perfp[0].start()
            if a.perf_syscalls:
                # window starts settle+warmup after this; count for dur-1 s inside it
                delay = settle + warm + 0.5
                events = ",".join("syscalls:sys_enter_" + s for s in
                                  ("sendto", "write", "writev", "sendmsg", "epoll_ctl", "epoll_wait", "epoll_pwait",
                                   "futex", "read", "recvfrom", "poll", "ppoll", "eventfd2")) + \
                    ",context-switches,cpu-migrations"
                pc = ["timeout", str(total), "perf", "stat", "--per-thread", "-x", ",", "-e", events, "-p", str(spid),
                      "-o", os.path.join(HERE, "logs", f"perfstat-{kind}-S{S}-R{R}.csv"), "--", "sleep",
                      str(dur - 1)]
                perfp[0] = threading.Timer(delay, lambda: perf_start(pc, perfp))
                perfp[0].start()
    out, _ = g.communicate(timeout=total)
    t1 = time.time()
    p1 = proc_times()
    stop.set()
    th.join()
    metrics = scrape(port) if kind.startswith("loc") else {}
    rss_end = rss_kb(spid)
    pub_res = {}
    if pubp[0]:
        try:
            po, pe = pubp[0].communicate(timeout=30)
            pub_res = json.loads(po.strip().splitlines()[-1]) if po.strip() else {"pub_stderr": pe[-300:]}
            if pe.strip():
                pub_res["pub_stderr"] = pe.strip()[-300:]
        except Exception as e:  # noqa
            kill(pubp[0].pid)
            pub_res = {"pub_error": str(e)}
    if isinstance(perfp[0], threading.Timer):
        perfp[0].cancel()
    perf_res = None
    if a.perf_record and len(perfp) > 1:
        try:
            perfp[1].wait(timeout=60)
        except Exception:
            pass
    rhythm = None
    if a.perf_rhythm and len(perfp) > 1:
        try:
            perfp[1].wait(timeout=30)
            rhythm = send_rhythm.summary(send_rhythm.events(rhythm_path))
        except Exception as e:  # noqa
            rhythm = {"error": str(e)}
    if a.perf_syscalls:
        time.sleep(0.5)
        if len(perfp) > 1 and perfp[1]:
            try:
                perfp[1].wait(timeout=30)
            except Exception:
                pass
        perf_res = read_perfstat(os.path.join(HERE, "logs", f"perfstat-{kind}-S{S}-R{R}.csv"))
    kill(spid)
    try:
        sp.wait(timeout=10)
    except subprocess.TimeoutExpired:
        kill(spid, signal.SIGKILL)
        sp.wait(timeout=10)
    log.seek(0)
    srv_text = log.read()
    log.close()
    if g.returncode != 0 or not out.strip():
        raise RuntimeError(f"gen failed rc={g.returncode}: {gen_err[-5:]}")
    res = json.loads(out.strip().splitlines()[-1])
    w0, w1 = res["win_start_us"] / 1e6, res["win_end_us"] / 1e6
    # per-thread CPU and context switches over the window (nearest samples inside it)
    inside = [s for s in samples if w0 - 0.3 <= s[0] <= w1 + 0.3]
    if len(inside) >= 2:
        sa, sb = inside[0], inside[-1]
        span = sb[0] - sa[0]
        frames = res["frames_per_s"] * span
        th_rows = {}
        vol = nv = 0
        for tid, (comm, tk, v, n, cpu) in sb[1].items():
            base = sa[1].get(tid, (comm, 0, 0, 0, cpu))
            d = tk - base[1]
            vol += v - base[2]
            nv += n - base[3]
            key = roles.get(tid, "swift-pool(new)") if kind.startswith("loc") else comm
            r = th_rows.setdefault(key, [0, 0, 0, 0])
            r[0] += 1
            r[1] += d
            r[2] += v - base[2]
            r[3] += n - base[3]
        res["threads"] = {k: {"n": v[0], "cpu_pct": round(100.0 * v[1] / HZ / span, 1),
                              "us_per_frame": round(1e6 * v[1] / HZ / frames, 3) if frames else None,
                              "vol_cs_per_s": round(v[2] / span), "nonvol_cs_per_s": round(v[3] / span)}
                          for k, v in sorted(th_rows.items(), key=lambda kv: -kv[1][1])}
        res["vol_cs_per_frame"] = round(vol / frames, 4) if frames else None
        res["nonvol_cs_per_frame"] = round(nv / frames, 4) if frames else None
        res["vol_cs_per_s"] = round(vol / span)
        res["server_threads"] = len(sb[1])
        if sa[3] and sb[3] and len(sb[3]) > 1 and frames:
            # Wake-ups sent to gen's core (a sleeping gen woken by a frame, mostly).
            res["gen_core_ipis_per_frame"] = round((sb[3][1] - sa[3][1]) / frames, 4)
        if sa[2] is not None and sb[2] is not None:
            res["pub_cpu_pct"] = round(100.0 * (sb[2] - sa[2]) / HZ / span, 1)
    res.update(pub_res)
    res.update(metrics)
    if kind in C_SERVERS:
        res.update(parse_c_counters(srv_text, res["win_start_us"], res["win_end_us"]))
    if rhythm:
        res["rhythm"] = rhythm
    if perf_res:
        res["perf"] = perf_res
        secs = dur - 1
        fr = res["frames_per_s"] * secs
        res["syscalls_per_frame"] = {k: round(v / fr, 4) for k, v in perf_res.items() if fr}
    other, top = 0, []
    mine = MINE | {os.getpid()}
    if pubp[0]:
        mine.add(pubp[0].pid)
    for pid, (name, tk, ppid) in p1.items():
        if pid in mine or name in ("gen", "timeout", "pub", "tick", "perf", "sleep") or ppid in mine:
            continue
        d = tk - p0.get(pid, (name, 0, 0))[1]
        if d > 0:
            other += d
            top.append((d, name))
    span = t1 - t0
    res["other_proc_pct"] = round(100.0 * other / HZ / span, 1)
    res["other_top"] = [f"{n}:{round(100.0 * d / HZ / span, 1)}" for d, n in sorted(top, reverse=True)[:3]]
    res.update({"server": kind, "srv_extra": a.srv_extra, "R": R, "expected_per_s": R * S / a.D,
                "delivered_ratio": round(res["frames_per_s"] / (R * S / a.D), 4) if R else None,
                "pinned": not a.unpinned, "pub_cpu": a.pub_cpu if ext_pub else None, "cycle_us": a.cycle_us if ext_pub else 1000,
                "rss_fresh_kb": rss_fresh, "roles": {str(k): v for k, v in roles.items()}, "rss_end_kb": rss_end,
                "bytes_per_conn": round((rss_end - rss_fresh) * 1024 / max(1, res["open"])),
                "frame_bytes": round(res["MB_per_s"] * 1e6 / res["frames_per_s"], 1) if res["frames_per_s"] else None,
                "guest_halt_poll_ns": guest_halt_poll_ns(),
                "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
                "loadavg": open("/proc/loadavg").read().split()[:3], "t": time.strftime("%H:%M:%S")})
    if a.note:
        res["note"] = a.note
    return res


def perf_start(pc, holder):
    p = subprocess.Popen(pc, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    MINE.add(p.pid)
    holder.append(p)


def read_perfstat(path):
    out = {}
    try:
        for line in open(path):
            if not line.strip() or line.startswith("#"):
                continue
            f = line.strip().split(",")
            # per-thread: comm-tid,count,unit,event,...
            try:
                cnt = float(f[1])
            except (ValueError, IndexError):
                continue
            ev = f[3].replace("syscalls:sys_enter_", "")
            out[ev] = out.get(ev, 0) + cnt
    except OSError:
        return None
    return out


def raise_nofile():
    import resource
    resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))


CONFL = 'locstream_frames_dropped_total{reason="conflated"}'


def brief(r):
    th = r.get("threads", {})
    ths = " ".join(f"{k}x{v['n']}:{v['cpu_pct']}%" for k, v in list(th.items())[:4])
    return (f"{r['server']:<10} S={r['S']:<5} R={r['R']:<6} exp={r['expected_per_s']:>8.0f} got={r['frames_per_s']:>8.0f} "
            f"({r['delivered_ratio']}) srv={r['server_cpu_pct']:5.1f}% {r['server_us_per_frame']:.3f}us/f "
            f"gen={r['gen_cpu_pct']:5.1f}% pub={r.get('pub_cpu_pct')}% p50={r['lat_p50_ms']:.3f} p99={r['lat_p99_ms']:.3f} "
            f"cmin/max={r['conn_frames_min']}/{r['conn_frames_max']} drops={r.get('srv_drops_per_s')}"
            f"{r.get(CONFL, '')} vcs/f={r.get('vol_cs_per_frame')} ipi/f={r.get('gen_core_ipis_per_frame')} "
            f"other={r['other_proc_pct']}% [{ths}] {r['uptime'][-40:]}{rhythm_brief(r.get('rhythm'))}")


def rhythm_brief(rhythm):
    if not rhythm or "error" in rhythm:
        return f" rhythm={rhythm}" if rhythm else ""
    return (f" sends/burst={rhythm['sends_per_burst']} spacing={rhythm['spacing_us_p50']}us "
            f"lead={rhythm['lead_us_p50']}us waits={rhythm['loop_waits']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kinds", help="comma list: loc-libev,loc-poll,lws,lws-batch,lws-uv,raw-batch,mosq")
    ap.add_argument("-S", type=int, default=1000)
    ap.add_argument("-D", type=int, default=100)
    ap.add_argument("-R", default="1000", help="updates/s; comma list for a sweep")
    ap.add_argument("-w", "--warmup", type=float, default=4)
    ap.add_argument("-d", "--duration", type=float, default=10)
    ap.add_argument("--settle", type=float, default=1)
    ap.add_argument("--port", type=int, default=20010)
    ap.add_argument("--cycle-us", type=int, default=1000)
    ap.add_argument("--srv-extra", default="")
    ap.add_argument("--token", default=None)
    ap.add_argument("--unpinned", action="store_true")
    perf = ap.add_mutually_exclusive_group()
    perf.add_argument("--perf-syscalls", action="store_true")
    perf.add_argument("--perf-record", action="store_true")
    perf.add_argument("--perf-rhythm", action="store_true",
                      help="record the server's sends, reads and waits for 1 s and add their rhythm (send_rhythm.py)")
    ap.add_argument("--ref-neighbour", action="store_true",
                    help="beside a C server, run tick on the publisher's core with pub's --cycle-us: the wake-ups "
                         "locstream's publisher makes there (its CPU is reported as pub_cpu_pct)")
    ap.add_argument("--pub-cpu", type=int, default=1,
                    help="core of the external publisher (default 1, beside gen; 0 puts it beside the server)")
    ap.add_argument("--quiet-limit", type=float, default=25)
    ap.add_argument("--noise", type=float, default=15)
    ap.add_argument("--repeats", type=int, default=1, help="extra tries of a noisy run")
    ap.add_argument("--note", default="")
    ap.add_argument("--out", default=os.path.join(HERE, "runs.jsonl"))
    a = ap.parse_args()
    os.makedirs(os.path.join(HERE, "logs"), exist_ok=True)
    raise_nofile()
    port = a.port
    for R in [int(x) for x in a.R.split(",")]:
        for kind in a.kinds.split(","):
            for attempt in range(1 + a.repeats):
                pre = quiet_wait(a.quiet_limit)
                try:
                    r = run_once(a, kind, a.S, R, port)
                except Exception as e:  # noqa
                    print(f"{kind} S={a.S} R={R}: FAILED {e}", flush=True)
                    port += 2
                    break
                port += 2
                if port > 20990:
                    port = a.port
                r["pre_busy_pct"] = round(pre, 1)
                r["attempt"] = attempt
                r["noisy"] = r["other_proc_pct"] > a.noise
                with open(a.out, "a") as f:
                    f.write(json.dumps(r) + "\n")
                print(brief(r), flush=True)
                if not r["noisy"]:
                    break
                print("  noisy, repeating", flush=True)
                time.sleep(2)


if __name__ == "__main__":
    main()
