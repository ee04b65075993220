#!/usr/bin/env python3
"""The examples of the OpenAPI document, checked against their schemas and
against what the server answers now. Run by tests/external/docs.rs against a
server that trusts 127.0.0.1 as a proxy:

    examples_check.py --base http://127.0.0.1:PORT --caller 8.8.8.8

For every operation: an `x-codeSamples` curl command on this base. For
every example answer (`responses.200.content.<type>.examples`):
  * it validates against the media type's schema (JSON Schema 2020-12, the
    document's components, formats checked);
  * its curl command, sent as curl sends it (`User-Agent: curl`, `Accept:
    */*`, from the caller --caller through the trusted proxy), answers 200
    in that media type with the same body, less the members that change
    with time or the network: `local_time` and `reverse_dns`;
  * /docs?format=json shows the same example.
Prints one line per example; exits 1 on any failure.
"""

import argparse
import json
import shlex
import sys
import urllib.error
import urllib.request

from jsonschema import Draft202012Validator, FormatChecker

VOLATILE = ("local_time", "reverse_dns")

failures = []


def fail(what):
    failures.append(what)
    print(f"FAIL: {what}", flush=True)


def get(url, headers=None, data=None):
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get("content-type", ""), r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read().decode("utf-8", "replace")


def steady(value):
    """The value without the members that change with time or the network."""
    if isinstance(value, dict):
        return {k: steady(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def steady_text(text):
    lines = [l for l in text.splitlines() if not l.startswith(VOLATILE)]
    return "\n".join(lines).strip()


def curl(command, base):
    """(method, url, headers, body) of a `curl` command line."""
    words = shlex.split(command)
    assert words[0] == "curl", command
    headers, body, url = {}, None, None
    i = 1
    while i < len(words):
        w = words[i]
        if w == "-H":
            name, value = words[i + 1].split(":", 1)
            headers[name.strip()] = value.strip()
            i += 2
        elif w == "-d":
            body = words[i + 1].encode()
            i += 2
        elif w.startswith("-"):
            i += 1
        else:
            url = w
            i += 1
    assert url and url.startswith(base + "/"), f"{command}: not on {base}"
    return ("POST" if body is not None else "GET"), url, headers, body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--caller", required=True)
    a = ap.parse_args()
    base = a.base.rstrip("/")
    status, _, text = get(base + "/api/v1/openapi.json")
    assert status == 200, status
    doc = json.loads(text)
    status, _, text = get(base + "/docs?format=json")
    assert status == 200, status
    page = json.loads(text)
    shown = {}
    for group in page["groups"]:
        for op in group["operations"]:
            for e in op["examples"]:
                shown[(op["id"], e["title"])] = e

    checked = 0
    operations = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            operations += 1
            oid = op.get("operationId")
            samples = {s["label"]: s["source"] for s in op.get("x-codeSamples", [])}
            if not samples:
                fail(f"{method} {path}: no x-codeSamples")
                continue
            for label, source in samples.items():
                if not source.startswith("curl ") or base not in source:
                    fail(f"{method} {path}: {label}: {source!r} is not a curl on {base}")
            content = op["responses"].get("200", {}).get("content", {})
            for media_type, media in content.items():
                essence = media_type.split(";")[0]
                for name, ex in media.get("examples", {}).items():
                    what = f"{method.upper()} {path} {essence} {name}"
                    value = ex["value"]
                    # 1. Against the schema.
                    schema = dict(media.get("schema", {}))
                    schema["components"] = doc["components"]
                    errors = list(Draft202012Validator(schema, format_checker=FormatChecker()).iter_errors(value))
                    if errors:
                        fail(f"{what}: not valid against its schema: {errors[0].message} at {list(errors[0].path)}")
                    # 2. Against the server, now.
                    source = samples.get(f"curl: {ex['summary']}")
                    if source is None:
                        fail(f"{what}: no curl command for {ex['summary']!r}")
                        continue
                    verb, url, headers, body = curl(source, base)
                    headers = {"User-Agent": "curl/8.14.1", "Accept": "*/*", "X-Forwarded-For": a.caller, **headers}
                    status, ctype, live = get(url, headers, body)
                    if status != 200 or ctype.split(";")[0] != essence:
                        fail(f"{what}: {verb} {url} answered {status} {ctype}")
                        continue
                    if essence == "application/json":
                        same = steady(json.loads(live)) == steady(value)
                    else:
                        same = steady_text(live) == steady_text(value)
                    if not same:
                        fail(f"{what}: the server answers otherwise now:\n--- example\n{value}\n--- live\n{live}")
                    # 3. The page shows the same example.
                    e = shown.get((oid, ex["summary"]))
                    if e is None or e["answer"] is None:
                        fail(f"{what}: /docs does not show it")
                    elif essence == "application/json":
                        if json.loads(e["answer"]) != value:
                            fail(f"{what}: /docs shows another answer")
                    elif e["answer"] != value:
                        fail(f"{what}: /docs shows another answer")
                    checked += 1
                    print(f"ok: {what} ({len(live)} bytes live)", flush=True)
    print(f"{checked} examples checked over {operations} operations")
    if checked < 10:
        fail(f"only {checked} examples")
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
