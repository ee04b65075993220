#!/usr/bin/env python3
"""Writes tests/fixtures/mmdb/shared-children.mmdb: a hostile MMDB whose
search tree is not a tree. Node i points to node i + 1 on both sides and the
last node to one data record, so 100 nodes (849 bytes) hold 2^100 networks at
depth 100, with no cycle a walker could notice. iplookup must refuse it at
once (src/geo/tree.rs) rather than walk it for ever.

Usage: python3 tools/mmdb-fixtures/shared_children.py OUT.mmdb
(standard library only; the MMDB format: https://maxmind.github.io/MaxMind-DB/)
"""
import sys


def ctrl(kind, size):
    """Control byte(s) of a field of `kind` and `size` (< 29)."""
    return bytes([(kind << 5) | size]) if kind <= 7 else bytes([size, kind - 7])


def text(s):
    b = s.encode()
    return ctrl(2, len(b)) + b


def uint(kind, v, width):
    b = v.to_bytes(width, "big").lstrip(b"\0")
    return ctrl(kind, len(b)) + b


def mapping(d):
    return ctrl(7, len(d)) + b"".join(text(k) + v for k, v in d.items())


NODES = 100
tree = b"".join((i + 1).to_bytes(3, "big") * 2 for i in range(NODES - 1))
tree += (NODES + 16).to_bytes(3, "big") * 2  # the last node: data record 0
data = mapping({"country": mapping({"iso_code": text("US")})})
meta = mapping({
    "node_count": uint(6, NODES, 4),
    "record_size": uint(5, 24, 2),
    "ip_version": uint(5, 6, 2),
    "database_type": text("DBIP-Country-Lite"),
    "languages": ctrl(11, 1) + text("en"),
    "binary_format_major_version": uint(5, 2, 2),
    "binary_format_minor_version": uint(5, 0, 2),
    "build_epoch": uint(9, 1700000000, 8),
    "description": mapping({"en": text("shared children")}),
})
with open(sys.argv[1], "wb") as f:
    f.write(tree + b"\0" * 16 + data + b"\xab\xcd\xefMaxMind.com" + meta)
