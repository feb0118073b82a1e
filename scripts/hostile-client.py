#!/usr/bin/env python3
"""A hostile student for the load benchmark: holds COUNT uploads whose bodies trickle in.

Usage: hostile-client.py PORT TOKEN STUDENT COUNT SECONDS OUT

Each connection sends an upload's head (Content-Length 1,000,000), then one byte every
TRICKLE seconds, far below any sane minimum rate. The moment the server answers or closes,
the connection is replaced by a new one, as an attacker reconnecting in a loop would. Runs
for SECONDS (bounded), only against 127.0.0.1, and writes one line per answer's status to OUT
("none" when the server closed without one).
"""
import selectors
import socket
import sys
import time

TRICKLE = 5.0


def main(argv):
    port, token, student, count, seconds, out = int(argv[1]), argv[2], argv[3], int(argv[4]), float(argv[5]), argv[6]
    head = (f"POST /v1/students/{student}/weeks/assessment/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: audio/wav\r\nContent-Length: 1000000\r\n\r\nRIFF").encode()
    selector = selectors.DefaultSelector()
    last_sent = {}
    statuses = []

    def open_one():
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setblocking(False)
        try:
            sock.send(head)
        except OSError:
            pass
        selector.register(sock, selectors.EVENT_READ, data=bytearray())
        last_sent[sock] = time.monotonic()

    def close_one(sock, received):
        line = bytes(received).split(b"\r\n", 1)[0].split(b" ")
        statuses.append(line[1].decode() if len(line) > 1 else "none")
        selector.unregister(sock)
        last_sent.pop(sock, None)
        sock.close()

    end = time.monotonic() + seconds
    for _ in range(count):
        open_one()
    while time.monotonic() < end:
        for key, _ in selector.select(timeout=0.5):
            sock, received = key.fileobj, key.data
            try:
                chunk = sock.recv(4096)
            except OSError:
                chunk = b""
            if chunk:
                received.extend(chunk)
            if not chunk or b"\r\n\r\n" in received:
                close_one(sock, received)
                if time.monotonic() < end:
                    open_one()
        now = time.monotonic()
        for sock, sent in list(last_sent.items()):
            if now - sent >= TRICKLE:
                try:
                    sock.send(b"R")
                except OSError:
                    pass
                last_sent[sock] = now
    for key in list(selector.get_map().values()):
        key.fileobj.close()
    with open(out, "w") as handle:
        handle.write("\n".join(statuses) + ("\n" if statuses else ""))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
