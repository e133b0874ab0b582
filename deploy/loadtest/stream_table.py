#!/usr/bin/env python3
"""Turns stream-figures.sh's raw reports (one JSON object per line, labels LABEL/SERVER)
into results/stream.md. Usage: stream_table.py stream.jsonl DURATION"""
import json
import sys


def row(report):
    label, server = report["label"].split("/")
    fps = report.get("delivered_fps") or 0
    cpu = report.get("server_cpu_percent") or 0
    per_frame = f"{cpu * 10000 / fps:.1f}" if fps else "n/a"
    latency = report.get("latency_ms") or {}
    ack = report.get("switch_ack_ms") or {}
    acks = f"{ack['p50']} / {ack['p99']}" if ack else ""
    offered = report.get("expected_fps") or 0
    return (f"| {label} | {server} | {offered:,.0f} | {fps:,.0f} | {cpu:.1f} | {per_frame} | "
            f"{latency.get('p50')} | {latency.get('p99')} | {acks} | {report.get('missing')} | "
            f"{report.get('stale_after_ack')} | {report.get('saturated')} |")


def main():
    reports = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    print(f"""# Location streams on one node, against Mosquitto in the same run

`deploy/loadtest/stream-figures.sh`: release build; the server (or Mosquitto) pinned to core 0,
the generator to core 1 (`stream-client bench` with two lws client threads on libev, or
`mqtt_fanout.py` for Mosquitto, one Python process); {sys.argv[2]} s per run, back to back, on a
shared 2-core VM. Payload about 144 bytes of JSON per frame. µs/frame is server CPU time per
delivered frame. Latency is publish to receipt on the generator's clock. "saturated" names the
process that ran out of CPU, if one did.

| run | server | offered frames/s | delivered frames/s | server CPU % | µs/frame | p50 ms | p99 ms | switch-ack p50 / p99 ms | missing | stale | saturated |
|---|---|---|---|---|---|---|---|---|---|---|---|""")
    for report in reports:
        print(row(report))


if __name__ == "__main__":
    main()
