#!/usr/bin/env python3
"""Summarises a trace of page_profile.py --trace: over the measured window, each thread's traced
time and each event's self time (% of one core) and rate.

    page_trace_summary.py OUT [TOP]
"""
import json, sys, collections
base = sys.argv[1]
w = json.load(open(base + ".window.json"))
raw = open(base + ".trace.json").read()
try:
    data = json.loads(raw)
except json.JSONDecodeError:
    data = json.loads(raw.rstrip().rstrip(",") + "]}")
events = data["traceEvents"] if isinstance(data, dict) else data
t0, t1 = w["mono0"] * 1e6, w["mono1"] * 1e6
span = (t1 - t0) / 1e6
names = {}
for e in events:
    if e.get("ph") == "M" and e.get("name") == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
    if e.get("ph") == "M" and e.get("name") == "process_name":
        names[(e["pid"], None)] = e["args"]["name"]
bythread = collections.defaultdict(list)
for e in events:
    if e.get("ph") == "X" and "dur" in e and t0 <= e["ts"] <= t1:
        bythread[(e["pid"], e["tid"])].append(e)
selftime = collections.Counter(); counts = collections.Counter(); thread_total = collections.Counter()
for key, evs in bythread.items():
    evs.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    tname = names.get((key[0], None), str(key[0])) + "/" + names.get(key, str(key[1]))
    for e in evs:
        while stack and stack[-1][0]["ts"] + stack[-1][0]["dur"] <= e["ts"]:
            stack.pop()
        if stack:
            stack[-1][1][0] -= e["dur"]
        else:
            thread_total[tname] += e["dur"]
        rec = [e, [e["dur"]]]
        stack.append((e, rec[1]))
        counts[(tname, e["name"])] += 1
    # compute self: re-walk
for key, evs in bythread.items():
    tname = names.get((key[0], None), str(key[0])) + "/" + names.get(key, str(key[1]))
    evs.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    for e in evs:
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
            stack.pop()
        if stack:
            selftime[(tname, stack[-1]["name"])] -= e["dur"]
        selftime[(tname, e["name"])] += e["dur"]
        stack.append(e)
print(f"window {span:.1f}s; top-level traced time per thread (% of a core):")
for k, v in thread_total.most_common(12):
    print(f"  {100*v/1e6/span:6.2f}  {k}")
print("self time by event (% of a core, count/s):")
for k, v in selftime.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 45):
    print(f"  {100*v/1e6/span:6.2f}  {counts[k]/span:7.1f}/s  {k[0]}  {k[1]}")
