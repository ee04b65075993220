#!/usr/bin/env python3
"""TypeScript clients generated from the OpenAPI document, type-checked and
used against the running server. Run by tests/external/docs.rs:

    ts_clients_check.py --base http://127.0.0.1:PORT --out DIR

  * generates, from /api/v1/openapi.json, the types of openapi-typescript
    (used through openapi-fetch) and the SDK of @hey-api/openapi-ts (its
    fetch client), with the pinned versions of tests/ts/package.json
    (installed by scripts/test with `npm ci`); fails on any warning either
    generator prints;
  * compiles tests/ts/openapi_fetch_calls.ts and tests/ts/hey_api_calls.ts
    against them with `tsc --strict` (and `noUncheckedIndexedAccess`): no
    error, and the programs hold no cast;
  * runs both with node against the server: each calls /api/v1/ip/{ip},
    /api/v1/me, a single field, the batch (JSON and NDJSON),
    /api/v1/asn/{asn} and an invalid address.
Exits 0 when everything holds.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TS = os.path.join(os.path.dirname(HERE), "ts")
PROGRAMS = ["openapi_fetch_calls.ts", "hey_api_calls.ts"]
NOISE = re.compile(r"warn|error|unsupported|skipp|deprecat|⚠|✖", re.IGNORECASE)


def run(argv, cwd, what):
    started = time.monotonic()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)
    out = (p.stdout + p.stderr).strip()
    print(f"--- {what} ({time.monotonic() - started:.1f}s, exit {p.returncode})\n{out}", flush=True)
    return p.returncode, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    base = a.base.rstrip("/")
    modules = os.path.join(TS, "node_modules")
    if not os.path.isdir(os.path.join(modules, "openapi-typescript")):
        print(f"FAIL: {modules} is missing: run `npm ci` in tests/ts (scripts/test does)")
        return 1
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    link = os.path.join(out, "node_modules")
    if not os.path.exists(link):
        os.symlink(modules, link)
    spec = os.path.join(out, "openapi.json")
    with urllib.request.urlopen(base + "/api/v1/openapi.json", timeout=30) as r:
        open(spec, "wb").write(r.read())
    for name in PROGRAMS + ["tsconfig.json", "package.json"]:
        shutil.copy(os.path.join(TS, name), out)
    bin_ = os.path.join(modules, ".bin")
    failures = []

    code, text = run([os.path.join(bin_, "openapi-typescript"), spec, "-o", "openapi-typescript/schema.d.ts"],
                     out, "openapi-typescript")
    if code != 0 or NOISE.search(text):
        failures.append("openapi-typescript exited %d or warned" % code)
    code, text = run([os.path.join(bin_, "openapi-ts"), "-i", spec, "-o", "hey-api", "-c", "@hey-api/client-fetch"],
                     out, "@hey-api/openapi-ts")
    if code != 0 or NOISE.search(text):
        failures.append("@hey-api/openapi-ts exited %d or warned" % code)
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print("generators: no warning")

    for program in PROGRAMS:
        source = re.sub(r"//[^\n]*", "", open(os.path.join(out, program)).read())
        casts = re.findall(r"\bas\s+(?!const\b)[A-Za-z{\[(]|<[A-Z][A-Za-z]*>\s*[a-z(]", source)
        if casts:
            failures.append(f"{program} holds casts: {casts}")
    code, text = run([os.path.join(bin_, "tsc"), "-p", "tsconfig.json"], out, "tsc --strict")
    errors = len(re.findall(r"error TS\d+", text))
    print(json.dumps({"tsc_errors": errors}))
    if code != 0:
        failures.append(f"tsc --strict: {errors} errors")
    else:
        for program in PROGRAMS:
            js = os.path.join(out, "dist", program.replace(".ts", ".js"))
            code, text = run(["node", js, base], out, program)
            if code != 0:
                failures.append(f"{program} failed")
    for f in failures:
        print("FAIL: " + f)
    print(json.dumps({"failures": len(failures)}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
