"""Turns client-figures.sh's client.jsonl into the Markdown of client.md.

    python3 client_table.py client.jsonl RATE DURATION
"""

import json
import statistics
import sys


def spread(values, form=",.0f"):
    """'median (min–max, n runs)' of `values`, or 'no run'."""
    if not values:
        return "no run"
    low, high, middle = min(values), max(values), statistics.median(values)
    return f"{middle:{form}} ({low:{form}}–{high:{form}}, {len(values)} runs)"


def table(receive, abccba=False, source_cpu="feeder_cpu_percent", source_name="feeder"):
    """The receiver table of `receive` and the library-over-raw ratios of adjacent runs:
    ABBA pairs, or with `abccba` the runs beside each library run, and then a column for
    the source's CPU (`source_cpu`, called `source_name`)."""
    extra = f" {source_name} CPU % |" if abccba else ""
    print("| receiver | elements/s | consumer CPU % | elements per CPU-second | µs of consumer CPU per element |" + extra)
    print("|---|---|---|---|---|" + ("---|" if abccba else ""))
    for receiver in ("library", "raw", "raw-batch"):
        rows = [r for r in receive if r["receiver"] == receiver]
        if not rows:
            continue
        per = [r["elements_per_cpu_s"] for r in rows if r["elements_per_cpu_s"]]
        line = (f"| {receiver} | {spread([r['elements_per_s'] for r in rows])} "
                f"| {spread([r['cpu_percent'] for r in rows if r['cpu_percent'] is not None])} "
                f"| {spread(per)} | {spread([1e6 / p for p in per], '.2f')} |")
        if abccba:
            line += f" {spread([r[source_cpu] for r in rows if source_cpu in r])} |"
        print(line)
    pairs = []
    for first, second in zip(receive[0::2], receive[1::2]) if not abccba else ():
        by = {first["receiver"]: first, second["receiver"]: second}
        if "library" in by and "raw" in by and by["raw"]["elements_per_cpu_s"]:
            pairs.append(by["library"]["elements_per_cpu_s"] / by["raw"]["elements_per_cpu_s"])
    if pairs:
        print(f"\nLibrary per CPU-second over raw, run by adjacent run: "
              f"{', '.join(f'{p:.2f}' for p in pairs)}.")
    for other in ("raw", "raw-batch") if abccba else ():
        ratios = []
        for index, record in enumerate(receive):
            if record["receiver"] != "library":
                continue
            for near in (index - 1, index + 1):
                if 0 <= near < len(receive) and receive[near]["receiver"] == other:
                    if receive[near]["elements_per_cpu_s"]:
                        ratios.append(record["elements_per_cpu_s"] / receive[near]["elements_per_cpu_s"])
        if ratios:
            print(f"\nLibrary per CPU-second over the adjacent {other} run: {', '.join(f'{r:.2f}' for r in ratios)}.")
    loads = [r["load_average"] for r in receive if "load_average" in r]
    if loads:
        print(f"\nLoad average at the runs' starts: {min(loads):.2f}–{max(loads):.2f}.")


def main():
    path, rate, duration = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    records = [json.loads(line) for line in open(path) if line.strip()]
    receive = [r for r in records if r.get("figure") == "receive" and r.get("source", "server") == "server"]
    fed = [r for r in records if r.get("figure") == "receive" and r.get("source") == "feeder"]
    snapshots = [r for r in records if r.get("figure") == "receive" and r.get("source") == "snapshots"]
    idle = [r for r in records if r.get("figure") == "idle"]
    print("# Client library figures\n")
    print(f"`deploy/loadtest/client-figures.sh`: one consumer of {receive[0]['devices'] if receive else '?'} devices "
          f"while `stream-client bench` offers {rate:,} locations/s, {duration} s a run, ABBA order; the consumer "
          "alone on its core. Elements per CPU-second: what one core of the consumer would take.\n")
    table(receive)
    if fed:
        print(f"\n## Against the feeder\n\nThe same consumer against `loc-feeder.py` (pre-framed `loc` frames for "
              f"{fed[0]['devices']} devices, as fast as the consumer reads them), the feeder alone on the other core; "
              "feeder CPU % is over the whole run.\n")
        table(fed, abccba=True)
    if snapshots:
        print(f"\n## Snapshots from the server\n\nThe same consumer subscribing again and again to an area "
              f"holding {snapshots[0]['devices']:,} stored devices, each time its whole snapshot has arrived, with "
              "no publishing load; the server alone on the other core, its CPU % over the whole run.\n")
        table(snapshots, abccba=True, source_cpu="server_cpu_percent", source_name="server")
    print("\n## Memory per idle sequence\n")
    if idle:
        print(f"{idle[0]['sequences']:,} idle sequences (each on its own connection, subscribed) after twenty "
              f"for warm-up: {spread([r['kib_per_sequence'] for r in idle], '.1f')} KiB of the consumer's "
              "resident memory per sequence.")
        print("\n| run | KiB per sequence | RSS before → after (KiB) |")
        print("|---|---|---|")
        for r in idle:
            print(f"| {r['run']} | {r['kib_per_sequence']} | {r['rss_before_kib']:,} → {r['rss_after_kib']:,} |")
    else:
        print("no run")


main()
