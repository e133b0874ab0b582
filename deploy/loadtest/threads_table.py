"""The table of deploy/loadtest/threads-figures.sh: per offered rate, the frames/s that
--threads 1 and --threads 2 delivered (median, min-max over the runs), their ratio, p99,
and each thread's share of CPU. Reads the side_by_side JSON lines named on the command
line."""
import json
import statistics
import sys


def spread(values, digits=0):
    return f"{statistics.median(values):,.{digits}f} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"


runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
rates = sorted({run["R"] for run in runs})
print("# --threads 1 against --threads 2\n")
print("Written by `deploy/loadtest/threads-figures.sh`; raw runs in `threads.jsonl`. The server")
print("unpinned on the 2-core VM, `gen` and `pub` pinned to core 1; 1,000 subscribers over 100")
print("devices; median (min-max) over the runs, in ABBA order.\n")
print("| offered frames/s | threads | delivered frames/s | 2 / 1 | p99 ms | server CPU % | per thread CPU % |")
print("|---|---|---|---|---|---|---|")
for rate in rates:
    delivered = {}
    for threads in (1, 2):
        mine = [run for run in runs if run["R"] == rate and run.get("note") == f"threads-{threads}"]
        if not mine:
            continue
        delivered[threads] = [run["frames_per_s"] for run in mine]
        ratio = ""
        if threads == 2 and 1 in delivered:
            ratio = f"{statistics.median(delivered[2]) / statistics.median(delivered[1]):.2f}"
        shares = {}
        for run in mine:
            for name, thread in (run.get("threads") or {}).items():
                shares.setdefault(name, []).append(thread["cpu_pct"])
        busy = " ".join(f"{name}:{statistics.median(v):.0f}" for name, v in sorted(shares.items())
                        if statistics.median(v) >= 1)
        print(f"| {rate * 10:,} | {threads} | {spread(delivered[threads])} | {ratio} | "
              f"{spread([run['lat_p99_ms'] for run in mine], 1)} | "
              f"{spread([run.get('server_cpu_pct', 0) for run in mine], 0)} | {busy} |")
