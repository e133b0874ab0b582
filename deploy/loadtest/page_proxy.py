#!/usr/bin/env python3
"""A loopback HTTP proxy in front of a stream-server that serves the map page's files from a
directory instead of the server's embedded ones, so page versions can be compared against one
server binary (page-cpu-figures.sh). Files in DIR (index.html, map.js, map.css, locstream.js)
are served from DIR; every other request, and every WebSocket upgrade, goes to the server
byte for byte. An index.html with the settings marker gets the server's own settings (taken
from the server's GET /), as the server would write them.

    page_proxy.py LISTEN_PORT SERVER_PORT DIR

Prints "proxy ready" once listening. Only 127.0.0.1 is used.
"""
import asyncio
import os
import re
import sys
import urllib.request

MARKER = b'{"map":"settings"}'
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8"}


def load(directory, upstream):
    files = {}
    for name in sorted(os.listdir(directory)):
        kind = TYPES.get(os.path.splitext(name)[1])
        if not kind:
            continue
        with open(os.path.join(directory, name), "rb") as f:
            body = f.read()
        if name == "index.html" and MARKER in body:
            with urllib.request.urlopen(f"http://127.0.0.1:{upstream}/", timeout=10) as r:
                served = r.read()
            found = re.search(rb'<script id="map-settings" type="application/json">(.*?)</script>', served, re.S)
            if not found:
                raise SystemExit("the server's page has no settings script")
            body = body.replace(MARKER, found.group(1))
        files["/" + name] = (body, kind)
    if "/index.html" in files:
        files["/"] = files["/index.html"]
    return files


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


def main():
    listen, upstream, directory = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    files = load(directory, upstream)

    async def handle(reader, writer):
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ")
        path = parts[1].split(b"?")[0].decode() if len(parts) > 1 else ""
        upgrade = b"upgrade: websocket" in head.lower()
        if not upgrade and path in files:
            body, kind = files[path]
            writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
                         "Cache-Control: no-store\r\nConnection: close\r\n\r\n".encode() + body)
            await writer.drain()
            writer.close()
            return
        if not upgrade:  # one request a connection, so each one is looked at
            kept = [line for line in lines[1:] if line and not line.lower().startswith(b"connection:")]
            head = b"\r\n".join([lines[0], b"Connection: close", *kept]) + b"\r\n\r\n"
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            writer.close()
            return
        server_writer.write(head)
        await asyncio.gather(pipe(reader, server_writer), pipe(server_reader, writer))

    async def serve():
        server = await asyncio.start_server(handle, "127.0.0.1", listen)
        print("proxy ready", flush=True)
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
