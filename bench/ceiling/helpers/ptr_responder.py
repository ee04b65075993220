#!/usr/bin/env python3
"""A local DNS responder for the whole-process benchmarks (bench/http.sh,
bench/memory.sh, bench/soak.sh): answers every PTR query with a made-up name
derived from the query (so every address has its own answer), on UDP and TCP
on one loopback port. Standard library only.

    python3 ptr_responder.py PORT [TTL]

Answers: PTR -> "h<hash>.bench.invalid." with TTL seconds (default 3600, so a
warmed cache stays warm for the whole run); any other type -> NOERROR, no
answer; malformed -> ignored. Prints "ready <port>" on stdout once bound, and
the number of queries answered on SIGTERM / SIGINT (to stderr).
"""

import signal
import socket
import struct
import sys
import threading
import zlib

PORT = int(sys.argv[1])
TTL = int(sys.argv[2]) if len(sys.argv) > 2 else 3600
COUNT = [0, 0]  # udp, tcp


def encode_name(name):
    out = b""
    for label in name.strip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\x00"


def answer(query):
    """The response message to one query message, or None to drop it."""
    if len(query) < 12:
        return None
    qid, flags, qd, _an, _ns, _ar = struct.unpack("!HHHHHH", query[:12])
    if flags & 0x8000 or qd != 1:
        return None
    # Walk the question name (no compression in a question).
    i = 12
    labels = []
    while True:
        if i >= len(query):
            return None
        n = query[i]
        if n == 0:
            i += 1
            break
        if n & 0xC0:
            return None
        labels.append(query[i + 1 : i + 1 + n])
        i += 1 + n
    if i + 4 > len(query):
        return None
    qtype, _qclass = struct.unpack("!HH", query[i : i + 4])
    question = query[12 : i + 4]
    rd = flags & 0x0100
    rflags = 0x8000 | 0x0400 | rd | 0x0080  # QR, AA, RD copied, RA; NOERROR
    if qtype != 12:  # not PTR
        return struct.pack("!HHHHHH", qid, rflags, 1, 0, 0, 0) + question
    qname = b".".join(labels).lower()
    target = "h%08x.bench.invalid" % (zlib.crc32(qname) & 0xFFFFFFFF)
    rdata = encode_name(target)
    rr = b"\xc0\x0c" + struct.pack("!HHIH", 12, 1, TTL, len(rdata)) + rdata
    return struct.pack("!HHHHHH", qid, rflags, 1, 1, 0, 0) + question + rr


def serve_udp(sock):
    while True:
        try:
            data, peer = sock.recvfrom(4096)
        except OSError:
            return
        resp = answer(data)
        if resp is not None:
            COUNT[0] += 1
            try:
                sock.sendto(resp, peer)
            except OSError:
                pass


def serve_tcp_conn(conn):
    with conn:
        while True:
            head = conn.recv(2, socket.MSG_WAITALL)
            if len(head) < 2:
                return
            (n,) = struct.unpack("!H", head)
            data = conn.recv(n, socket.MSG_WAITALL)
            resp = answer(data)
            if resp is None:
                return
            COUNT[1] += 1
            conn.sendall(struct.pack("!H", len(resp)) + resp)


def serve_tcp(sock):
    while True:
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        threading.Thread(target=serve_tcp_conn, args=(conn,), daemon=True).start()


def main():
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    udp.bind(("127.0.0.1", PORT))
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("127.0.0.1", PORT))
    tcp.listen(128)

    def stop(*_):
        print("ptr_responder: answered %d UDP and %d TCP queries" % tuple(COUNT), file=sys.stderr)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threading.Thread(target=serve_tcp, args=(tcp,), daemon=True).start()
    print("ready %d" % PORT, flush=True)
    serve_udp(udp)


if __name__ == "__main__":
    main()
