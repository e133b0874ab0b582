#!/usr/bin/env python3
"""fanout.jsonl (fanout-figures.sh) -> Markdown: locstream against the C reference of the
same comparison, as ratios of runs paired in ABBA order (the i-th locstream run with the
i-th reference run), with the median and the spread (min-max) over the pairs."""
import json, statistics, sys
from collections import defaultdict


def fpw(r):
    n = r.get("locstream_outbox_frames_per_write_count") or 0
    return r.get("locstream_outbox_frames_per_write_sum", 0) / n if n else None


def spread(values, fmt="{:.2f}"):
    values = [v for v in values if v is not None]
    if not values:
        return "n/a"
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def wakeups(records):
    """How often a frame woke the sleeping receiver (side_by_side's gen_core_ipis_per_frame)."""
    return spread([r.get("gen_core_ipis_per_frame") for r in records])


def metric(S, R):
    if R == 0:
        return "RSS per connection, KiB", lambda r: r["bytes_per_conn"] / 1024, "lower"
    if S >= 5000:
        return "CPU us per frame", lambda r: r["server_us_per_frame"], "lower"
    return "frames/s delivered", lambda r: r["frames_per_s"], "higher"


def main():
    runs = defaultdict(list)  # (S, R, note) -> records, in run order
    for line in open(sys.argv[1]):
        r = json.loads(line)
        runs[(r["S"], r["R"], r["note"])].append(r)

    print("# Fan-out beside the C limit kit\n")
    print("Written by `deploy/loadtest/fanout-figures.sh`; raw runs in `fanout.jsonl`. Ratios pair")
    print("runs in ABBA order; median (min-max) over the pairs. `ref` is the C server named per row.\n")
    print("| S | R (pub/s) | measure | ref | locstream | ref | ratio | base/ref | p99 ms locstream | frames/write | gen wake-ups/frame locstream, ref | server threads CPU % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (S, R) in sorted({(k[0], k[1]) for k in runs}, key=lambda k: (k[1] == 0, -k[0], k[1])):
        new, ref, base = runs.get((S, R, "new"), []), runs.get((S, R, "ref"), []), runs.get((S, R, "base"), [])
        if not new or not ref:
            continue
        name, get, _ = metric(S, R)
        ratios = [get(n) / get(f) for n, f in zip(new, ref) if get(f)]
        base_ratios = [get(b) / get(f) for b, f in zip(base, ref) if get(f)]
        threads = " ".join(f"{k}:{v['cpu_pct']}" for k, v in new[-1].get("threads", {}).items() if v["cpu_pct"] >= 1)
        print(f"| {S} | {R} | {name} | {ref[0]['server']} | {spread([get(r) for r in new], '{:.1f}')} | "
              f"{spread([get(r) for r in ref], '{:.1f}')} | {spread(ratios)} | {spread(base_ratios)} | "
              f"{spread([r['lat_p99_ms'] for r in new], '{:.1f}') if R else '-'} | {spread([fpw(r) for r in new])} | "
              f"{wakeups(new)}, {wakeups(ref)} | {threads} |")
    print("\nConditions: server pinned to core 0, gen and pub to core 1, `--store memory`, payload as `pub`")
    print("sends it (about 150 bytes a frame); each run's quiet gate and `other_proc_pct` are in the JSON.")
    print("A C server, which makes its updates in-process, shares gen's core with `tick` (pub's wake-ups")
    print("every millisecond, without its sends) where the JSON has `tick_cycles`.")


if __name__ == "__main__":
    main()
