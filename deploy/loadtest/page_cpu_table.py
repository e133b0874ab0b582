#!/usr/bin/env python3
"""The table of page-cpu-figures.sh's JSON lines: one row per run, then each page's renderer CPU
against the first page's (the old one) in the same round, as ratios.

    page_cpu_table.py results/page-cpu.jsonl
"""
import json
import sys
from collections import defaultdict

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("| run | page | renderer (the page) | GPU process | utility (network, storage) | all Chromium | render frames/s | `loc` received/s | load 1 min | machine busy |")
print("|---|---|---|---|---|---|---|---|---|---|")
for i, r in enumerate(rows, 1):
    k = r["chromium_cpu_pct_by_kind"]
    print(f"| {i} | {r['page']} | {k.get('renderer (the page)', 0):.1f} % | {k.get('gpu-process', 0):.1f} % | "
          f"{k.get('utility', k.get('utility:NetworkService', 0)):.1f} % | {r['chromium_cpu_pct_total']:.1f} % | "
          f"{r.get('render_fps', 'n/a')} | {r.get('page_loc_per_s_exact', 'n/a')} | {r['loadavg_1m']} | {r['machine_busy_pct']:.0f} % |")
pages = list(dict.fromkeys(r["page"] for r in rows))
per_round = len(pages) * 2
print()
base = pages[0]
for page in pages:
    values = [r["chromium_cpu_pct_by_kind"].get("renderer (the page)", 0) for r in rows if r["page"] == page]
    ratios = []
    for start in range(0, len(rows), per_round):
        chunk = rows[start:start + per_round]
        mine = [r["chromium_cpu_pct_by_kind"].get("renderer (the page)", 0) for r in chunk if r["page"] == page]
        old = [r["chromium_cpu_pct_by_kind"].get("renderer (the page)", 0) for r in chunk if r["page"] == base]
        if mine and old:
            ratios.append(sum(mine) / len(mine) / (sum(old) / len(old)))
    print(f"- {page}: renderer {min(values):.1f}–{max(values):.1f} % (mean {sum(values) / len(values):.1f} %), "
          f"× {base} by round: " + ", ".join(f"{x:.2f}" for x in ratios))
