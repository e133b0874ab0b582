#!/usr/bin/env python3
"""Publish-to-ack latency: one WebSocket publisher sends `publish` with `"ack":true` at a
paced rate, one location at a time (the next only after the previous `published`), over
`--devices` devices, and prints one JSON object with the latency percentiles in ms.

With the embedded store, `published` is sent after the commit that holds the location, so
this is what a publisher waits for the disk; against `--store memory` it is the rest of
the round trip, measured the same way. Used by store-figures.sh; every run stops by itself
after --duration seconds (and --time-limit at the most).
"""

import argparse
import asyncio
import json
import time

import websockets


def percentile(sorted_values, fraction):
    if not sorted_values:
        return None
    return sorted_values[min(int(len(sorted_values) * fraction), len(sorted_values) - 1)]


async def run(args):
    latencies = []
    async with websockets.connect(args.url, max_size=None) as ws:
        await ws.recv()  # welcome
        interval = 1.0 / args.rate
        start = time.monotonic()
        sent = 0
        while time.monotonic() - start < args.duration:
            due = start + sent * interval
            delay = due - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            device = f"ack-{sent % args.devices}"
            message = json.dumps({"op": "publish", "ack": True,
                                  "loc": {"device": device, "lat": 52.5, "lon": 13.4, "ts": 1764421200000 + sent}})
            began = time.perf_counter()
            await ws.send(message)
            while True:
                reply = json.loads(await ws.recv())
                if reply.get("op") == "published":
                    break
                if reply.get("op") == "error":
                    raise SystemExit(f"publish refused: {reply}")
            latencies.append((time.perf_counter() - began) * 1000)
            sent += 1
    latencies.sort()
    return {"label": args.label, "acks": len(latencies), "rate": args.rate,
            "ack_ms": {name: round(percentile(latencies, fraction), 3)
                       for name, fraction in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--rate", type=float, default=500, help="publishes per second")
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--time-limit", type=float, default=60)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    report = asyncio.run(asyncio.wait_for(run(args), timeout=args.time_limit))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
