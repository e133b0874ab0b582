#!/usr/bin/env python3
"""Writes results/report.md from the JSON lines of one run.sh invocation (runs.jsonl):
every figure with its conditions, which process saturated, and locstream/Mosquitto ratios
where the peer ran in the same invocation.

    report.py --runs runs.jsonl --out report.md [--metrics metrics-slow.txt] [--mode M] [--seconds N]
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys


def command(*argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def num(value, digits=0):
    if value is None:
        return "n/a"
    if digits == 0:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def lat(run, key):
    latency = run.get("latency_ms") or {}
    return num(latency.get(key), 2)


def per_frame_us(run):
    """Server CPU microseconds per delivered frame."""
    cpu, fps = run.get("server_cpu_percent"), run.get("delivered_fps")
    if cpu is None or not fps:
        return None
    return cpu / 100 / fps * 1e6


def conditions(run):
    c = run.get("conditions", {})
    parts = [f"S={c.get('subscribers')}", f"D={c.get('devices')}", f"K={c.get('per_subscriber')}",
             f"R={num(c.get('rate'))}/s", f"{c.get('duration_s')} s", f"{num(c.get('payload_bytes'))} B/frame"]
    if c.get("attrs_bytes"):
        parts.append(f"attrs {c['attrs_bytes']} B")
    if c.get("switch_ms"):
        parts.append(f"switch every {c['switch_ms']} ms")
    if c.get("slow"):
        parts.append(f"+{c['slow']} slow")
    return ", ".join(parts)


def saturation_note(run):
    who = run.get("saturated")
    if who == "server":
        return "server (≥90 % of its core)"
    if who == "bench":
        return "generator (≥90 % of its core)"
    return who or "n/a"


def fanout_table(runs):
    lines = [
        "| run | conditions | expected fps | delivered fps | p50 | p90 | p99 | p99.9 | max | missing | seq gaps |"
        " out of order | dups | server CPU % | generator CPU % | server µs/frame | saturated |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        lines.append(
            f"| {run.get('label')} | {conditions(run)} | {num(run.get('expected_fps'))} | {num(run.get('delivered_fps'))}"
            f" | {lat(run, 'p50')} | {lat(run, 'p90')} | {lat(run, 'p99')} | {lat(run, 'p999')} | {lat(run, 'max')}"
            f" | {num(run.get('missing'))} | {num(run.get('seq_gaps'))} | {num(run.get('out_of_order'))}"
            f" | {num(run.get('duplicates'))} | {num(run.get('server_cpu_percent'), 1)}"
            f" | {num(run.get('bench_cpu_percent'), 1)} | {num(per_frame_us(run), 2)} | {saturation_note(run)} |")
    return lines


def stalls(results_dir, label):
    """Seconds of the publishing window in which nothing was delivered although frames were
    expected, with the server's CPU in them: a stalled server, not a slow generator."""
    path = os.path.join(results_dir, f"timeline-{label}.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [row for row in rows if (row.get("expected") or 0) > 0 and (row.get("frames") or 0) == 0]


def ratio(a, b, digits=2):
    if a is None or b in (None, 0):
        return "n/a"
    return f"{a / b:.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--metrics")
    parser.add_argument("--mode", default="standard")
    parser.add_argument("--seconds", type=int)
    parser.add_argument("--load-before", help="the load average when the runs started")
    parser.add_argument("--binaries", help="where stream-server and stream-client came from")
    parser.add_argument("--note", help="free text for the header (which build, why)")
    args = parser.parse_args()
    runs = []
    with open(args.runs) as f:
        for line in f:
            if line.strip():
                runs.append(json.loads(line))
    by_label = {run.get("label"): run for run in runs}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(args.out))))
    revision = command("git", "-C", root, "describe", "--always", "--dirty")
    out = [
        f"# locstream load test ({args.mode} mode)", "",
        f"Run {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} on "
        f"{os.cpu_count()} cores, Linux {platform.release()}, tree {revision or 'unknown'}, "
        f"libwebsockets {command('dpkg-query', '-W', '-f=${Version}', 'libwebsockets17') or 'n/a'}"
        + (f", {args.seconds} s in all" if args.seconds else "") + ".",
        "",
        f"Binaries: `{args.binaries or 'n/a'}`." + (f" {args.note}" if args.note else ""),
        "",
        f"Load average when the runs started: {args.load_before or 'n/a'}; when they ended: "
        f"{' '.join(open('/proc/loadavg').read().split()[0:3])}. Both cores are shared with whatever else runs on the machine;",
        "a load average above 0.5 or so means other processes took time from the pinned server and bench.",
        "",
        "Written by `deploy/loadtest/run.sh` (its log is `run.log`); the raw JSON lines are `runs.jsonl`, the",
        "per-second timelines `timeline-*.jsonl`, the plots `plot-*.png`.",
        "",
        "How it was measured:",
        "- `stream-server` (release build, embedded broker) on 127.0.0.1, pinned to core 0 with `taskset -c 0`,",
        "  a fresh process per scenario. `stream-client bench` (release) pinned to core 1, its threads SCHED_BATCH,",
        "  connections spread over source addresses 127.0.0.1..N.",
        "- Latency is receive time minus publish time on the same host clock: `ts` is whole milliseconds, and each",
        "  publish batch gets a millisecond of its own whose exact microsecond the publisher records, so the figures",
        "  are in microseconds. Publishing is in batches every 5 ms, so a frame waits behind the rest of its batch:",
        "  at high fan-out that queueing, not the network, sets p50.",
        "- CPU % is utime+stime from /proc over the publishing window, in percent of one core; a process at 90 % or",
        "  more of its pinned core is the one that saturated. Server µs/frame = server CPU / delivered frames.",
        "- delivered fps counts frames received inside the publishing window; missing counts expected frames that",
        "  never arrived (after a drain of a few seconds).",
        "",
    ]
    fanout = [r for r in runs if r.get("scenario") == "fanout" and not r.get("peer")
              and not str(r.get("label", "")).startswith("peer")]
    if fanout:
        out += ["## Fanout", ""] + fanout_table(fanout) + [""]
        peak = by_label.get("fanout-peak")
        if peak:
            out += [
                f"fanout-peak asks for {num(peak.get('expected_fps'))} frames/s; the bench received "
                f"{num(peak.get('delivered_fps'))} frames/s with the server at {num(peak.get('server_cpu_percent'), 1)} %"
                f" and the bench at {num(peak.get('bench_cpu_percent'), 1)} % of their cores: saturated "
                f"{saturation_note(peak)}.", ""]
    churn = [r for r in runs if r.get("scenario") == "churn"]
    if churn:
        out += ["## Churn (subscription switches under load)", ""] + fanout_table(churn) + [""]
        out += ["| run | switches sent | acknowledged | switch ack p50 ms | p99 ms | max ms | stale frames after ack |",
                "|---|---|---|---|---|---|---|"]
        for run in churn:
            ack = run.get("switch_ack_ms") or {}
            out.append(f"| {run.get('label')} | {num(run.get('switches_sent'))} | {num(ack.get('count'))} | "
                       f"{num(ack.get('p50'), 2)} | {num(ack.get('p99'), 2)} | {num(ack.get('max'), 2)} | "
                       f"{num(run.get('stale_after_ack'))} |")
        out.append("")
    slow = [r for r in runs if r.get("scenario") == "slow"]
    if slow:
        out += ["## Slow consumers", ""] + fanout_table(slow) + [""]
        for run in slow:
            base = run.get("baseline") or {}
            base_latency = base.get("latency_ms") or {}
            state = run.get("slow") or {}
            codes = ", ".join(f"{n}× close {code}" for code, n in (state.get("closed_by_code") or {}).items())
            out += [
                f"- Readers beside {state.get('connections')} non-reading subscribers: p50 {lat(run, 'p50')} ms, "
                f"p99 {lat(run, 'p99')} ms, {num(run.get('delivered_fps'))} frames/s; the same load without them "
                f"(baseline run first): p50 {num(base_latency.get('p50'), 2)} ms, p99 {num(base_latency.get('p99'), 2)}"
                f" ms, {num(base.get('delivered_fps'))} frames/s (p99 ratio with/without: "
                f"{ratio((run.get('latency_ms') or {}).get('p99'), base_latency.get('p99'))}).",
                f"- The slow ones: {state.get('open_at_end')} still open at the end"
                + (f", closed: {codes}" if codes else ", none closed by the server")
                + f"; when finally read they held {num(state.get('frames_read_at_end'))} of "
                f"{num(state.get('expected_frames'))} frames, with {num(state.get('seq_gaps'))} seq gaps "
                f"({num(state.get('seq_skipped'))} updates skipped by conflation), "
                f"{num(state.get('out_of_order'))} out of order, {num(state.get('duplicates'))} duplicates.",
            ]
        if args.metrics and os.path.exists(args.metrics):
            with open(args.metrics) as f:
                metrics = [line.strip() for line in f if line.strip()]
            if metrics:
                out += ["- Server metrics after the slow run:", "", "```"] + metrics + ["```"]
        out.append("")
    capacity = [r for r in runs if r.get("scenario") == "capacity"]
    for run in capacity:
        cap = run.get("capacity") or {}
        out += ["## Capacity (idle subscribed connections)", "",
                f"Connections opened {cap and run['conditions'].get('step')} at a time, each subscribed to one device"
                f" nobody publishes for; RSS sampled {run['conditions'].get('settle_ms')} ms after each step. "
                f"Connect rate {num(run.get('connects_per_s'))}/s, {num(run.get('connect_failures'))} failures.", "",
                "| connections | server RSS KiB | bench RSS KiB |", "|---|---|---|"]
        for step in cap.get("steps", []):
            out.append(f"| {num(step.get('connections'))} | {num(step.get('server_rss_kib'))} | "
                       f"{num(step.get('bench_rss_kib'))} |")
        out += ["", f"Slope (least squares): **{num(cap.get('kib_per_connection'), 2)} KiB per connection** for the "
                    f"server, {num(cap.get('bench_kib_per_connection'), 2)} KiB for the bench. The open-file limit "
                    "(20,000 here) caps one process; beyond it, project from the slope.", ""]
    for run in [r for r in runs if r.get("scenario") == "storm"]:
        out += ["## Storm (connect, close all, reconnect all at once)", "",
                f"{num(run['conditions'].get('connections'))} connections, {run['conditions'].get('parallel_connects')}"
                f" handshakes in flight: first wave **{num(run.get('connects_per_s'))} connects/s**, reconnect wave "
                f"**{num(run.get('reconnects_per_s'))} connects/s**, {num(run.get('connect_failures'))} failures, "
                f"{num(run.get('disconnects'))} connections not closed in time; server CPU "
                f"{num(run.get('server_cpu_percent'), 1)} %, bench CPU {num(run.get('bench_cpu_percent'), 1)} % during"
                f" the waves (saturated: {saturation_note(run)}).", ""]
        for sample in run.get("error_samples") or []:
            out.append(f"- {sample}")
    pairs = [(by_label.get(f"{p}-locstream"), by_label.get(f"{p}-mosquitto")) for p in ("peer", "peer-high")]
    pairs = [(a, b) for a, b in pairs if a and b]
    if pairs:
        out += ["## Side by side with Mosquitto (same run, same fanout shape)", "",
                "Mosquitto 2.0.11 from Debian, websockets listener (plus the plain MQTT listener it needs), one topic"
                " per device, QoS 0, pinned to core 0; load from one Python process (paho-mqtt over WebSocket) on"
                " core 1. locstream is loaded by `stream-client bench` with the same S, D, K, R and duration.", ""]
        out += fanout_table([x for pair in pairs for x in pair]) + [""]
        out += ["| shape | delivered fps ratio | server µs/frame ratio | p50 ratio | p99 ratio |", "|---|---|---|---|---|"]
        for loc, mq in pairs:
            out.append(
                f"| {loc['label'].replace('-locstream', '')} | "
                f"{ratio(loc.get('delivered_fps'), mq.get('delivered_fps'))} | "
                f"{ratio(per_frame_us(loc), per_frame_us(mq))} | "
                f"{ratio((loc.get('latency_ms') or {}).get('p50'), (mq.get('latency_ms') or {}).get('p50'))} | "
                f"{ratio((loc.get('latency_ms') or {}).get('p99'), (mq.get('latency_ms') or {}).get('p99'))} |")
        out += ["", "Ratios are locstream / Mosquitto: above 1 for delivered fps, below 1 for CPU per frame and"
                " latency, favour locstream. The two generators differ (Swift bench against a Python process), so"
                " the latency ratio includes the clients' own costs; server µs per delivered frame does not.", ""]
        for loc, mq in pairs:
            generator = mq.get("bench_cpu_percent")
            short = (mq.get("delivered_fps") or 0) < 0.97 * (mq.get("expected_fps") or 0)
            if (generator is not None and generator >= 90) or short:
                out.append(
                    f"- {mq['label']}: Mosquitto delivered {num(mq.get('delivered_fps'))} of "
                    f"{num(mq.get('expected_fps'))} frames/s with the broker at "
                    f"{num(mq.get('server_cpu_percent'), 1)} % and the Python generator at {num(generator, 1)} % of"
                    " its core. One Python process tops out near 50–60k frames/s (less with paho's per-message "
                    "overhead in this shape), so here the generator, not necessarily the broker, limits the peer.")
        out.append("")
    results_dir = os.path.dirname(os.path.abspath(args.out))
    stalled = [(run.get("label"), stalls(results_dir, run.get("label"))) for run in runs]
    stalled = [(label, rows) for label, rows in stalled if rows]
    if stalled:
        out += ["## Stalls", ""]
        for label, rows in stalled:
            cpu = [row.get("server_cpu_percent") for row in rows if row.get("server_cpu_percent") is not None]
            out.append(
                f"- {label}: {len(rows)} second(s) of the window delivered nothing although frames were expected"
                f" (seconds {rows[0]['second']}..{rows[-1]['second']}), the server at "
                f"{num(min(cpu), 0) if cpu else 'n/a'}–{num(max(cpu), 0) if cpu else 'n/a'} % CPU and the generator"
                f" at {num(max((row.get('bench_cpu_percent') or 0) for row in rows), 0)} % at most.")
        out.append("")
    plots = sorted(p for p in os.listdir(os.path.dirname(os.path.abspath(args.out))) if p.startswith("plot-"))
    if plots:
        out += ["## Plots", ""] + [f"- [{p}]({p})" for p in plots] + [""]
    with open(args.out, "w") as f:
        f.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
