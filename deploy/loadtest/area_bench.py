#!/usr/bin/env python3
"""Publication cost against the number of MATCHING area subscriptions.

Opens `matching` WebSocket connections whose area subscription contains a hot spot,
plus `background` connections whose areas lie elsewhere on the globe (they never
match; --background-kind devices gives them a subscription to a device nobody publishes
instead, a control for the cost of the connections themselves), then publishes updates
of devices moving inside the hot spot and measures the server's CPU time (utime + stime from /proc/PID/stat) per publication.

If publication cost grows with matching subscriptions only, the rows with the same
`matching` and different `background` cost the same, and cost rises with `matching`.

Used by area-bench.sh, which starts the server; run it directly against a server you
started yourself with --pid and --url.
"""

import argparse
import asyncio
import json
import os
import time
import urllib.request

import websockets

HOT = (13.40, 52.52)  # lon, lat: the hot spot every matching viewport contains


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def conflated(url):
    """The server's count of frames dropped by conflation (a reader too slow), from /metrics."""
    base = url.replace("ws://", "http://", 1).split("/v1/", 1)[0]
    with urllib.request.urlopen(base + "/metrics", timeout=5) as response:
        for line in response.read().decode().splitlines():
            if line.startswith('locstream_frames_dropped_total{reason="conflated"}'):
                return int(float(line.split()[-1]))
    return 0


def background_area(index):
    """A city-sized box far from the hot spot: a grid of boxes over other latitudes."""
    lon = -170 + (index * 7.3) % 340
    lat = -60 + (index * 3.1) % 50  # -60..-10: never near 52.5 N
    return {"bbox": [lon, lat, lon + 0.5, lat + 0.3]}


def matching_area(index):
    lon, lat = HOT
    spread = 0.05 + (index % 10) * 0.01
    return {"bbox": [lon - spread, lat - spread / 2, lon + spread, lat + spread / 2]}


async def drain(connection, counter):
    try:
        async for _ in connection:
            counter[0] += 1
    except websockets.ConnectionClosed:
        pass


async def subscribe(url, sub, target, counter, tasks):
    connection = await websockets.connect(url, max_size=None, ping_interval=None)
    await connection.recv()  # welcome
    await connection.send(json.dumps({"op": "subscribe", "sub": sub, **target, "snapshot": False}))
    reply = json.loads(await connection.recv())
    if reply.get("op") != "subscribed":
        raise RuntimeError(f"subscribe refused: {reply}")
    tasks.append(asyncio.create_task(drain(connection, counter)))
    return connection


async def run_level(args, matching, background):
    counter = [0]
    tasks = []
    connections = []
    for index in range(background):
        target = ({"area": background_area(index)} if args.background_kind == "area"
                  else {"devices": [f"idle-{index}"]})
        connections.append(await subscribe(args.url, f"bg-{index}", target, counter, tasks))
    for index in range(matching):
        connections.append(await subscribe(args.url, f"m-{index}", {"area": matching_area(index)}, counter, tasks))
    publisher = await websockets.connect(args.url, max_size=None, ping_interval=None)
    await publisher.recv()
    publications = max(args.min_publications, args.frame_budget // max(matching, 1))
    batch = 500
    lon, lat = HOT
    before_dropped = conflated(args.url)
    before_cpu = cpu_seconds(args.pid)
    before_wall = time.monotonic()
    sent = 0
    step = 0
    while sent < publications:
        size = min(batch, publications - sent)
        locs = [
            {"device": f"hot-{(sent + i) % 200}", "lat": lat + 0.001 * ((step + i) % 7),
             "lon": lon + 0.001 * ((step + i) % 5), "ts": 1764421200000 + step}
            for i in range(size)
        ]
        await publisher.send(json.dumps({"op": "publish", "locs": locs, "ack": True}))
        while json.loads(await publisher.recv()).get("op") != "published":
            pass
        sent += size
        step += 1
    expected = publications * matching
    deadline = time.monotonic() + args.drain_timeout
    while counter[0] < expected and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    wall = time.monotonic() - before_wall
    cpu = cpu_seconds(args.pid) - before_cpu
    dropped = conflated(args.url) - before_dropped
    for connection in connections + [publisher]:
        await connection.close()
    for task in tasks:
        task.cancel()
    await asyncio.sleep(0.5)
    return {
        "matching": matching, "background": background, "background_kind": args.background_kind,
        "publications": publications,
        "frames": counter[0], "expected_frames": expected, "conflated": dropped, "server_cpu_s": round(cpu, 4),
        "wall_s": round(wall, 3), "cpu_us_per_publication": round(cpu / publications * 1e6, 2),
        "cpu_us_per_frame": round(cpu / max(counter[0], 1) * 1e6, 2) if matching else None,
    }


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="ws://127.0.0.1:8080/v1/stream")
    parser.add_argument("--pid", type=int, required=True, help="the stream-server process id")
    parser.add_argument("--matching", default="0,1,10,100,500")
    parser.add_argument("--background", default="0,1000")
    parser.add_argument("--background-kind", choices=["area", "devices"], default="area",
                        help="background connections hold far-away areas, or one never-published device each")
    parser.add_argument("--frame-budget", type=int, default=200_000, help="publications × matching per level")
    parser.add_argument("--min-publications", type=int, default=2000)
    parser.add_argument("--drain-timeout", type=float, default=120, help="seconds to wait for every frame")
    parser.add_argument("--out", help="append one JSON line per level here")
    args = parser.parse_args()
    print(f"{'matching':>8} {'background':>10} {'pubs':>7} {'frames':>9} {'µs/pub':>9} {'µs/frame':>9}")
    for background in [int(x) for x in args.background.split(",")]:
        for matching in [int(x) for x in args.matching.split(",")]:
            row = await run_level(args, matching, background)
            print(f"{row['matching']:>8} {row['background']:>10} {row['publications']:>7} {row['frames']:>9} "
                  f"{row['cpu_us_per_publication']:>9} {row['cpu_us_per_frame'] or '-':>9}", flush=True)
            if args.out:
                with open(args.out, "a") as out:
                    out.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
