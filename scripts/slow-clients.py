#!/usr/bin/env python3
"""Opens stalled connections to a running HearClear server and reports when the server closes them.

    scripts/slow-clients.py [--host 127.0.0.1] [--port 8080] [--count 2000] [--seconds 90]

A quarter each: connects and sends nothing; sends part of a head; sends a head and one byte of a
declared 100 kB body; sends a complete GET /health and then stays idle. Meanwhile GET /health on a
new connection every second. Prints, per kind, how many were closed by the server (end of stream
or reset) and when, what the first bytes back were (a 503 past the connection cap), and the
/health answers. No dependencies beyond Python 3.
"""

import argparse
import selectors
import socket
import statistics
import time

KINDS = {
    "silent": b"",
    "partial head": b"POST /api/v2/checkins HTTP/1.1\r\nHost: localhost\r\nContent-Ty",
    "head + 1 byte of 100 kB": b"POST /api/v2/checkins HTTP/1.1\r\nHost: localhost\r\n"
    b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
    "idle after an answer": b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n",
}


def health(host, port):
    start = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=5) as s:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            data = s.recv(64)
        status = data.split(b" ")[1].decode() if data.startswith(b"HTTP/") else "no answer"
    except OSError as error:
        status = type(error).__name__
    return status, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=90)
    args = parser.parse_args()

    selector = selectors.DefaultSelector()
    connections = []  # [kind, opened, closed, first bytes]
    names = list(KINDS)
    start = time.monotonic()
    for i in range(args.count):
        kind = names[i % len(names)]
        s = socket.create_connection((args.host, args.port), timeout=10)
        s.setblocking(False)
        if KINDS[kind]:
            s.sendall(KINDS[kind])
        record = [kind, time.monotonic(), None, b""]
        connections.append(record)
        selector.register(s, selectors.EVENT_READ, record)
    opened = time.monotonic() - start
    print(f"opened {args.count} connections in {opened:.1f} s")

    probes = []
    next_probe = time.monotonic()
    open_count = args.count
    while open_count and time.monotonic() - start < args.seconds:
        if time.monotonic() >= next_probe:
            status, took = health(args.host, args.port)
            probes.append((time.monotonic() - start, status, took))
            next_probe += 1
        for key, _ in selector.select(timeout=0.2):
            record = key.data
            try:
                data = key.fileobj.recv(65536)
            except OSError:
                data = b""
            if data:
                if len(record[3]) < 64:
                    record[3] += data[:64]
                continue
            record[2] = time.monotonic()
            selector.unregister(key.fileobj)
            key.fileobj.close()
            open_count -= 1
    status, took = health(args.host, args.port)
    probes.append((time.monotonic() - start, status, took))

    for kind in names:
        mine = [c for c in connections if c[0] == kind]
        closed = [c[2] - c[1] for c in mine if c[2] is not None]
        firsts = {}
        for c in mine:
            first = c[3].split(b"\r\n")[0].decode(errors="replace") or "(nothing)"
            firsts[first] = firsts.get(first, 0) + 1
        when = (
            f"after {min(closed):.1f} / {statistics.median(closed):.1f} / {max(closed):.1f} s (min / median / max)"
            if closed
            else ""
        )
        print(f"{kind}: {len(closed)} of {len(mine)} closed by the server {when}; first line back: {firsts}")
    print(f"still open after {time.monotonic() - start:.0f} s: {open_count}")
    statuses = {}
    for _, status, _ in probes:
        statuses[status] = statuses.get(status, 0) + 1
    slowest = max(took for _, _, took in probes)
    print(f"/health every second: {len(probes)} probes, {statuses}, slowest {slowest * 1000:.0f} ms")


if __name__ == "__main__":
    main()
