#!/usr/bin/env python3
"""A stand-in locstream server that only feeds `loc` frames, for client-figures.sh.

    loc-feeder.py PORT SECONDS [RATE]

Listens on 127.0.0.1:PORT (loopback only) for WebSocket connections on any path. Each
connection gets `welcome`; its `subscribe` (devices only) is answered with `subscribed`
(no snapshot), and then `loc` frames for its devices go out round-robin, each device's seq
counting up from 1: as fast as the client reads them (the socket's send buffer paces the
feeder), or at most RATE frames a second when RATE is given. Frames look like the
server's live ones for the bench's publishes (device, lat, lon, ts, seq, speed, heading,
acc). The process exits after SECONDS, whatever happens.

What it is for: the real server costs about 20 us of its CPU per frame it sends, so on a
2-core machine it cannot offer one consumer 200k frames/s. This feeder writes pre-framed
bytes with one send per thousand frames, so the consumer, on its own core, is what limits
the rate, and its elements per CPU-second is what one core of the consumer takes.
"""
import base64
import hashlib
import json
import os
import socket
import struct
import sys
import threading
import time

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def frame(payload: bytes) -> bytes:
    """One unmasked text frame (server to client)."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65536:
        return bytes((0x81, 126)) + struct.pack(">H", n) + payload
    return bytes((0x81, 127)) + struct.pack(">Q", n) + payload


def read_frame(conn: socket.socket, buffer: bytearray):
    """The next (opcode, payload) from the client, or None at the end."""
    while True:
        if len(buffer) >= 2:
            opcode, second = buffer[0] & 0x0F, buffer[1]
            length, offset = second & 0x7F, 2
            if length == 126 and len(buffer) >= 4:
                length, offset = struct.unpack(">H", buffer[2:4])[0], 4
            elif length == 127 and len(buffer) >= 10:
                length, offset = struct.unpack(">Q", buffer[2:10])[0], 10
            if (second & 0x7F) < 126 or offset > 2:
                masked = second & 0x80
                need = offset + (4 if masked else 0) + length
                if len(buffer) >= need:
                    mask = buffer[offset:offset + 4] if masked else b"\0\0\0\0"
                    start = offset + (4 if masked else 0)
                    data = bytes(b ^ mask[i % 4] for i, b in enumerate(buffer[start:need]))
                    del buffer[:need]
                    return opcode, data
        chunk = conn.recv(65536)
        if not chunk:
            return None
        buffer += chunk


def handshake(conn: socket.socket) -> bool:
    request = b""
    while b"\r\n\r\n" not in request:
        chunk = conn.recv(4096)
        if not chunk or len(request) > 65536:
            return False
        request += chunk
    headers = {}
    for line in request.split(b"\r\n")[1:]:
        if b":" in line:
            name, value = line.split(b":", 1)
            headers[name.strip().lower()] = value.strip()
    key = headers.get(b"sec-websocket-key")
    if key is None:
        return False
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    response = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    response += b"Sec-WebSocket-Accept: " + accept + b"\r\n"
    if b"locstream.v1" in headers.get(b"sec-websocket-protocol", b""):
        response += b"Sec-WebSocket-Protocol: locstream.v1\r\n"
    conn.sendall(response + b"\r\n")
    return True


def feed(conn: socket.socket, sub: str, devices: list, rate: float, stop: threading.Event):
    """Sends rounds of one frame per device until `stop` or the connection fails."""
    heads = []
    for index, device in enumerate(devices):
        lat = 52.33 + (index * 7919 % 10000) / 10000 * 0.35
        lon = 13.08 + (index * 104729 % 10000) / 10000 * 0.68
        heads.append(('{"op":"loc","sub":%s,"device":%s,"lat":%.6f,"lon":%.6f,"ts":'
                      % (json.dumps(sub), json.dumps(device), lat, lon)).encode())
    tail = ',"speed":8.3,"heading":271.5,"acc":4.5}'
    seq, sent, started = 0, 0, time.monotonic()
    chunk = 1000
    try:
        while not stop.is_set():
            seq += 1
            ts = int(time.time() * 1000)
            rest = (',"seq":%d' % seq).encode()
            middle = b"%d" % ts
            parts = [frame(head + middle + rest + tail.encode()) for head in heads]
            for offset in range(0, len(parts), chunk):
                conn.sendall(b"".join(parts[offset:offset + chunk]))
                sent += len(parts[offset:offset + chunk])
                if rate > 0:
                    ahead = sent / rate - (time.monotonic() - started)
                    if ahead > 0:
                        time.sleep(ahead)
    except OSError:
        pass


def serve(conn: socket.socket, rate: float):
    stop = threading.Event()
    sender = None
    try:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if not handshake(conn):
            return
        conn.sendall(frame(b'{"op":"welcome","conn":"feeder-1","node":"loc-feeder","proto":1}'))
        buffer = bytearray()
        while True:
            message = read_frame(conn, buffer)
            if message is None or message[0] == 8:
                break
            opcode, data = message
            if opcode == 9:
                conn.sendall(bytes((0x8A, len(data))) + data)
                continue
            try:
                request = json.loads(data)
            except ValueError:
                continue
            if request.get("op") == "subscribe" and sender is None:
                sub, devices = request["sub"], request.get("devices", [])
                reply = {"op": "subscribed", "sub": sub, "restarted": False, "snapshot": 0}
                conn.sendall(frame(json.dumps(reply, separators=(",", ":")).encode()))
                sender = threading.Thread(target=feed, args=(conn, sub, devices, rate, stop), daemon=True)
                sender.start()
            elif request.get("op") == "unsubscribe":
                stop.set()
    except OSError:
        pass
    finally:
        stop.set()
        if sender is not None:
            sender.join(timeout=2)
        conn.close()


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    threading.Timer(seconds, lambda: os._exit(0)).start()
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, rate), daemon=True).start()


if __name__ == "__main__":
    main()
