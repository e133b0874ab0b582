#!/usr/bin/env python3
"""The table of cells-figures.sh: per mode, server CPU per publication and bytes per second
to the subscriber (median and spread over the runs), and the ratios the issue asks for:
cells against devices for CPU, cells against area for bytes."""

import json
import statistics
import sys


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    by_mode = {}
    for row in rows:
        by_mode.setdefault(row["label"], []).append(row)
    first = rows[0]
    print(f"# Aggregated areas: cost of a world-wide `cells` subscription\n")
    print(
        f"{first['devices']:,} simulated devices over the world, {first['rate']} reports per device per second, "
        f"one subscriber (the kit's `gen`), cells of {first['cell_deg']}°; {len(rows)} windows of "
        f"{first['window_s']:.0f} s, ABCCBA order. Raw: `cells.jsonl`.\n")
    print("| mode | windows | publications/s | server CPU % | server µs per publication | subscriber KB/s | frames/s |")
    print("|---|---|---|---|---|---|---|")
    medians = {}
    for mode in ("devices", "cells", "area"):
        group = by_mode.get(mode, [])
        if not group:
            continue
        us = [row["server_us_per_publication"] for row in group]
        kbs = [row["MB_per_s"] * 1000 for row in group]
        medians[mode] = (statistics.median(us), statistics.median(kbs))
        print(
            f"| {mode} | {len(group)} | {statistics.median(row['publications_per_s'] for row in group):,.0f} | "
            f"{statistics.median(row['server_cpu_pct'] for row in group):.1f} | "
            f"{statistics.median(us):.2f} ({min(us):.2f}–{max(us):.2f}) | "
            f"{statistics.median(kbs):.2f} ({min(kbs):.2f}–{max(kbs):.2f}) | "
            f"{statistics.median(row['frames_per_s'] + row['ctrl_frames'] / row['window_s'] for row in group):,.1f} |")
    if {"devices", "cells", "area"} <= medians.keys():
        print(
            f"\n- CPU per publication, cells against devices: {medians['cells'][0] / medians['devices'][0]:.2f}× "
            f"(target ≤ 2×).")
        print(
            f"- Bytes per second to the subscriber, cells against area: "
            f"{100 * medians['cells'][1] / medians['area'][1]:.3f} % (target ≤ 10 %).")


if __name__ == "__main__":
    main(sys.argv[1])
