"""Uploads a recording to POST /api/v2/meter chunked, as a phone streaming it would, and reports
the server's resident memory meanwhile and the time from the last chunk to the answer.

usage: bench-meter-stream.py BASE_URL FILE SERVER_PID OUT_JSON [CHUNK_BYTES]

Memory is read from /proc/SERVER_PID/status: VmRSS every 50 ms while the upload runs (the most
seen), and VmHWM (the kernel's own peak) before and after. The audio is read from FILE a chunk at
a time and sent as it is read; the client never holds it whole.
"""

import json
import socket
import sys
import threading
import time
import urllib.parse


def status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) * 1024
    return fields


def main():
    base, path, pid, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    chunk = int(sys.argv[5]) if len(sys.argv) > 5 else 64 * 1024
    url = urllib.parse.urlparse(base)
    before = status(pid)
    most = {"rss": before["VmRSS"]}
    done = threading.Event()

    def watch():
        while not done.is_set():
            most["rss"] = max(most["rss"], status(pid)["VmRSS"])
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    sock = socket.create_connection((url.hostname, url.port))
    started = time.monotonic()
    head = (
        f"POST /api/v2/meter HTTP/1.1\r\nHost: {url.hostname}\r\nContent-Type: audio/wav\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    sock.sendall(head.encode())
    sent = 0
    with open(path, "rb") as f:
        while True:
            piece = f.read(chunk)
            if not piece:
                break
            sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
            sent += len(piece)
    sock.sendall(b"0\r\n\r\n")
    last_chunk = time.monotonic()
    response = b""
    first_byte = None
    while True:
        data = sock.recv(1 << 16)
        if not data:
            break
        if first_byte is None:
            first_byte = time.monotonic()
        response += data
    finished = time.monotonic()
    done.set()
    watcher.join()
    after = status(pid)
    head, _, body = response.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n")[0].decode()
    with open(out, "wb") as f:
        f.write(body)
    report = {
        "status": status_line,
        "bytes_sent": sent,
        "upload_seconds": round(last_chunk - started, 2),
        "last_chunk_to_first_byte_seconds": round((first_byte or finished) - last_chunk, 3),
        "last_chunk_to_full_answer_seconds": round(finished - last_chunk, 3),
        "server_rss_before_mib": round(before["VmRSS"] / 2**20, 1),
        "server_hwm_before_mib": round(before["VmHWM"] / 2**20, 1),
        "server_rss_most_during_mib": round(most["rss"] / 2**20, 1),
        "server_hwm_after_mib": round(after["VmHWM"] / 2**20, 1),
        "server_rss_growth_mib": round((most["rss"] - before["VmRSS"]) / 2**20, 1),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
