#!/usr/bin/env python3
"""PNG of area_bench.py's rows: server CPU per publication against matching subscriptions.

One line per background level: connections whose area subscriptions never match (and,
as a control, connections subscribed to a device nobody publishes). If the area index
costs per match and not per registered area, the lines rise with `matching` and keep
the same gap whatever the number of matches (the gap is per-connection transport cost,
see area-bench.md). Log-log axes; matching 0 is drawn at 0.5.

    area_plot.py results/area-cost-vs-matches.jsonl --out results/area-cost-vs-matches.png

Prints the PNG's path. Needs matplotlib (deploy/loadtest/.venv has it after run.sh).
"""

import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", help="JSONL written by area_bench.py --out")
    parser.add_argument("--out", required=True, help="PNG to write")
    args = parser.parse_args()
    with open(args.rows) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    figure, (cost, per_frame) = plt.subplots(1, 2, figsize=(12, 4.8))
    lines = sorted({(row.get("background_kind", "area"), row["background"]) for row in rows},
                   key=lambda line: (line[1], line[0]))
    for kind, background in lines:
        level = [row for row in rows if (row.get("background_kind", "area"), row["background"]) == (kind, background)]
        level.sort(key=lambda row: row["matching"])
        label = "no other connection" if background == 0 else f"+ {background} non-matching {kind.rstrip('s')} subs"
        style = "o-" if kind == "area" else "s--"
        cost.plot([row["matching"] or 0.5 for row in level], [row["cpu_us_per_publication"] for row in level],
                  style, label=label)
        matched = [row for row in level if row["matching"]]
        per_frame.plot([row["matching"] for row in matched],
                       [row["server_cpu_s"] * 1e6 / row["frames"] for row in matched], style, label=label)
    cost.set(xscale="log", yscale="log", xlabel="matching area subscriptions (0 drawn at 0.5)",
             ylabel="server CPU µs per publication", title="Cost per publication")
    per_frame.set(xscale="log", yscale="log", xlabel="matching area subscriptions", ylabel="server CPU µs per delivered frame",
                  title="Cost per delivered frame")
    for axis in (cost, per_frame):
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    figure.suptitle("locstream area subscriptions: one node, embedded broker, 500-location publish batches")
    figure.tight_layout()
    figure.savefig(args.out, dpi=110)
    print(args.out)


if __name__ == "__main__":
    main()
