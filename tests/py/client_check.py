#!/usr/bin/env python3
"""A Python client generated from the OpenAPI document by
openapi-python-client, used against the running server. Run by
tests/external/docs.rs:

    client_check.py --base http://127.0.0.1:PORT --out DIR

  * generates the client from /api/v1/openapi.json into DIR (with
    tests/py/openapi-python-client.yaml: the SVG asset read as bytes), and
    fails on any warning or error the generator prints (duplicate models,
    unsupported media types, unreadable schemas);
  * imports it and calls GET /api/v1/ip/{ip} (8.8.8.8 and
    2001:4860:4860::8888), POST /api/v1/ip (a JSON batch with a bad address) and
    GET /api/v1/asn/{asn} (AS15169) through its typed functions, and checks
    the parsed models.
Exits 0 when everything holds.
"""

import argparse
import json
import os
import subprocess
import sys
import urllib.request


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    base = a.base.rstrip("/")
    os.makedirs(a.out, exist_ok=True)
    spec = os.path.join(a.out, "openapi.json")
    with urllib.request.urlopen(base + "/api/v1/openapi.json", timeout=30) as r:
        open(spec, "wb").write(r.read())

    gen = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", spec,
         "--output-path", os.path.join(a.out, "iplookup_api"), "--overwrite", "--meta", "none",
         "--config", os.path.join(os.path.dirname(os.path.abspath(__file__)), "openapi-python-client.yaml")],
        capture_output=True, text=True, timeout=300,
    )
    out = gen.stdout + gen.stderr
    print(out)
    if gen.returncode != 0:
        print(f"FAIL: the generator exited {gen.returncode}")
        return 1
    noisy = [
        l for l in out.splitlines()
        if any(w in l.lower() for w in ("warning", "error", "unable", "skipping", "not in path", "unsupported"))
    ]
    if noisy:
        print("FAIL: the generator warned:\n" + "\n".join(noisy))
        return 1
    print("generator: no warning")

    sys.path.insert(0, a.out)
    import iplookup_api as iplookup  # noqa: E402  (the generated package)
    from iplookup_api.api.lookup import api_asn, api_ip, api_ip_batch  # noqa: E402
    from iplookup_api.models import AsnInfo, Error, IpInfo  # noqa: E402

    c = iplookup.Client(base_url=base, raise_on_unexpected_status=True, timeout=30)
    failures = []

    def check(cond, what):
        print(("ok: " if cond else "FAIL: ") + what, flush=True)
        if not cond:
            failures.append(what)

    v4 = api_ip.sync(ip="8.8.8.8", client=c)
    check(isinstance(v4, IpInfo), f"GET /api/v1/ip/8.8.8.8 -> {type(v4).__name__}")
    check(v4.ip == "8.8.8.8" and v4.location.country_code == "US", f"8.8.8.8: {v4.ip} {v4.location.country_code}")
    check(v4.network.asn == 15169 and v4.network.range_ == "8.8.8.0/24",
          f"8.8.8.8: AS{v4.network.asn} {v4.network.range_}")
    v6 = api_ip.sync(ip="2001:4860:4860::8888", client=c)
    check(isinstance(v6, IpInfo) and v6.version == "IPv6", f"GET /api/v1/ip/2001:4860:4860::8888 -> {v6.version}")
    bad = api_ip.sync_detailed(ip="not-an-ip", client=iplookup.Client(base_url=base, timeout=30))
    check(bad.status_code == 400 and isinstance(bad.parsed, Error) and bad.parsed.error == "invalid_ip",
          f"GET /api/v1/ip/not-an-ip -> {bad.status_code} {getattr(bad.parsed, 'error', bad.parsed)}")

    batch = api_ip_batch.sync(client=c, body=["8.8.8.8", "2001:4860:4860::8888", "not-an-ip"])
    check(isinstance(batch, list) and len(batch) == 3, f"POST /api/v1/ip -> {len(batch or [])} entries")
    check(isinstance(batch[0], IpInfo) and batch[0].location.country == "United States",
          f"batch[0] {type(batch[0]).__name__}")
    check(isinstance(batch[1], IpInfo) and batch[1].ip == "2001:4860:4860::8888", f"batch[1] {type(batch[1]).__name__}")
    check(isinstance(batch[2], Error) and batch[2].error == "invalid_ip", f"batch[2] {type(batch[2]).__name__}")

    asn = api_asn.sync(asn="AS15169", client=c)
    check(isinstance(asn, AsnInfo) and asn.asn == 15169, f"GET /api/v1/asn/AS15169 -> {type(asn).__name__}")
    check(asn.addresses.v4 > 0 and len(asn.prefixes.v4) > 0 and asn.countries[0].country_code,
          f"AS15169: {asn.addresses.v4} IPv4 addresses, {len(asn.prefixes.v4)} prefixes")
    print(json.dumps({"failures": len(failures)}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
