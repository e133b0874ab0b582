#!/usr/bin/env python3
"""Redis recovery figures for scale-out-bench.sh: how a two-node deployment comes back
after Redis is killed and restarted.

Starts redis-server (append-only file, fsync always) and two stream-server nodes on
loopback, publishes one device on node1 (ack per publish) while a viewer on node2
watches it, kills Redis with SIGKILL, restarts it after --down-seconds, and measures:
when node2 turned unready, when both nodes were ready again, when the viewer got its
first live frame after the restart, publishes refused meanwhile, and how many frames
a second viewer gets back when it resumes with since = the first viewer's last seq
before the kill. Prints one JSON object. Everything is bounded by --time-limit and
stopped on exit.
"""
import argparse
import asyncio
import json
import os
import signal
import subprocess
import time
import urllib.request

import websockets

DEVICE = "rec-1"


def ready(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


def metrics(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as response:
        values = {}
        for line in response.read().decode().splitlines():
            parts = line.split(" ")
            if not line.startswith("#") and len(parts) == 2:
                values[parts[0]] = float(parts[1])
        return values


async def until(condition, timeout, step=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(step)
    return False


class Redis:
    def __init__(self, port, directory):
        self.port, self.directory, self.process = port, directory, None

    def start(self):
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--dir", self.directory,
             "--appendonly", "yes", "--appendfsync", "always", "--logfile", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            if subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True).stdout.strip() == b"PONG":
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


async def subscribe(url, sub, since=None):
    connection = await websockets.connect(url, max_size=None)
    await connection.recv()  # welcome
    request = {"op": "subscribe", "sub": sub, "devices": [DEVICE], "snapshot": False}
    if since is not None:
        request["since"] = {DEVICE: since}
    await connection.send(json.dumps(request))
    while True:
        frame = json.loads(await connection.recv())
        if frame["op"] == "subscribed":
            return connection, frame["snapshot"]


async def run(args):
    redis_port, ports = 16392, (18321, 18322)
    os.makedirs(args.work, exist_ok=True)
    redis = Redis(redis_port, args.work)
    redis.start()
    nodes = [
        subprocess.Popen(
            [os.path.join(args.bin_dir, "stream-server"), "--host", "127.0.0.1", "--port", str(port),
             "--node", f"node{index + 1}", "--broker", "redis", "--redis-url", f"redis://127.0.0.1:{redis_port}/0",
             "--redis-timeout-ms", "500", "--history-size", "100000", "--log-level", "warning",
             "--publish-rate", "10000000", "--publish-burst", "10000000", "--max-connections-per-ip", "10000"],
            stderr=open(os.path.join(args.work, f"recovery-node{index + 1}.log"), "w"))
        for index, port in enumerate(ports)]
    try:
        assert await until(lambda: all(ready(port) for port in ports), 20), "nodes not ready"
        viewer, _ = await subscribe(f"ws://127.0.0.1:{ports[1]}/v1/stream", "v")
        seen = []  # (monotonic time, seq)
        state = {"connected": True, "stop": False, "accepted": 0, "refused": 0}

        async def watch():
            try:
                async for message in viewer:
                    frame = json.loads(message)
                    if frame["op"] == "loc":
                        seen.append((time.monotonic(), frame["seq"]))
            except websockets.ConnectionClosed:
                state["connected"] = False

        async def publish():
            connection = await websockets.connect(f"ws://127.0.0.1:{ports[0]}/v1/stream")
            await connection.recv()
            while not state["stop"]:
                location = {"device": DEVICE, "lat": 52.5, "lon": 13.4, "ts": int(time.time() * 1000)}
                await connection.send(json.dumps({"op": "publish", "loc": location, "ack": True}))
                reply = json.loads(await connection.recv())
                state["accepted" if reply["op"] == "published" else "refused"] += 1
                await asyncio.sleep(args.publish_ms / 1000)
            await connection.close()

        watcher, publisher = asyncio.create_task(watch()), asyncio.create_task(publish())
        started = time.monotonic()
        await asyncio.sleep(2)
        last_before = seen[-1][1] if seen else 0
        redis.kill()
        killed = time.monotonic()
        await until(lambda: not ready(ports[1]), 10)
        not_ready_after = time.monotonic() - killed
        await asyncio.sleep(max(0.0, args.down_seconds - (time.monotonic() - killed)))
        redis.start()
        restarted = time.monotonic()
        await until(lambda: all(ready(port) for port in ports), 30)
        ready_after = time.monotonic() - restarted
        await until(lambda: any(t > restarted for t, _ in seen), 30)
        live = [t for t, _ in seen if t > restarted]
        first_live = live[0] - restarted if live else None
        await asyncio.sleep(1)
        state["stop"] = True
        await publisher
        rate = state["accepted"] / (time.monotonic() - started)

        resumed, replayed = await subscribe(f"ws://127.0.0.1:{ports[1]}/v1/stream", "r", since=last_before)
        seqs = []
        for _ in range(replayed):
            frame = json.loads(await resumed.recv())
            if frame["op"] == "loc":
                seqs.append(frame["seq"])
        await resumed.close()
        await viewer.close()
        await watcher
        node2 = metrics(ports[1])
        return {
            "publish_rate": round(rate), "down_seconds": args.down_seconds,
            "not_ready_after_s": round(not_ready_after, 3), "ready_after_restart_s": round(ready_after, 3),
            "first_live_after_restart_s": None if first_live is None else round(first_live, 3),
            "accepted": state["accepted"], "refused": state["refused"], "viewer_connected": state["connected"],
            "replayed": replayed, "replay_gap_free": seqs == list(range(last_before + 1, last_before + 1 + len(seqs))),
            "node2_errors": int(node2.get("locstream_broker_errors_total", 0)),
            "node2_connects": int(node2.get("locstream_broker_connects_total", 0)),
        }
    finally:
        for node in nodes:
            node.terminate()
        if redis.process.poll() is None:
            redis.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", required=True, help="where stream-server is")
    parser.add_argument("--work", required=True, help="a scratch directory (Redis's append-only file, logs)")
    parser.add_argument("--down-seconds", type=float, default=2.0)
    parser.add_argument("--publish-ms", type=float, default=2.0, help="pause between publishes")
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(asyncio.wait_for(run(args), args.time_limit))))


if __name__ == "__main__":
    main()
