#!/usr/bin/env python3
"""placement.jsonl (placement-figures.sh) -> Markdown: locstream's CPU per frame at light load
with its publisher beside gen and beside the server, each as a ratio to the raw epoll run of
the same round (ABBA order), with how often a frame woke the sleeping gen."""
import json, sys
from collections import defaultdict

from fanout_table import spread, wakeups


def main():
    runs = defaultdict(list)  # (halt polling, note) -> records, in run order
    for line in open(sys.argv[1]):
        r = json.loads(line)
        runs[(r.get("guest_halt_poll_ns"), r["note"])].append(r)
    print("# Light load: where locstream's publisher runs\n")
    print("Written by `deploy/loadtest/placement-figures.sh`; raw runs in `placement.jsonl`. 5,000")
    print("subscribers, 20k frames/s, server on core 0, gen on core 1; median (min-max) over the")
    print("rounds, each ratio against the raw epoll run of the same round.\n")
    print("`halt poll` is how long an idle core polls before it halts (`guest_halt_poll_ns`); at 0")
    print("every wake-up of the sleeping gen costs an interrupt to a halted virtual CPU.\n")
    print("`raw epoll + tick` shares gen's core with `tick` (`side_by_side.py --ref-neighbour`), which")
    print("wakes there every millisecond as locstream's publisher does, without its sends.\n")
    print("| halt poll ns | server | publisher on | CPU us per frame | ratio to raw epoll | "
          "ratio to raw epoll + tick | gen wake-ups per frame | p99 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for poll in sorted({key[0] for key in runs}, key=lambda value: value or 0):
        refs = [runs.get((poll, "ref"), []), runs.get((poll, "ref-tick"), [])]
        for note, where in (("pub-core-1", "core 1, beside gen (the kit's rule)"),
                            ("pub-core-0", "core 0, beside the server"), ("ref", "none (updates made in-process)"),
                            ("ref-tick", "none; tick on core 1")):
            mine = runs.get((poll, note), [])
            if not mine:
                continue
            cost = [r["server_us_per_frame"] for r in mine]
            ratios = ["-" if note.startswith("ref") or not ref else
                      spread([r["server_us_per_frame"] / f["server_us_per_frame"] for r, f in zip(mine, ref)])
                      for ref in refs]
            print(f"| {poll} | {mine[0]['server']} | {where} | {spread(cost, '{:.1f}')} | {ratios[0]} | "
                  f"{ratios[1]} | {wakeups(mine)} | {spread([r['lat_p99_ms'] for r in mine])} |")


if __name__ == "__main__":
    main()
