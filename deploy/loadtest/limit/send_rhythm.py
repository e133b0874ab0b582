#!/usr/bin/env python3
"""The rhythm of a server's sends, from a `perf record` of its syscall entries.

side_by_side.py --perf-rhythm records, for one second inside the measured window, every
entry of the server's threads into the syscalls that read, send and wait (see EVENTS),
and this reads the record back. A burst is a run of socket sends less than GAP_US apart;
for each one it measures how long after the read that preceded it the first send came
(the lead: the work the server did before it sent anything, for a server that reads a
publication), how many sends it held, and how far apart they were. A receiver that is
woken by one send sleeps again before the next when the sends are far apart, so the
rhythm explains the wake-ups `gen_core_ipis_per_frame` counts.

Alone: send_rhythm.py PERF_DATA prints the JSON summary of one record.
"""
import json
import re
import statistics
import subprocess
import sys

EVENTS = ("sendto", "write", "writev", "recvfrom", "read", "epoll_wait", "epoll_pwait", "epoll_pwait2")
GAP_US = 100.0
SEND = {"sendto", "write", "writev"}
READ = {"recvfrom", "read"}
# A descriptor that takes more than this share of all writes is the loop's wake-up
# (eventfd or pipe), not a subscriber's socket: each socket takes a few writes a second.
WAKE_SHARE = 0.01

LINE = re.compile(r"^\s*(\d+\.\d+):\s+syscalls:sys_enter_(\w+):\s+(?:\w*fd:\s*)?(0x[0-9a-f]+)")


def events(path):
    """(time in µs, syscall, descriptor) of each recorded entry, in order."""
    out = subprocess.run(["perf", "script", "-i", path, "-F", "time,event,trace"], capture_output=True, text=True,
                         check=False).stdout
    found = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            found.append((float(m.group(1)) * 1e6, m.group(2), int(m.group(3), 16)))
    return found


def percentile(values, q):
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 1) if ordered else None


def summary(found):
    """The rhythm of the sends in `found` (see the module's comment)."""
    writes = {}
    for _, call, fd in found:
        if call in SEND:
            writes[fd] = writes.get(fd, 0) + 1
    total = sum(writes.values())
    wakes = {fd for fd, n in writes.items() if total and n > WAKE_SHARE * total}
    bursts, spacing, leads = [], [], []
    last_read = None
    current = []
    for t, call, fd in found:
        if call in READ and fd not in wakes:
            last_read = t
        if call not in SEND or fd in wakes:
            continue
        if current and t - current[-1] >= GAP_US:
            bursts.append(current)
            current = []
        if not current and last_read is not None:
            leads.append(t - last_read)
        elif current:
            spacing.append(t - current[-1])
        current.append(t)
    if current:
        bursts.append(current)
    sizes = [len(b) for b in bursts]
    return {
        "sends": sum(sizes),
        "bursts": len(bursts),
        "sends_per_burst": round(statistics.mean(sizes), 1) if sizes else None,
        "spacing_us_p50": percentile(spacing, 0.5),
        "spacing_us_p90": percentile(spacing, 0.9),
        "burst_span_us_p50": percentile([b[-1] - b[0] for b in bursts], 0.5),
        "lead_us_p50": percentile(leads, 0.5),
        "loop_waits": sum(1 for _, call, _ in found if call.startswith("epoll")),
        "wake_writes": sum(writes[fd] for fd in wakes),
    }


def main():
    if len(sys.argv) != 2:
        print("usage: send_rhythm.py PERF_DATA", file=sys.stderr)
        return 2
    print(json.dumps(summary(events(sys.argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
