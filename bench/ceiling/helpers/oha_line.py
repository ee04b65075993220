#!/usr/bin/env python3
"""Turns oha's JSON report (standard input) into one line in the shape of
report.lua's WRK line, for bench/http.sh:

    OHA requests=N rps=R p50_us=.. p90_us=.. p99_us=.. max_us=.. non2xx=N errors=N

"errors" leaves out the requests oha itself aborted when its -z deadline
came (they were cut off by the client, not failed by the server)."""
import json
import sys

d = json.load(sys.stdin)
s, lat = d["summary"], d["latencyPercentiles"]
codes = d.get("statusCodeDistribution") or {}
errors = {k: v for k, v in (d.get("errorDistribution") or {}).items() if k != "aborted due to deadline"}
us = lambda seconds: int(round((seconds or 0) * 1e6))
print(
    f"OHA requests={sum(codes.values())} rps={s['requestsPerSec']:.1f} "
    f"p50_us={us(lat['p50'])} p90_us={us(lat['p90'])} p99_us={us(lat['p99'])} "
    f"max_us={us(s['slowest'])} non2xx={sum(v for k, v in codes.items() if not k.startswith('2'))} "
    f"errors={sum(errors.values())}"
)
