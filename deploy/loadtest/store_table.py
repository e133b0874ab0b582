#!/usr/bin/env python3
"""Turns store-figures.sh's raw reports (one JSON object per line, labels RUN/STORE) into
results/store.md: per run and store the values of every repetition (min–max), their
median, and the median's ratio to --store memory's; for fanout-20k also the p99 ratio of each
ABBA cycle, beside memory against itself in the same cycle (the noise).
Usage: store_table.py store.jsonl DURATION SERVER_CORE GENERATOR_CORE"""
import json
import statistics
import sys
from collections import defaultdict


def spread(values, unit=""):
    values = sorted(v for v in values if v is not None)
    if not values:
        return "n/a", None
    median = statistics.median(values)
    text = f"{median:,.3g}{unit}" if len(values) == 1 else f"{median:,.3g}{unit} ({values[0]:,.3g}–{values[-1]:,.3g})"
    return text, median


def ratio(value, reference):
    return f"{value / reference:.2f}×" if value is not None and reference else "n/a"


def print_cycles(reports):
    """The fanout-20k p99 ratios per ABBA cycle (the runs in the order they ran)."""
    stores = sorted({r["label"].split("/")[1] for r in reports})
    length = 2 * len(stores)
    lines = []
    for start in range(0, len(reports) - length + 1, length):
        cycle = reports[start:start + length]
        p99 = defaultdict(list)
        for report in cycle:
            p99[report["label"].split("/")[1]].append((report.get("latency_ms") or {}).get("p99") or 0)
        memory = p99["memory"]
        if len(memory) != 2 or 0 in memory:
            continue
        others = ", ".join(f"{store} {statistics.mean(p99[store]) / statistics.mean(memory):.2f}×"
                           for store in stores if store != "memory")
        lines.append(f"- cycle {start // length + 1}: {others}; memory, second run against first: "
                     f"{memory[1] / memory[0]:.2f}×")
    if lines:
        print("\nfanout-20k p99 per ABBA cycle, against the mean of the cycle's two memory runs:\n")
        print("\n".join(lines))


def main():
    reports = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    groups = defaultdict(list)
    for report in reports:
        groups[tuple(report["label"].split("/"))].append(report)
    runs = sorted({label for label, _ in groups}, key=lambda name: (not name.startswith("fanout"), name))
    print(f"""# The embedded store against `--store memory`, same run

`deploy/loadtest/store-figures.sh`: release build on a 2-core VM, the server pinned to core
{sys.argv[3]} (the one that takes the disk's interrupts, when that can be told) and the generator
to core {sys.argv[4]}; {sys.argv[2]} s per run, stores in ABBA order (memory, sqlite, sqlite,
memory; sqlite on a tmpfs, a base build's sqlite and sqlite with `--store-cpus` set to the
generator's core, where measured, between them), each figure
the median with the min–max over the repetitions in parentheses, and the ratio of medians to
memory. Payload about 150 bytes of JSON per frame. Latency is publish to receipt on the
generator's clock; µs/frame is server CPU per delivered frame; "saturated" names the process
that ran out of CPU.

| run | store | offered/s | delivered/s | ratio | p50 ms | p99 ms | p99 ratio | µs/frame | saturated |
|---|---|---|---|---|---|---|---|---|---|""")
    for run in runs:
        if run in ("ack", "restart"):
            continue
        reference = groups.get((run, "memory"), [])
        _, ref_fps = spread([r.get("delivered_fps") for r in reference])
        _, ref_p99 = spread([(r.get("latency_ms") or {}).get("p99") for r in reference])
        for store in ("memory", "sqlite", "apart", "tmpfs", "base"):
            rows = groups.get((run, store), [])
            if not rows:
                continue
            fps_text, fps = spread([r.get("delivered_fps") for r in rows])
            p50_text, _ = spread([(r.get("latency_ms") or {}).get("p50") for r in rows])
            p99_text, p99 = spread([(r.get("latency_ms") or {}).get("p99") for r in rows])
            cost_text, _ = spread([r["server_cpu_percent"] * 10000 / r["delivered_fps"]
                                   for r in rows if r.get("delivered_fps") and r.get("server_cpu_percent")])
            saturated = ", ".join(sorted({str(r.get("saturated")) for r in rows}))
            offered = rows[0].get("expected_fps") or 0
            name = {"base": "sqlite, base build", "tmpfs": "sqlite on tmpfs",
                    "apart": f"sqlite, store threads on core {sys.argv[4]}"}.get(store, store)
            print(f"| {run} | {name} | {offered:,.0f} | {fps_text} | {ratio(fps, ref_fps)} | {p50_text} | "
                  f"{p99_text} | {ratio(p99, ref_p99)} | {cost_text} | {saturated} |")
    print_cycles([r for r in reports if r["label"].startswith("fanout-20k/")])
    print("""
Publish to `published` (one publisher, 500 publishes/s, one at a time, `"ack":true`):

| store | acks | p50 ms | p99 ms | max ms | p50 ratio | p99 ratio |
|---|---|---|---|---|---|---|""")
    reference = groups.get(("ack", "memory"), [])
    _, ref_p50 = spread([r["ack_ms"]["p50"] for r in reference])
    _, ref_p99 = spread([r["ack_ms"]["p99"] for r in reference])
    for store in ("memory", "sqlite", "full"):
        rows = groups.get(("ack", store), [])
        if not rows:
            continue
        p50_text, p50 = spread([r["ack_ms"]["p50"] for r in rows])
        p99_text, p99 = spread([r["ack_ms"]["p99"] for r in rows])
        max_text, _ = spread([r["ack_ms"]["max"] for r in rows])
        name = "sqlite, --sync full" if store == "full" else store
        print(f"| {name} | {sum(r['acks'] for r in rows):,} | {p50_text} | {p99_text} | {max_text} | "
              f"{ratio(p50, ref_p50)} | {ratio(p99, ref_p99)} |")
    restarts = groups.get(("restart", "sqlite"), [])
    if restarts:
        ready_text, _ = spread([r["ready_s"] for r in restarts], " s")
        rss_text, _ = spread([r["rss_kib"] / 1024 for r in restarts], " MiB")
        per_device = restarts[0]["disk_bytes"] / restarts[0]["devices"]
        print(f"""
A restart over a store of {restarts[0]['devices']:,} devices (one update each, filled by
`store-bench fill`): stream-server start to `/readyz` 200 in {ready_text} (polled every 0.1 s),
RSS then {rss_text}; {restarts[0]['disk_bytes'] / 1048576:,.0f} MiB on disk, {per_device:,.0f} bytes per device.""")


if __name__ == "__main__":
    main()
