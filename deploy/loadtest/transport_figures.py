#!/usr/bin/env python3
"""Transport figures for locstream against a peer measured in the same run.

1. RSS per idle WebSocket connection at several connection counts, for the
   locstream server (/v1/echo and /v1/stream) and for a Python `websockets` echo
   server (the peer), each in a fresh process: (RSS after - RSS before) / N.
2. Echo round trips per second with 1 and with 64 connections, against both.

Only 127.0.0.1 is targeted; every loop is bounded in count and time.
Usage: transport_figures.py SERVER_BINARY [--counts 1000,5000,15000] [--seconds 5]
"""
import argparse
import asyncio
import os
import re
import subprocess
import sys
import threading
import time

import websockets

PEER_SERVER = r'''
import asyncio, sys, websockets
async def echo(ws):
    async for message in ws:
        await ws.send(message)
async def main():
    async with websockets.serve(echo, "127.0.0.1", 0, ping_interval=None, max_size=65536) as server:
        print("port=%d" % server.sockets[0].getsockname()[1], file=sys.stderr, flush=True)
        await asyncio.Future()
asyncio.run(main())
'''


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    """A server process on a free loopback port, pinned to core 0."""

    def __init__(self, command):
        self.process = subprocess.Popen(["taskset", "-c", "0"] + command, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        self.port = None
        while self.port is None and time.time() < deadline:
            line = self.process.stderr.readline()
            match = re.search(r'port"?[=:]"?(\d+)', line)
            if match:
                self.port = int(match.group(1))
        if self.port is None:
            raise SystemExit(f"server did not start: {command}")
        # Keep reading its log, or a full pipe would stall the server mid-run.
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


async def idle_connections(server, path, count, welcome):
    before = rss_kib(server.process.pid)
    sockets = []
    for _ in range(count):
        ws = await websockets.connect(f"ws://127.0.0.1:{server.port}{path}", ping_interval=None, open_timeout=30)
        if welcome:
            await asyncio.wait_for(ws.recv(), 10)
        sockets.append(ws)
    await asyncio.sleep(1)
    per_connection = (rss_kib(server.process.pid) - before) / count
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    return per_connection


async def echo_rate(server, path, connections, seconds):
    sockets = [await websockets.connect(f"ws://127.0.0.1:{server.port}{path}", ping_interval=None)
               for _ in range(connections)]
    counts = [0] * connections
    deadline = time.time() + seconds
    cpu_before = cpu_seconds(server.process.pid)

    async def run(index, ws):
        payload = f"conn {index} " + "x" * 40
        while time.time() < deadline:
            await ws.send(payload)
            if await asyncio.wait_for(ws.recv(), 10) != payload:
                raise SystemExit("echo mismatch")
            counts[index] += 1

    started = time.time()
    await asyncio.gather(*(run(i, ws) for i, ws in enumerate(sockets)))
    elapsed = time.time() - started
    server_cpu = (cpu_seconds(server.process.pid) - cpu_before) / elapsed * 100
    for ws in sockets:
        await ws.close()
    return sum(counts) / elapsed, server_cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("server_binary")
    parser.add_argument("--counts", default="1000,5000,15000")
    parser.add_argument("--seconds", type=float, default=5)
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    locstream = [args.server_binary, "--host", "127.0.0.1", "--port", "0", "--enable-echo",
                 "--max-connections", "20000", "--max-connections-per-ip", "20000"]
    peer = [sys.executable, "-c", PEER_SERVER]

    print("## RSS per idle connection (KiB), fresh server process per row\n")
    print("| connections | locstream /v1/echo | locstream /v1/stream (after welcome) | Python websockets (peer) | ratio echo/peer |")
    print("|---|---|---|---|---|")
    for count in counts:
        row = []
        for command, path, welcome in [(locstream, "/v1/echo", False), (locstream, "/v1/stream", True),
                                       (peer, "/", False)]:
            server = Server(command)
            try:
                row.append(asyncio.run(idle_connections(server, path, count, welcome)))
            finally:
                server.stop()
        print(f"| {count} | {row[0]:.2f} | {row[1]:.2f} | {row[2]:.2f} | {row[0] / row[2]:.2f} |")

    print(f"\n## Echo round trips per second ({args.seconds:.0f} s each, 48-byte text, client: one Python process on core 1)\n")
    print("| connections | locstream rt/s (server CPU %) | Python websockets rt/s (server CPU %) | ratio |")
    print("|---|---|---|---|")
    for connections in [1, 64]:
        results = []
        for command, path in [(locstream, "/v1/echo"), (peer, "/")]:
            server = Server(command)
            try:
                results.append(asyncio.run(echo_rate(server, path, connections, args.seconds)))
            finally:
                server.stop()
        (ours, our_cpu), (theirs, their_cpu) = results
        print(f"| {connections} | {ours:.0f} ({our_cpu:.0f} %) | {theirs:.0f} ({their_cpu:.0f} %) | {ours / theirs:.2f} |")


if __name__ == "__main__":
    os.sched_setaffinity(0, {1})
    main()
