#!/usr/bin/env python3
"""Writes an ASN database in MaxMind's format (GeoLite2-ASN schema:
`autonomous_system_number`, `autonomous_system_organization`) from the
project's ASN CSV (`start,end,asn,"organisation"`, gzip or plain), with the
same MMDB writer as make.py. For the maxminddb baseline of bench/enrich.sh:
no package ships the ASN data of the embedded release as MMDB.

Usage: asn_from_csv.py data/asn.csv.gz OUT.mmdb

Rows that overlap an earlier row are written as they come (a later insert
wins where they overlap); the embedded data has one such row (data/README.md).
"""
from __future__ import annotations

import csv
import gzip
import io
import sys
from pathlib import Path

from mmdb_writer import MMDBWriter, MmdbU32
from netaddr import IPRange, IPSet


def rows(path: Path):
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    for row in csv.reader(io.StringIO(raw.decode("utf-8"))):
        if len(row) < 3 or not row[2].strip().isdigit():
            continue
        yield row[0], row[1], int(row[2]), (row[3] if len(row) > 3 else "")


def main() -> None:
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    w = MMDBWriter(
        ip_version=6,
        ipv4_compatible=True,
        database_type="GeoLite2-ASN",
        languages=["en"],
        description={"en": f"ASN data of {src.name} (iplookup bench baseline)"},
    )
    n = 0
    for start, end, asn, org in rows(src):
        record = {"autonomous_system_number": MmdbU32(asn)}
        if org:
            record["autonomous_system_organization"] = org
        w.insert_network(IPSet(IPRange(start, end)), record)
        n += 1
    w.to_db_file(str(out))
    print(f"asn_from_csv: {n} rows -> {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
