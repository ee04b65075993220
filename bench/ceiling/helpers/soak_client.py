#!/usr/bin/env python3
"""The load of bench/soak.sh: a steady mixed load on a running iplookup for
DURATION seconds, with a data reload in the middle, and the report.

    python3 soak_client.py --base http://127.0.0.1:PORT --pid PID \
        --duration 600 --rate 300 --connections 16 \
        --reload-cmd 'shell command dropping a new release in' [--json FILE]

Standard library only (asyncio, raw HTTP/1.1 on keep-alive connections).

The mix: every endpoint (/, /{ip}, /api/v1/me, /api/v1/ip/{ip}, /docs,
/healthz, /llms.txt, /api/v1/openapi.json, /.well-known/*, /metrics), every
format (?format=json|text|md|html and Accept variants), valid and invalid
addresses, curl / wget / HTTPie / browser / no User-Agent, some requests
with Accept-Encoding: gzip, some with Connection: close (new connections all
along). Each request knows the status class it expects (2xx for a valid
request, 4xx for an invalid one); any other is counted as unexpected.

At DURATION/2 (or, with --reloads N, at DURATION*k/(N+1) for k = 1..N) it
runs --reload-cmd (which drops a new release into the data directory and
sends SIGHUP), then watches /healthz until the release date changes.

Reported: requests, answers by status, unexpected statuses, failed
connections (refused, reset, closed early, timed out), p50/p99/max latency,
VmRSS sampled every second (peak, first minute vs last minute), VmHWM.
"""

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from urllib.parse import urlsplit

VALID_IPS = [
    "8.8.8.8", "1.1.1.1", "9.9.9.9", "81.2.69.142", "2001:4860:4860::8888",
    "2606:4700:4700::1111", "193.0.6.139", "212.58.244.20", "2a00:1450:4001:830::200e",
    "203.0.113.5", "10.1.2.3", "127.0.0.1", "::1", "fe80::1", "100.64.0.1",
]
INVALID_IPS = [
    "999.1.1.1", "not-an-ip", "1.2.3", "::g", "1.2.3.4.5", "%7Bip%7D", "256.256.256.256",
    "1..1.1", "2001:db8:::1", "x" * 60, "%20", "1.2.3.4%2F24",
]
AGENTS = [
    "curl/8.5.0", "Wget/1.21.4", "HTTPie/3.2.2", "python-requests/2.32.3",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    None,
]
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
ACCEPTS = [None, "*/*", "application/json", "text/plain", "text/markdown", "text/html", BROWSER_ACCEPT,
           "application/json;q=0.5, text/plain;q=0.9"]
FORMATS = [None, None, None, "json", "text", "md", "html"]


def random_public_ip(rng):
    if rng.random() < 0.6:
        while True:
            a = rng.randrange(1, 224)
            if a not in (10, 127):
                return "%d.%d.%d.%d" % (a, rng.randrange(256), rng.randrange(256), rng.randrange(1, 255))
    return "2a0%x:%x:%x::%x" % (rng.randrange(16), rng.randrange(65536), rng.randrange(65536), rng.randrange(1, 65536))


def make_request(rng):
    """(label, path, headers, expected class)"""
    r = rng.random()
    ip = rng.choice(VALID_IPS) if rng.random() < 0.3 else random_public_ip(rng)
    expect = 2
    if rng.random() < 0.12:
        ip, expect = rng.choice(INVALID_IPS), 4
    fmt = rng.choice(FORMATS)
    if r < 0.30:
        label, path = "/api/v1/ip/{ip}", "/api/v1/ip/" + ip
    elif r < 0.50:
        label, path = "/{ip}", "/" + ip
    elif r < 0.60:
        label, path, expect = "/", "/", 2
    elif r < 0.68:
        label, path, expect = "/api/v1/me", "/api/v1/me", 2
    elif r < 0.73:
        label, path, expect, fmt = "/docs", "/docs", 2, rng.choice([None, "html", "md", "text"])
    elif r < 0.78:
        label, path, expect, fmt = "/healthz", "/healthz", 2, rng.choice([None, "json", "text"])
    elif r < 0.82:
        label, path, expect, fmt = "/llms.txt", "/llms.txt", 2, None
    elif r < 0.85:
        label, path, expect, fmt = "openapi", "/api/v1/openapi.json", 2, None
    elif r < 0.88:
        label, expect, fmt = ".well-known", 2, None
        path = rng.choice(["/.well-known/api-catalog", "/.well-known/mcp/server-card.json",
                           "/.well-known/agent-skills/index.json",
                           "/.well-known/agent-skills/iplookup/SKILL.md"])
    elif r < 0.89:
        label, path, expect, fmt = "/metrics", "/metrics", 2, None
    elif r < 0.93:
        label, path, expect, fmt = "404", rng.choice(["/nope/x", "/api/v2/ip/8.8.8.8", "/api/v1/ip/1.1.1.1/extra"]), 4, None
    elif r < 0.96:
        label, path, expect = "bad format", "/api/v1/ip/8.8.8.8", 4
        fmt = rng.choice(["xml", "yaml", "", "JSON2"])
    else:
        label, path, expect = "/api/v1/ip/ (no address)", "/api/v1/ip/", 4
    if fmt is not None:
        path += "?format=" + fmt
    headers = {}
    ua = rng.choice(AGENTS)
    if ua:
        headers["User-Agent"] = ua
    acc = BROWSER_ACCEPT if (ua or "").startswith("Mozilla") and rng.random() < 0.8 else rng.choice(ACCEPTS)
    if acc:
        headers["Accept"] = acc
    if rng.random() < 0.25:
        headers["Accept-Encoding"] = "gzip"
    return label, path, headers, expect


class ConnFailed(Exception):
    pass


async def read_response(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    hdrs = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            hdrs[k.strip().lower()] = v.strip()
    if hdrs.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            body += await reader.readexactly(size)
            await reader.readexactly(2)
    else:
        body = await reader.readexactly(int(hdrs.get("content-length", "0")))
    return status, hdrs, body


class Stats:
    def __init__(self):
        self.requests = 0
        self.by_status = Counter()
        self.by_label_status = defaultdict(Counter)
        self.unexpected = Counter()
        self.unexpected_samples = []
        self.failed = Counter()
        self.failed_samples = []
        self.latencies = []
        self.connections = 0


async def worker(wid, args, stats, stop_at, interval, host, port):
    rng = random.Random(1000 + wid)
    reader = writer = None
    next_t = time.monotonic() + rng.random() * interval
    while True:
        now = time.monotonic()
        if now >= stop_at:
            break
        if next_t > now:
            await asyncio.sleep(next_t - now)
        next_t += interval
        label, path, headers, expect = make_request(rng)
        close = rng.random() < 0.05
        t0 = time.monotonic()
        try:
            if writer is None:
                try:
                    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5)
                except Exception as e:  # noqa: BLE001
                    raise ConnFailed("connect: %s" % type(e).__name__) from e
                stats.connections += 1
            req = "GET %s HTTP/1.1\r\nHost: %s:%d\r\n" % (path, host, port)
            for k, v in headers.items():
                req += "%s: %s\r\n" % (k, v)
            if close:
                req += "Connection: close\r\n"
            writer.write((req + "\r\n").encode())
            try:
                await writer.drain()
                status, hdrs, _body = await asyncio.wait_for(read_response(reader), 10)
            except asyncio.TimeoutError as e:
                raise ConnFailed("timeout") from e
            except asyncio.IncompleteReadError as e:
                raise ConnFailed("closed early") from e
            except (ConnectionError, OSError) as e:
                raise ConnFailed(type(e).__name__) from e
            stats.latencies.append(time.monotonic() - t0)
            stats.requests += 1
            stats.by_status[status] += 1
            stats.by_label_status[label][status] += 1
            if status // 100 != expect:
                stats.unexpected[(label, status)] += 1
                if len(stats.unexpected_samples) < 20:
                    stats.unexpected_samples.append((path, headers, status))
            if close or hdrs.get("connection", "").lower() == "close":
                writer.close()
                reader = writer = None
        except ConnFailed as e:
            stats.requests += 1
            stats.failed[str(e)] += 1
            if len(stats.failed_samples) < 20:
                stats.failed_samples.append((round(time.monotonic(), 3), path, str(e)))
            if writer is not None:
                writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


def read_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0])
    return out


async def get_json(host, port, path):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
    status, _h, body = await read_response(reader)
    writer.close()
    return status, json.loads(body)


def release_of(health):
    d = health["data"]
    return "country %s (%s rows), asn %s (%s rows)" % (
        d["country"]["release_date"], d["country"]["rows"], d["asn"]["release_date"], d["asn"]["rows"])


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--duration", type=float, default=600)
    ap.add_argument("--rate", type=float, default=300, help="requests per second, all connections")
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--reload-cmd", default=None,
                    help="shell command run for each reload, with RELOAD_N=1, 2, ... in its environment")
    ap.add_argument("--reloads", type=int, default=1, help="reloads, evenly spread (default 1: in the middle)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    u = urlsplit(args.base)
    host, port = u.hostname, u.port

    stats = Stats()
    start = time.monotonic()
    stop_at = start + args.duration
    interval = args.connections / args.rate
    rss = []  # (t, VmRSS KiB)
    events = []

    async def sampler():
        while time.monotonic() < stop_at:
            try:
                rss.append((time.monotonic() - start, read_status(args.pid)["VmRSS"]))
            except OSError:
                events.append((time.monotonic() - start, "server process gone"))
                return
            await asyncio.sleep(1)

    async def reloader():
        for n in range(1, args.reloads + 1):
            at = start + args.duration * n / (args.reloads + 1)
            await asyncio.sleep(max(0, at - time.monotonic()))
            _, h = await get_json(host, port, "/healthz")
            before = release_of(h)
            t = time.monotonic() - start
            subprocess.run(args.reload_cmd, shell=True, check=True, env=dict(os.environ, RELOAD_N=str(n)))
            events.append((t, "reload %d: new release dropped in + SIGHUP (was: %s; VmRSS %.1f MiB)" % (
                n, before, read_status(args.pid)["VmRSS"] / 1024)))
            while time.monotonic() < stop_at:
                await asyncio.sleep(0.2)
                _, h = await get_json(host, port, "/healthz")
                now = release_of(h)
                if now != before:
                    events.append((time.monotonic() - start, "reload %d done after %.1f s: now %s" % (
                        n, time.monotonic() - start - t, now)))
                    break
            else:
                events.append((time.monotonic() - start, "reload %d NOT seen in /healthz" % n))

    _, h = await get_json(host, port, "/healthz")
    events.append((0.0, "start: %s" % release_of(h)))
    tasks = [asyncio.create_task(worker(i, args, stats, stop_at, interval, host, port))
             for i in range(args.connections)]
    tasks.append(asyncio.create_task(sampler()))
    if args.reload_cmd:
        tasks.append(asyncio.create_task(reloader()))
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - start
    final = read_status(args.pid)

    lat = sorted(stats.latencies)

    def pct(p):
        return lat[min(len(lat) - 1, int(p / 100 * len(lat)))] * 1000 if lat else float("nan")

    by_class = Counter()
    for s, n in stats.by_status.items():
        by_class["%dxx" % (s // 100)] += n
    first = [k for t, k in rss if t < 60]
    last = [k for t, k in rss if t >= elapsed - 60]
    peak = max(k for _, k in rss)
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    failed = sum(stats.failed.values())
    report = {
        "duration_s": round(elapsed, 1),
        "requests": stats.requests,
        "rate_per_s": round(stats.requests / elapsed, 1),
        "connections_opened": stats.connections,
        "answers_by_class": dict(sorted(by_class.items())),
        "answers_by_status": {str(k): v for k, v in sorted(stats.by_status.items())},
        "unexpected": {"%s -> %d" % k: v for k, v in stats.unexpected.items()},
        "unexpected_samples": stats.unexpected_samples,
        "status_5xx": by_class.get("5xx", 0),
        "failed_connections": failed,
        "failed_by_kind": dict(stats.failed),
        "failed_samples": stats.failed_samples,
        "latency_ms": {"p50": round(pct(50), 3), "p90": round(pct(90), 3), "p99": round(pct(99), 3),
                       "max": round(lat[-1] * 1000, 3) if lat else None},
        "rss_mib": {
            "samples": len(rss),
            "peak": round(peak / 1024, 1),
            "first_minute_mean": round(mean(first) / 1024, 1),
            "first_minute_max": round(max(first) / 1024, 1),
            "last_minute_mean": round(mean(last) / 1024, 1),
            "last_minute_max": round(max(last) / 1024, 1),
            "last_over_first_minute_mean": round(mean(last) / mean(first), 3),
            "final_vmrss": round(final["VmRSS"] / 1024, 1),
            "final_vmhwm": round(final["VmHWM"] / 1024, 1),
            "per_minute_max": [round(max(k for t, k in rss if m * 60 <= t < (m + 1) * 60) / 1024, 1)
                               for m in range(int(elapsed // 60) + 1)
                               if any(m * 60 <= t < (m + 1) * 60 for t, _ in rss)],
        },
        "by_endpoint": {k: dict(sorted(v.items())) for k, v in sorted(stats.by_label_status.items())},
        "events": [(round(t, 1), e) for t, e in events],
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    r = report
    print("duration %.0f s, %d requests (%.0f/s), %d connections opened" % (
        r["duration_s"], r["requests"], r["rate_per_s"], r["connections_opened"]))
    for t, e in r["events"]:
        print("  t=%6.1f s  %s" % (t, e))
    print("answers by class: %s" % r["answers_by_class"])
    print("answers by status: %s" % r["answers_by_status"])
    print("by endpoint:")
    for k, v in r["by_endpoint"].items():
        print("  %-26s %s" % (k, v))
    print("unexpected statuses: %s %s" % (r["unexpected"] or "none", r["unexpected_samples"] or ""))
    print("5xx: %d   failed connections: %d %s" % (r["status_5xx"], failed, r["failed_by_kind"] or ""))
    if r["failed_samples"]:
        print("  failures: %s" % r["failed_samples"])
    lm = r["latency_ms"]
    print("latency: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.1f ms" % (lm["p50"], lm["p90"], lm["p99"], lm["max"]))
    m = r["rss_mib"]
    print("VmRSS every 1 s (%d samples): peak %.1f MiB; first minute mean %.1f / max %.1f MiB; "
          "last minute mean %.1f / max %.1f MiB (last/first %.3f); VmHWM %.1f MiB" % (
              m["samples"], m["peak"], m["first_minute_mean"], m["first_minute_max"],
              m["last_minute_mean"], m["last_minute_max"], m["last_over_first_minute_mean"], m["final_vmhwm"]))
    print("VmRSS max per minute (MiB): %s" % m["per_minute_max"])
    ok = r["status_5xx"] == 0 and failed == 0 and not r["unexpected"]
    print("RESULT: %s" % ("PASS (zero 5xx, zero failed connections, no unexpected status)" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
