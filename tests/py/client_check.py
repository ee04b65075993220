#!/usr/bin/env python3
"""A Python client generated from the OpenAPI document by
openapi-python-client, used against the running server. Run by
tests/external/docs.rs:

    client_check.py --base http://127.0.0.1:PORT --out DIR

  * generates the client from /api/v1/openapi.json into DIR (with
    tests/py/openapi-python-client.yaml: the SVG asset read as bytes), and
    fails on any warning or error the generator prints (duplicate models,
    unsupported media types, unreadable schemas);
  * checks the package and tests/py/python_client_calls.py (the calls)
    with `mypy --strict`;
  * runs the calls: /api/v1/ip/{ip} (8.8.8.8, 2001:4860:4860::8888,
    10.1.2.3 with its special_purpose), /api/v1/me, a single field, the
    batch (JSON and NDJSON), /api/v1/asn/{asn} and an invalid address,
    through its typed functions and models.
Exits 0 when everything holds.
"""

import argparse
import json
import os
import shutil
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

    # mypy --strict over the generated package and the calls that use it.
    calls = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python_client_calls.py")
    shutil.copy(calls, a.out)
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "iplookup_api", "python_client_calls.py"],
        cwd=a.out, capture_output=True, text=True, timeout=600,
    )
    print(mypy.stdout + mypy.stderr)
    if mypy.returncode != 0:
        print("FAIL: mypy --strict")
        return 1
    print("mypy --strict: clean")

    sys.path.insert(0, a.out)
    import python_client_calls  # noqa: E402  (beside the generated package)

    failures = python_client_calls.run(base)
    print(json.dumps({"failures": len(failures)}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
