#!/usr/bin/env python3
"""Geo query latency (issue 19): fills a running server with DEVICES last known positions
spread over a region (POST /v1/locations, 1,000 per request), then times QUERIES requests
of each kind, one connection per request as the server answers (Connection: close):

  bbox   GET /v1/devices?bbox=…  a 0.2° × 0.1° box (a city district) at a random place
  near   GET /v1/devices?near=…&radius_m=2000&limit=100  nearest first around a random point
  wide   GET /v1/devices?near=…&radius_m=20000&limit=100  the same over 20 km: truncated to 100

Prints one JSON line per kind: latency p50/p90/p99/max in ms (client side, connect to last
byte), devices returned on average, and how many answers were truncated. Only 127.0.0.1.
"""

import argparse
import http.client
import json
import random
import statistics
import time

REGION = (-10.0, 35.0, 30.0, 60.0)  # minLon, minLat, maxLon, maxLat: Europe, 40° × 25°


def request(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def fill(port, devices, seed):
    rng = random.Random(seed)
    ts = int(time.time() * 1000)
    started = time.monotonic()
    for first in range(0, devices, 1000):
        batch = [
            {
                "device": f"geo-{index}",
                "lat": round(rng.uniform(REGION[1], REGION[3]), 6),
                "lon": round(rng.uniform(REGION[0], REGION[2]), 6),
                "ts": ts,
            }
            for index in range(first, min(first + 1000, devices))
        ]
        status, body = request(port, "POST", "/v1/locations", json.dumps(batch))
        if status != 202:
            raise SystemExit(f"publish refused: {status} {body[:200]!r}")
    return time.monotonic() - started


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(port, kind, queries, rng):
    latencies, counts, truncated = [], [], 0
    for _ in range(queries):
        lon = rng.uniform(REGION[0] + 0.2, REGION[2] - 0.2)
        lat = rng.uniform(REGION[1] + 0.1, REGION[3] - 0.1)
        if kind == "bbox":
            path = f"/v1/devices?bbox={lon:.5f},{lat:.5f},{lon + 0.2:.5f},{lat + 0.1:.5f}&limit=1000"
        else:
            radius = 2000 if kind == "near" else 20000
            path = f"/v1/devices?near={lon:.5f},{lat:.5f}&radius_m={radius}&limit=100"
        started = time.perf_counter()
        status, body = request(port, "GET", path)
        latencies.append((time.perf_counter() - started) * 1000)
        if status != 200:
            raise SystemExit(f"{path}: {status} {body[:200]!r}")
        answer = json.loads(body)
        counts.append(answer["count"])
        truncated += bool(answer["truncated"])
    return {
        "kind": kind,
        "queries": queries,
        "p50_ms": round(percentile(latencies, 0.50), 3),
        "p90_ms": round(percentile(latencies, 0.90), 3),
        "p99_ms": round(percentile(latencies, 0.99), 3),
        "max_ms": round(max(latencies), 3),
        "devices_mean": round(statistics.mean(counts), 1),
        "truncated": truncated,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--label", default="")
    parser.add_argument("--seed", type=int, default=19)
    arguments = parser.parse_args()
    fill_s = fill(arguments.port, arguments.devices, arguments.seed)
    rng = random.Random(arguments.seed + 1)
    for kind in ("bbox", "near", "wide", "wide", "near", "bbox"):
        row = measure(arguments.port, kind, arguments.queries // 2, rng)
        row.update(label=arguments.label, devices=arguments.devices, fill_s=round(fill_s, 1))
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
