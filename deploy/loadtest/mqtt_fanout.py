#!/usr/bin/env python3
"""The fanout shape of `stream-client bench --scenario fanout`, against an MQTT broker over
WebSocket: the peer run.sh compares locstream with.

S subscribers, each subscribed to K of D device topics (round-robin, as the bench deals
them), one publisher sending R updates per second in total, each update of device n mod D
to the topic `bench/<prefix><n>` at QoS 0. The payload is the same JSON location the bench
publishes, plus a per-device `seq` (MQTT has none) and the publish time in microseconds
(`us`), from which latency is measured on this host's clock.

One process, one thread: paho-mqtt clients over WebSocket, driven by a selector loop. Such
a process tops out near 50-60k received messages per second; its own CPU is reported as
bench_cpu_percent, so a report can tell when the generator, not the broker, was the limit.

Only loopback addresses are used: the broker's URL is 127.0.0.1, and connections are
spread over the source addresses 127.0.0.1..N. Every loop is bounded in count and time,
and the run stops by itself. It prints one JSON object (the bench's field names) on stdout.
"""

import argparse
import concurrent.futures
import json
import selectors
import sys
import time

import paho.mqtt.client as mqtt

from procstat import cpu_ticks, rss_kib

TICKS = 100  # clock ticks per second in /proc/PID/stat (USER_HZ)


def percent(start, end, seconds):
    if start is None or end is None or seconds <= 0:
        return None
    return (end - start) / TICKS / seconds * 100


def quantile(sorted_values, q):
    if not sorted_values:
        return None
    rank = max(1, int(-(-q * len(sorted_values) // 1)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def latency_summary(values_us):
    if not values_us:
        return None
    values = sorted(values_us)
    ms = lambda v: round(v / 1000, 3)  # noqa: E731
    return {
        "p50": ms(quantile(values, 0.5)), "p90": ms(quantile(values, 0.9)), "p99": ms(quantile(values, 0.99)),
        "p999": ms(quantile(values, 0.999)), "max": ms(values[-1]), "mean": round(sum(values) / len(values) / 1000, 3),
    }


def int_after(payload, key):
    """The non-negative integer after `key` (bytes such as b'"us":') in payload, or None."""
    at = payload.find(key)
    if at < 0:
        return None
    at += len(key)
    end = at
    while end < len(payload) and 48 <= payload[end] <= 57:
        end += 1
    return int(payload[at:end]) if end > at else None


class Tally:
    """What the subscribers received, per second from the origin."""

    def __init__(self, subscribers):
        self.frames = 0
        self.bytes = 0
        self.seq_gaps = 0
        self.seq_skipped = 0
        self.duplicates = 0
        self.out_of_order = 0
        self.errors = 0
        self.latencies = []
        self.per_second = {}
        self.last_seq = [dict() for _ in range(subscribers)]
        self.origin = None

    def receive(self, index, topic, payload, now):
        us = int_after(payload, b'"us":')
        seq = int_after(payload, b'"seq":')
        if us is None or seq is None:
            self.errors += 1
            return
        self.frames += 1
        self.bytes += len(payload)
        last = self.last_seq[index]
        previous = last.get(topic)
        if previous is None or seq == previous + 1:
            last[topic] = seq
        elif seq == previous:
            self.duplicates += 1
        elif seq < previous:
            self.out_of_order += 1
        else:
            self.seq_gaps += 1
            self.seq_skipped += seq - previous - 1
            last[topic] = seq
        latency = int(now * 1_000_000) - us
        self.latencies.append(latency)
        if self.origin is not None:
            second = int(now - self.origin)
            entry = self.per_second.setdefault(second, [0, [], 0, 0])
            entry[0] += 1
            entry[1].append(latency)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True, help="the broker's WebSocket port on 127.0.0.1")
    parser.add_argument("--path", default="/mqtt")
    parser.add_argument(
        "--transport", choices=["websockets", "tcp"], default="websockets", help="tcp: plain MQTT, for comparison")
    parser.add_argument("--subscribers", type=int, default=100)
    parser.add_argument("--devices", type=int, default=100)
    parser.add_argument("--per-subscriber", type=int, default=1)
    parser.add_argument("--rate", type=float, default=1000)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--cycle-ms", type=int, default=5)
    parser.add_argument("--drain", type=float, default=3)
    parser.add_argument("--prefix", default="bench-")
    parser.add_argument("--source-addresses", type=int, default=4)
    parser.add_argument("--broker-pid", type=int)
    parser.add_argument("--label", default=None)
    parser.add_argument("--timeline", help="write per-second samples here, one JSON object per line")
    parser.add_argument("--time-limit", type=float, default=300, help="hard cap on the whole run, in seconds")
    args = parser.parse_args()
    for name in ("subscribers", "devices", "per_subscriber", "duration", "cycle_ms"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.per_subscriber > args.devices:
        parser.error("--per-subscriber must not exceed --devices")
    if not 1 <= args.source_addresses <= 254:
        parser.error("--source-addresses must be from 1 to 254")

    hard_end = time.monotonic() + args.time_limit
    S, D, K = args.subscribers, args.devices, args.per_subscriber
    devices_of = lambda i: [(i * K + j) % D for j in range(K)]  # noqa: E731
    topic = lambda d: f"bench/{args.prefix}{d}"  # noqa: E731
    tally = Tally(S)
    selector = selectors.DefaultSelector()
    subscribed = [0]
    clients = []

    def make_client(client_id, index, source):
        """A connected client (the blocking WebSocket handshake runs in a worker thread)."""
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, transport=args.transport)
        if args.transport == "websockets":
            client.ws_set_options(path=args.path)
        if index is not None:
            client.on_message = lambda c, u, m: tally.receive(index, m.topic, m.payload, time.time())
            client.on_subscribe = lambda c, u, mid, codes, props: subscribed.__setitem__(0, subscribed[0] + 1)
        client.connect("127.0.0.1", args.port, keepalive=60, bind_address=source)
        return client

    def adopt(client):
        selector.register(client.socket(), selectors.EVENT_READ, client)
        clients.append(client)
        return client

    connect_start = time.monotonic()
    connect_failures = 0
    subscribers = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=64) as pool:
        futures = {
            pool.submit(make_client, f"sub-{i}", i, f"127.0.0.{1 + i % args.source_addresses}"): i for i in range(S)
        }
        for future in concurrent.futures.as_completed(futures, timeout=max(1, hard_end - time.monotonic())):
            i = futures[future]
            try:
                client = adopt(future.result())
                client.subscribe([(topic(d), 0) for d in devices_of(i)])
                subscribers.append(i)
            except OSError:
                connect_failures += 1
    connect_seconds = time.monotonic() - connect_start
    publisher = adopt(make_client("publisher", None, "127.0.0.1"))

    def read_all(client):
        """Reads every packet the client's socket has, at most 1,000. paho's loop_read() reads
        one packet per call when no QoS 1/2 message is in flight, which throttles a QoS 0
        subscriber to one message per select(); so this calls its packet reader directly."""
        for _ in range(1000):
            if client.socket() is None:
                return
            rc = client._packet_read()
            if rc == mqtt.MQTTErrorCode.MQTT_ERR_AGAIN:
                return
            if rc > 0:
                client._loop_rc_handle(rc)
                return

    def service(timeout):
        for key, _ in selector.select(timeout):
            read_all(key.data)
        for client in clients:
            if client.want_write():
                client.loop_write()

    wait_end = min(hard_end, time.monotonic() + 30)
    while subscribed[0] < len(subscribers) and time.monotonic() < wait_end:
        service(0.01)

    watchers = [0] * D
    for i in subscribers:
        for d in devices_of(i):
            watchers[d] += 1
    origin = int(time.time()) + 1
    while time.time() < origin and time.monotonic() < hard_end:
        service(max(0.0, min(0.01, origin - time.time())))
    tally.origin = origin
    broker_start, self_start = cpu_ticks(args.broker_pid) if args.broker_pid else None, cpu_ticks("self")
    per_second_cpu = {}
    last_sample = (0, broker_start, self_start, time.monotonic())

    seq = [0] * D
    total = int(args.rate * args.duration)
    sent = 0
    published = [0] * D
    head = b'{"device":"'
    misc_at = time.monotonic()
    window_end = origin + args.duration
    cpu_end = None
    drain_end = None
    last_progress = (0, time.monotonic())
    while time.monotonic() < hard_end:
        now = time.time()
        if sent < total and now < window_end + 1:
            due = min(total, int((now - origin) * args.rate) + 1)
            if due > sent:
                us = int(now * 1_000_000)
                ts = us // 1000
                for n in range(sent, due):
                    d = n % D
                    seq[d] += 1
                    payload = (
                        head + f'{args.prefix}{d}","lat":52.520008,"lon":13.404954,"ts":{ts},"seq":{seq[d]},'
                        f'"speed":8.3,"heading":271.5,"acc":4.5,"us":{us}}}'.encode()
                    )
                    publisher.publish(topic(d), payload, qos=0)
                    published[d] += 1
                second = int(now - origin)
                entry = tally.per_second.setdefault(second, [0, [], 0, 0])
                entry[2] += due - sent
                entry[3] += sum(watchers[(n % D)] for n in range(sent, due))
                sent = due
        elif cpu_end is None and now >= window_end:
            cpu_end = (cpu_ticks(args.broker_pid) if args.broker_pid else None, cpu_ticks("self"), now)
            drain_end = time.monotonic() + args.drain
        service(args.cycle_ms / 1000)
        mono = time.monotonic()
        if mono - misc_at >= 1:
            misc_at = mono
            for client in clients:
                client.loop_misc()
        second_now = int(time.time() - origin)
        if second_now > last_sample[0] and second_now <= args.duration + args.drain + 1:
            broker_now = cpu_ticks(args.broker_pid) if args.broker_pid else None
            self_now = cpu_ticks("self")
            elapsed = mono - last_sample[3]
            per_second_cpu[last_sample[0]] = (
                percent(last_sample[1], broker_now, elapsed), percent(last_sample[2], self_now, elapsed))
            last_sample = (second_now, broker_now, self_now, mono)
        if drain_end is not None:
            expected = sum(watchers[d] * published[d] for d in range(D))
            if tally.frames != last_progress[0]:
                last_progress = (tally.frames, mono)
            if tally.frames >= expected or mono >= drain_end or mono - last_progress[1] > 1:
                break

    expected = sum(watchers[d] * published[d] for d in range(D))
    window = [tally.per_second.get(s, [0, [], 0, 0]) for s in range(args.duration)]
    delivered_fps = sum(e[0] for e in window) / args.duration
    expected_fps = sum(e[3] for e in window) / args.duration
    seconds = (cpu_end[2] - origin) if cpu_end else None
    server_cpu = percent(broker_start, cpu_end[0], seconds) if cpu_end and args.broker_pid else None
    bench_cpu = percent(self_start, cpu_end[1], seconds) if cpu_end else None
    saturated = (
        "server" if server_cpu is not None and server_cpu >= 90
        else "bench" if bench_cpu is not None and bench_cpu >= 90
        else "neither" if server_cpu is not None else "unknown"
    )
    report = {
        "scenario": "fanout", "peer": "mosquitto", "label": args.label,
        "url": f"ws://127.0.0.1:{args.port}{args.path}" if args.transport == "websockets" else f"mqtt://127.0.0.1:{args.port}", "completed": time.monotonic() < hard_end,
        "conditions": {
            "subscribers": len(subscribers), "subscribers_requested": S, "devices": D, "per_subscriber": K,
            "rate": args.rate, "duration_s": args.duration, "publishers": 1, "cycle_ms": args.cycle_ms,
            "payload_bytes": round(tally.bytes / tally.frames, 3) if tally.frames else None,
            "source_addresses": args.source_addresses, "generator": "python paho-mqtt, one process",
        },
        "delivered_fps": delivered_fps, "expected_fps": expected_fps, "frames": tally.frames,
        "expected_frames": expected, "latency_ms": latency_summary(tally.latencies),
        "missing": max(0, expected - (tally.frames - tally.duplicates - tally.out_of_order)),
        "seq_gaps": tally.seq_gaps, "seq_skipped": tally.seq_skipped, "out_of_order": tally.out_of_order,
        "duplicates": tally.duplicates, "stale_after_ack": None, "switch_ack_ms": None,
        "connects_per_s": round(len(subscribers) / connect_seconds, 3) if connect_seconds > 0 else None,
        "connect_failures": connect_failures, "errors": tally.errors, "disconnects": 0,
        "server_cpu_percent": server_cpu, "server_rss_kib": rss_kib(args.broker_pid) if args.broker_pid else None,
        "bench_cpu_percent": bench_cpu, "bench_rss_kib": rss_kib("self"), "saturated": saturated,
    }
    if args.timeline:
        with open(args.timeline, "w") as f:
            last = max(tally.per_second) if tally.per_second else -1
            for s in range(last + 1):
                frames, latencies, pub, exp = tally.per_second.get(s, [0, [], 0, 0])
                summary = latency_summary(latencies) or {}
                server, bench = per_second_cpu.get(s, (None, None))
                f.write(json.dumps({
                    "scenario": "fanout", "peer": "mosquitto", "label": args.label, "second": s, "frames": frames,
                    "expected": exp, "published": pub, "p50_ms": summary.get("p50"), "p90_ms": summary.get("p90"),
                    "p99_ms": summary.get("p99"), "max_ms": summary.get("max"), "server_cpu_percent": server,
                    "bench_cpu_percent": bench,
                }) + "\n")
    for client in clients:
        try:
            client.disconnect()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
