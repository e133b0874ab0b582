#!/usr/bin/env python3
"""PNG plots of bench timelines (`stream-client bench --timeline FILE`, or mqtt_fanout.py's).

For each timeline-NAME.jsonl it writes plot-NAME.png: latency percentiles per second (log
scale) above delivered against expected frames per second, with the server's and the
generator's CPU. When both peer timelines exist it also writes plot-peer.png, locstream and
Mosquitto side by side.

    plot.py --out DIR timeline-*.jsonl
"""

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    """The rows of a timeline, without the drain's trailing partial seconds (which publish
    next to nothing and would read as a collapse)."""
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    published = sorted(row.get("published") or 0 for row in rows)
    typical = published[len(published) // 2] if published else 0
    while len(rows) > 1 and (rows[-1].get("published") or 0) < 0.1 * typical:
        rows.pop()
    return rows


def series(rows, key):
    return [row.get(key) if row.get(key) is not None else float("nan") for row in rows]


def draw(latency_axis, rate_axis, rows, title):
    seconds = [row["second"] for row in rows]
    for key, style in (("p50_ms", "-"), ("p90_ms", "--"), ("p99_ms", "-."), ("max_ms", ":")):
        latency_axis.plot(seconds, series(rows, key), style, label=key.replace("_ms", ""))
    latency_axis.set_yscale("log")
    latency_axis.set_ylabel("latency (ms)")
    latency_axis.set_title(title)
    latency_axis.legend(loc="upper left", fontsize="small")
    latency_axis.grid(True, which="both", alpha=0.3)
    rate_axis.plot(seconds, series(rows, "expected"), "--", color="gray", label="expected")
    rate_axis.plot(seconds, series(rows, "frames"), "-", color="tab:blue", label="delivered")
    rate_axis.set_ylabel("frames/s")
    rate_axis.set_xlabel("second of the run")
    rate_axis.grid(True, alpha=0.3)
    cpu_axis = rate_axis.twinx()
    cpu_axis.plot(seconds, series(rows, "server_cpu_percent"), color="tab:red", alpha=0.6, label="server CPU %")
    cpu_axis.plot(seconds, series(rows, "bench_cpu_percent"), color="tab:green", alpha=0.6, label="generator CPU %")
    cpu_axis.set_ylim(0, 110)
    cpu_axis.set_ylabel("CPU % of one core")
    lines = rate_axis.get_legend_handles_labels()
    cpu_lines = cpu_axis.get_legend_handles_labels()
    rate_axis.legend(lines[0] + cpu_lines[0], lines[1] + cpu_lines[1], loc="lower left", fontsize="small")


def name_of(path):
    base = os.path.basename(path)
    return base[len("timeline-"):-len(".jsonl")] if base.startswith("timeline-") else os.path.splitext(base)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="directory for the PNG files")
    parser.add_argument("timelines", nargs="*")
    args = parser.parse_args()
    loaded = {}
    for path in args.timelines:
        rows = load(path)
        if not rows:
            continue
        name = name_of(path)
        loaded[name] = rows
        figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        draw(top, bottom, rows, name)
        figure.tight_layout()
        figure.savefig(os.path.join(args.out, f"plot-{name}.png"), dpi=80)
        plt.close(figure)
    for pair in (("peer-locstream", "peer-mosquitto"), ("peer-high-locstream", "peer-high-mosquitto")):
        if all(name in loaded for name in pair):
            figure, axes = plt.subplots(2, 2, figsize=(12, 6), sharex=True, sharey="row")
            for column, name in enumerate(pair):
                draw(axes[0][column], axes[1][column], loaded[name], name)
            figure.tight_layout()
            figure.savefig(os.path.join(args.out, f"plot-{pair[0].replace('-locstream', '')}-side-by-side.png"), dpi=80)
            plt.close(figure)
    return 0


if __name__ == "__main__":
    sys.exit(main())
