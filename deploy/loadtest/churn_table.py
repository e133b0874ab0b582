"""The table of deploy/loadtest/churn-figures.sh.

With --scrape LABEL it reads a server's /metrics text on stdin and prints one JSON line:
the label and the cumulative buckets of locstream_subscribe_to_ack_seconds (empty when
the server has no such metric). Otherwise it reads the bench reports (JSON lines) and
those scrapes, in run order, and prints the table: per build, median (min-max) over the
runs of the switch-ack p50 and p99, the frames' p99, the server's CPU, stale frames, and
the server's own subscribe-to-ack p50 and p99 (the upper bound of the bucket holding
the quantile)."""
import json
import statistics
import sys

METRIC = "locstream_subscribe_to_ack_seconds_bucket"


def scrape(label):
    buckets = []
    for line in sys.stdin:
        if line.startswith(METRIC + "{"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            buckets.append([bound, int(float(line.rsplit(" ", 1)[1]))])
    print(json.dumps({"label": label, "buckets": buckets}))


def quantile_ms(buckets, q):
    """The upper bound, in ms, of the bucket holding quantile q; None without data."""
    if not buckets or buckets[-1][1] == 0:
        return None
    total = buckets[-1][1]
    for bound, cumulative in buckets:
        if cumulative >= q * total:
            return float("inf") if bound == "+Inf" else float(bound) * 1000
    return None


def spread(values, digits=2):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def table(reports_path, scrapes_path):
    reports = [json.loads(line) for line in open(reports_path) if line.strip()]
    scrapes = [json.loads(line) for line in open(scrapes_path) if line.strip()]
    for report, scraped in zip(reports, scrapes):
        report["server_buckets"] = scraped["buckets"]
    first = reports[0]["conditions"]
    print("# Switching under load\n")
    print("Written by `deploy/loadtest/churn-figures.sh`; bench reports in `churn-figures.jsonl`, the")
    print("servers' `subscribe_to_ack` histograms in `churn-figures-server.jsonl`. Server pinned to")
    print(f"core 0, bench to core 1; {first['subscribers']:,} subscribers over {first['devices']} devices,")
    print(f"each switching every {first['switch_ms']} ms, {first['rate']:,} publications/s")
    print(f"({reports[0]['expected_fps']:,.0f} frames/s), {first['duration_s']} s a run; median (min-max)")
    print("over the runs, in ABBA order. The server's part is its own histogram: from the")
    print("subscribe taken up to its ack queued, as the upper bound of the bucket.\n")
    print("| build | runs | switch-ack p50 ms | switch-ack p99 ms | frames p99 ms | server CPU % "
          "| stale | server part p50 ms | server part p99 ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label in dict.fromkeys(report["label"] for report in reports):
        mine = [report for report in reports if report["label"] == label]
        print(f"| {label} | {len(mine)} | {spread([r['switch_ack_ms']['p50'] for r in mine])} | "
              f"{spread([r['switch_ack_ms']['p99'] for r in mine])} | "
              f"{spread([r['latency_ms']['p99'] for r in mine])} | "
              f"{spread([r['server_cpu_percent'] for r in mine], 0)} | "
              f"{sum(r['stale_after_ack'] for r in mine)} | "
              f"{spread([quantile_ms(r['server_buckets'], 0.5) for r in mine], 3)} | "
              f"{spread([quantile_ms(r['server_buckets'], 0.99) for r in mine], 3)} |")


if __name__ == "__main__":
    if sys.argv[1] == "--scrape":
        scrape(sys.argv[2])
    else:
        table(sys.argv[1], sys.argv[2])
