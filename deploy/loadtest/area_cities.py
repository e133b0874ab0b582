#!/usr/bin/env python3
"""Publications/s one node handles with 10,000 city-sized viewports and 10,000 moving devices.

The headline figure for area subscriptions. Devices random-walk inside the metro boxes of 30 European cities
(box area proportional to population, so device density is the same everywhere); each
viewer connection holds one area subscription, a 0.2° × 0.1° viewport (about 14 × 11 km)
placed uniformly inside a city's box, viewers spread over cities like the devices. A few
publisher connections send 500-location batches with `ack:true`, keeping a bounded window
in flight, for a fixed time. Three phases on the same server, in this order:

  none      no viewer connected (the publish path alone)
  devices   10,000 connections, each a device subscription to one device (1 frame/pub)
  areas     the same connections switched to their viewports (the area index)

Viewers live in --workers child processes (this script with --worker) that count frames
without decoding them: each server frame is unmasked JSON starting with {"op":"..., so
counting that prefix in the received bytes counts frames, at C speed, and the sockets are
drained continuously. The server's /metrics gives frames sent and frames conflated (a
non-zero conflated count means a reader fell behind).

Prints one line per phase and writes one JSON object per phase to --out: accepted
publications/s, frames/s, frames per publication, server CPU µs per publication, and the
CPU (% of one core) of the server, the publishers (this process) and the viewer workers,
and `waited`: how long the server's threads sat runnable waiting for a CPU (other load on
the machine), as % of the phase.

    area-cities.sh                         # starts a server, runs this, stops it
    area_cities.py --port 8080 --pid PID   # against a server started with
                                           # --idle-timeout 600 and high connection limits
"""

import argparse
import asyncio
import base64
import itertools
import json
import os
import random
import sys
import time
import urllib.request

import websockets

# name, lon, lat, metro population in millions (rounded; the weights are what matter)
CITIES = [
    ("London", -0.128, 51.507, 14.0), ("Paris", 2.352, 48.857, 12.3), ("Madrid", -3.704, 40.417, 6.8),
    ("Barcelona", 2.173, 41.385, 5.6), ("Essen", 7.012, 51.456, 5.1), ("Berlin", 13.405, 52.520, 4.6),
    ("Milan", 9.190, 45.464, 4.3), ("Rome", 12.496, 41.903, 4.3), ("Athens", 23.728, 37.984, 3.6),
    ("Hamburg", 9.994, 53.551, 3.2), ("Warsaw", 21.012, 52.230, 3.1), ("Naples", 14.268, 40.852, 3.1),
    ("Budapest", 19.040, 47.498, 3.0), ("Lisbon", -9.139, 38.722, 2.9), ("Munich", 11.582, 48.135, 2.9),
    ("Vienna", 16.374, 48.208, 2.9), ("Manchester", -2.244, 53.481, 2.8), ("Prague", 14.438, 50.076, 2.7),
    ("Brussels", 4.352, 50.847, 2.6), ("Amsterdam", 4.904, 52.368, 2.5), ("Stockholm", 18.069, 59.329, 2.4),
    ("Frankfurt", 8.682, 50.111, 2.3), ("Lyon", 4.836, 45.764, 2.3), ("Copenhagen", 12.568, 55.676, 2.1),
    ("Dublin", -6.260, 53.350, 2.0), ("Cologne", 6.960, 50.938, 2.0), ("Porto", -8.611, 41.158, 1.7),
    ("Oslo", 10.752, 59.914, 1.6), ("Helsinki", 24.938, 60.170, 1.5), ("Zurich", 8.541, 47.377, 1.4),
]
DEG2_PER_MILLION = 0.06  # metro box area per million people: Berlin's box is 0.64° × 0.43°
VIEW_W, VIEW_H = 0.2, 0.1  # viewport, degrees of longitude × latitude


def boxes():
    """Each city's metro box (minLon, minLat, maxLon, maxLat), 1.5 times wider than high."""
    out = []
    for _, lon, lat, millions in CITIES:
        area = millions * DEG2_PER_MILLION
        width = (area * 1.5) ** 0.5
        height = area / width
        out.append((lon - width / 2, lat - height / 2, lon + width / 2, lat + height / 2))
    return out


def layout(devices, viewers, seed):
    """Deterministic: each device's city and start, each viewer's viewport bbox."""
    rng = random.Random(seed)
    metro = boxes()
    weights = [city[3] for city in CITIES]
    starts = []
    for city in rng.choices(range(len(CITIES)), weights, k=devices):
        x0, y0, x1, y1 = metro[city]
        starts.append((city, rng.uniform(x0, x1), rng.uniform(y0, y1)))
    views = []
    for city in rng.choices(range(len(CITIES)), weights, k=viewers):
        x0, y0, x1, y1 = metro[city]
        lon, lat = rng.uniform(x0, x1 - VIEW_W), rng.uniform(y0, y1 - VIEW_H)
        views.append([round(lon, 5), round(lat, 5), round(lon + VIEW_W, 5), round(lat + VIEW_H, 5)])
    return starts, views


def walk_batches(starts, steps, batch, step_deg, seed):
    """Pre-serialised publish messages: every device takes `steps` random-walk steps
    (reflected at its city's box), played forwards then backwards so the cycle is
    continuous. The server does not check that ts increases."""
    rng = random.Random(seed + 1)
    metro = boxes()
    position = [[lon, lat] for _, lon, lat in starts]
    frames = []
    for step in range(steps):
        locs = []
        for device, (city, _, _) in enumerate(starts):
            x0, y0, x1, y1 = metro[city]
            p = position[device]
            p[0] += rng.uniform(-step_deg, step_deg)
            p[1] += rng.uniform(-step_deg, step_deg) * 0.6
            p[0] = x0 + abs(p[0] - x0) if p[0] < x0 else x1 - abs(p[0] - x1) if p[0] > x1 else p[0]
            p[1] = y0 + abs(p[1] - y0) if p[1] < y0 else y1 - abs(p[1] - y1) if p[1] > y1 else p[1]
            locs.append(f'{{"device":"d{device}","lat":{p[1]:.5f},"lon":{p[0]:.5f},"ts":{1764421200000 + step * 1000}}}')
        frames.append(['{"op":"publish","ack":true,"locs":[' + ",".join(locs[i:i + batch]) + "]}"
                       for i in range(0, len(locs), batch)])
    order = frames + frames[-2:0:-1]
    return [(message, message.count('"device"')) for step in order for message in step]


# ---- viewer worker: raw sockets, frames counted by their prefix ----------------------

PATTERNS = {"frames": b'{"op":"', "leave": b'{"op":"leave"', "subscribed": b'{"op":"subscribed"',
            "error": b'{"op":"error"'}
TAIL = max(len(p) for p in PATTERNS.values()) - 1


def client_frame(text):
    """A masked text frame, as a client must send it."""
    payload = text.encode()
    mask = os.urandom(4)
    size = len(payload)
    header = bytes([0x81, 0x80 | size]) if size < 126 else bytes([0x81, 0xFE]) + size.to_bytes(2, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Viewer(asyncio.Protocol):
    def __init__(self, counts, host, port):
        self.counts, self.host, self.port = counts, host, port
        self.head, self.tail, self.upgraded = b"", b"", asyncio.get_running_loop().create_future()

    def connection_made(self, transport):
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write((f"GET /v1/stream HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())

    def data_received(self, data):
        if not self.upgraded.done():
            self.head += data
            if b"\r\n\r\n" not in self.head:
                return
            head, data = self.head.split(b"\r\n\r\n", 1)
            if not head.startswith(b"HTTP/1.1 101"):
                self.upgraded.set_exception(RuntimeError(head.split(b"\r\n")[0].decode()))
                return
            self.upgraded.set_result(True)
        both = self.tail + data
        for name, pattern in PATTERNS.items():  # occurrences inside the old tail were counted already
            self.counts[name] += both.count(pattern) - self.tail.count(pattern)
        self.tail = both[-TAIL:]

    def connection_lost(self, exc):
        self.counts["lost"] += 1


async def worker(args):
    """Serves commands from stdin, one per line, answering one JSON line each."""
    starts, views = layout(args.devices, args.viewers, args.seed)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    counts = dict.fromkeys(list(PATTERNS) + ["lost"], 0)
    viewers = []  # (index, protocol)
    limit = asyncio.Semaphore(200)

    async def connect(index):
        async with limit:
            _, viewer = await loop.create_connection(lambda: Viewer(counts, args.host, args.port), args.host, args.port)
            await viewer.upgraded
            viewers.append((index, viewer))

    async def subscribed(target):
        deadline = time.monotonic() + 60
        while counts["subscribed"] + counts["error"] < target and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    while line := (await reader.readline()).decode().split():
        command = line[0]
        if command == "connect":  # connect FIRST COUNT
            first, count = int(line[1]), int(line[2])
            await asyncio.gather(*(connect(i) for i in range(first, first + count)))
        elif command == "sub":  # sub devices|areas: one subscribe per connection, switching any previous one
            target = counts["subscribed"] + len(viewers)
            for index, viewer in viewers:
                what = ({"devices": [f"d{index % args.devices}"]} if line[1] == "devices"
                        else {"area": {"bbox": views[index]}})
                viewer.transport.write(client_frame(json.dumps(
                    {"op": "subscribe", "sub": f"{line[1]}-{index}", "snapshot": False, **what})))
            await subscribed(target)
        elif command == "close":
            for _, viewer in viewers:
                viewer.transport.close()
        print(json.dumps({**counts, "connections": len(viewers)}), flush=True)


# ---- coordinator: publishers, phases, measurements -----------------------------------

def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def runqueue_wait(pid):
    """Seconds the process's threads spent runnable but waiting for a CPU (other load)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as stat:
                total += int(stat.read().split()[1])
        except FileNotFoundError:
            pass
    return total / 1e9


def metrics(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        for key, name in (("sent", "locstream_frames_sent_total "),
                          ("conflated", 'locstream_frames_dropped_total{reason="conflated"} '),
                          ("published", "locstream_publish_total ")):
            if line.startswith(name):
                values[key] = int(float(line.split()[-1]))
    return values


class Workers:
    def __init__(self, processes):
        self.processes = processes

    @classmethod
    async def start(cls, args):
        command = [sys.executable, __file__, "--worker", "--host", args.host, "--port", str(args.port),
                   "--devices", str(args.devices), "--viewers", str(args.viewers), "--seed", str(args.seed)]
        processes = [await asyncio.create_subprocess_exec(*command, stdin=asyncio.subprocess.PIPE,
                                                          stdout=asyncio.subprocess.PIPE)
                     for _ in range(args.workers)]
        return cls(processes)

    async def ask(self, commands):
        for process, command in zip(self.processes, commands):
            process.stdin.write((command + "\n").encode())
        replies = []
        for process in self.processes:
            line = await asyncio.wait_for(process.stdout.readline(), 300)
            replies.append(json.loads(line))
        return {key: sum(reply[key] for reply in replies) for key in replies[0]}

    async def tell(self, command):
        return await self.ask([command] * len(self.processes))

    def cpu(self):
        return sum(cpu_seconds(process.pid) for process in self.processes)

    async def stop(self):
        for process in self.processes:
            process.stdin.close()
        for process in self.processes:
            await asyncio.wait_for(process.wait(), 30)


async def publish_for(args, batches, seconds):
    """Publishers send batches as fast as acks come back (window in flight); returns the
    number of locations acknowledged and the wall time until the last ack."""
    url = f"ws://{args.host}:{args.port}/v1/stream"
    acked = [0]
    start = time.monotonic()
    stop_at = start + seconds

    async def publisher():
        async with websockets.connect(url, max_size=None, ping_interval=None, compression=None) as ws:
            await ws.recv()  # welcome
            window = asyncio.Semaphore(args.window)
            in_flight = []

            async def acks():
                async for message in ws:
                    if not message.startswith('{"op":"published"'):
                        raise RuntimeError(f"publish failed: {message[:200]}")
                    acked[0] += in_flight.pop(0)
                    window.release()

            reader = asyncio.create_task(acks())
            while time.monotonic() < stop_at and not reader.done():
                await window.acquire()
                message, count = next(batches)
                in_flight.append(count)
                await ws.send(message)
            for _ in range(args.window):  # wait for the last acks
                await asyncio.wait_for(window.acquire(), 30)
            reader.cancel()

    await asyncio.gather(*(publisher() for _ in range(args.publishers)))
    return acked[0], time.monotonic() - start


async def phase(args, name, batches, workers, viewers):
    counts = await workers.tell("count") if workers else {}
    before = metrics(args.port)
    cpu = (cpu_seconds(args.pid), os.times(), workers.cpu() if workers else 0.0)
    waited = runqueue_wait(args.pid)
    published, wall = await publish_for(args, batches, args.seconds)
    frames, drained = counts.get("frames", 0), time.monotonic()
    while workers and time.monotonic() - drained < 10:  # the last frames in flight
        after_counts = await workers.tell("count")
        if after_counts["frames"] == frames:
            break
        frames = after_counts["frames"]
        await asyncio.sleep(0.2)
    elapsed = wall + (time.monotonic() - drained if workers else 0)
    server_cpu = cpu_seconds(args.pid) - cpu[0]
    server_waited = runqueue_wait(args.pid) - waited
    own = os.times()
    publisher_cpu = own.user + own.system - cpu[1].user - cpu[1].system
    worker_cpu = (workers.cpu() - cpu[2]) if workers else 0.0
    after = metrics(args.port)
    received = (frames - counts["frames"]) if workers else 0
    leaves = (after_counts["leave"] - counts["leave"]) if workers else 0
    return {
        "label": args.label, "phase": name, "viewers": viewers, "devices": args.devices, "seconds": round(wall, 2),
        "pubs": published, "pubs_per_s": round(published / wall),
        "frames": received, "leave_frames": leaves, "frames_per_s": round(received / wall),
        "frames_per_pub": round(received / max(published, 1), 2),
        "server_frames_sent": after["sent"] - before["sent"], "conflated": after["conflated"] - before["conflated"],
        "server_cpu_pct": round(100 * server_cpu / elapsed), "server_us_per_pub": round(server_cpu / published * 1e6, 2),
        "server_runqueue_wait_pct": round(100 * server_waited / elapsed),
        "publisher_cpu_pct": round(100 * publisher_cpu / elapsed), "viewer_cpu_pct": round(100 * worker_cpu / elapsed),
        "lost_connections": after_counts.get("lost", 0) if workers else 0,
    }


def show(row):
    print(f"{row['phase']:>8} {row['viewers']:>7} {row['pubs_per_s']:>9} {row['frames_per_s']:>9} "
          f"{row['frames_per_pub']:>7} {row['server_us_per_pub']:>8} {row['server_cpu_pct']:>6}% "
          f"{row['publisher_cpu_pct']:>6}% {row['viewer_cpu_pct']:>6}% {row['conflated']:>9} "
          f"{row['server_runqueue_wait_pct']:>7}%", flush=True)


async def coordinate(args):
    started = time.monotonic()
    starts, views = layout(args.devices, args.viewers, args.seed)
    batches = itertools.cycle(walk_batches(starts, args.steps, args.batch, args.step_deg, args.seed))
    print(f"# {args.devices} devices, {args.viewers} viewers in {len(CITIES)} cities; "
          f"{args.publishers} publishers × window {args.window} × {args.batch}-location batches; "
          f"{args.seconds:g} s per phase; setup {time.monotonic() - started:.1f} s", flush=True)
    print(f"{'phase':>8} {'viewers':>7} {'pubs/s':>9} {'frames/s':>9} {'fr/pub':>7} {'µs/pub':>8} "
          f"{'server':>7} {'pubs':>7} {'viewers':>7} {'conflated':>9} {'waited':>8}", flush=True)
    rows = [await phase(args, "none", batches, None, 0)]
    show(rows[-1])
    workers = await Workers.start(args)
    try:
        share = -(-args.viewers // args.workers)
        connected = await workers.ask([f"connect {i * share} {min(share, args.viewers - i * share)}"
                                       for i in range(args.workers)])
        print(f"# {connected['connections']} viewer connections open after {time.monotonic() - started:.1f} s",
              flush=True)
        for kind in ["devices", "areas"]:
            subscribed = await workers.tell(f"sub {kind}")
            if subscribed["error"]:
                raise RuntimeError(f"{subscribed['error']} subscribe errors")
            before, idle_start = cpu_seconds(args.pid), time.monotonic()
            await asyncio.sleep(args.idle_seconds)  # what the open connections cost with nothing published
            idle = 100 * (cpu_seconds(args.pid) - before) / (time.monotonic() - idle_start)
            print(f"# idle with {kind} subscriptions: server at {idle:.0f}% of a core", flush=True)
            rows.append(await phase(args, kind, batches, workers, connected["connections"]))
            rows[-1]["idle_server_cpu_pct"] = round(idle)
            show(rows[-1])
        await workers.tell("close")
    finally:
        await workers.stop()
    for row in rows:
        row.update({"date": time.strftime("%Y-%m-%d"), "batch": args.batch, "publishers": args.publishers,
                    "window": args.window, "workers": args.workers, "loadavg": open("/proc/loadavg").read().split()[:3]})
    if args.out:
        with open(args.out, "a") as out:
            out.writelines(json.dumps(row) + "\n" for row in rows)
    base = rows[0]["pubs_per_s"]
    for row in rows[1:]:
        print(f"# {row['phase']}: {row['pubs_per_s'] / base:.2f} × the publications/s of 'none', "
              f"{row['server_us_per_pub'] / rows[0]['server_us_per_pub']:.1f} × its server CPU per publication")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--pid", type=int, help="the stream-server process id (coordinator only)")
    parser.add_argument("--devices", type=int, default=10_000)
    parser.add_argument("--viewers", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=20, help="publishing time per phase")
    parser.add_argument("--batch", type=int, default=500, help="locations per publish")
    parser.add_argument("--publishers", type=int, default=4)
    parser.add_argument("--window", type=int, default=32, help="unacknowledged batches per publisher")
    parser.add_argument("--workers", type=int, default=2, help="viewer processes")
    parser.add_argument("--steps", type=int, default=40, help="random-walk steps per device before it walks back")
    parser.add_argument("--step-deg", type=float, default=0.0005, help="largest step, degrees of longitude")
    parser.add_argument("--idle-seconds", type=float, default=5, help="server CPU measured idle before each phase")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", help="append one JSON line per phase here")
    parser.add_argument("--label", default="", help="copied into every row (which server options, say)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(worker(args))
    else:
        if args.pid is None:
            parser.error("--pid is required")
        asyncio.run(coordinate(args))


if __name__ == "__main__":
    main()
