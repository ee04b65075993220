#!/usr/bin/env bash
# The network view's figures (issue 30; BENCHMARKS.md, "The network view"):
#
#  1. the largest AS's prefixes CSV (AS4134 in the embedded release): the
#     first request (the AS index, when not built yet, and the AS's profile)
#     and five later ones (the shared buffer);
#  2. the time to first byte of the HTML pages of the 20 largest ASes (by
#     rows of the data; their profiles not built yet) and the 20 largest
#     countries (by IPv4 addresses), each asked twice;
#  3. the JSON answer of every AS the data names (91,065 in the embedded
#     release) and of every country, each fetched once: VmRSS and VmHWM of
#     the server before and after (the AS profiles are kept within their
#     bound, 48 MiB; the country space is built once).
#
# The 200 non-reading clients on the largest CSV are measured by
# `cargo test --test limits csv` (tests/limits/csv.rs), which prints the
# peak before and after.
#
# Usage: bash bench/network.sh   (IPLOOKUP_BIN=PATH: that binary, else
#   target/release/iplookup; PORT (18840); PARALLEL (8); ASES=N: only the
#   first N AS numbers)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${IPLOOKUP_BIN:-target/release/iplookup}"
PORT="${PORT:-18840}"
PARALLEL="${PARALLEL:-8}"
BASE="http://127.0.0.1:$PORT"
WORK="$(mktemp -d)"
trap 'kill "$PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT

"$BIN" serve --listen "127.0.0.1:$PORT" --no-reverse-dns --log-format json 2>"$WORK/log" &
PID=$!
for _ in $(seq 1 300); do
    curl -sf "$BASE/healthz" >/dev/null && break
    sleep 0.1
done
mem() { grep -E '^(VmRSS|VmHWM)' "/proc/$PID/status" | tr -s ' \t' ' ' | tr '\n' ' '; echo; }
echo "after start: $(mem)"

csv="$BASE/api/v1/asn/AS4134/prefixes.csv"
for i in 1 2 3 4 5 6; do
    curl -s -o /dev/null -w "CSV request $i: %{http_code} %{size_download} bytes in %{time_total} s\n" "$csv"
done
echo "after the CSV: $(mem)"

# The pages of the 20 largest ASes and countries: time to first byte, twice.
ttfb() { curl -s -o /dev/null -H 'Accept: text/html' -w '%{time_starttransfer}\n' "$1"; }
spread() { sort -n | awk '{a[NR]=$1} END {printf "min %.1f ms, median %.1f ms, max %.1f ms", a[1]*1000, a[int((NR+1)/2)]*1000, a[NR]*1000}'; }
zcat data/asn.csv.gz | cut -d, -f3 | sort | uniq -c | sort -rn | awk 'NR <= 20 {print "/AS" $2}' > "$WORK/top-as"
for cc in $(cut -f1 data/countries.tsv | tail -n +2); do
    v4=$(curl -s "$BASE/api/v1/country/$cc" | python3 -c 'import json,sys; print(json.load(sys.stdin)["addresses"]["v4"])' 2>/dev/null || echo 0)
    echo "$v4 /country/$cc"
done | sort -rn | awk 'NR <= 20 {print $2}' > "$WORK/top-cc"
for list in top-as top-cc; do
    for round in first second; do
        for p in $(cat "$WORK/$list"); do ttfb "$BASE$p"; done > "$WORK/$list.$round"
        echo "$list pages ($(tr '\n' ' ' < "$WORK/$list" | cut -c1-60)...), $round request: $(spread < "$WORK/$list.$round")"
    done
done
echo "after the pages: $(mem)"

# Every AS number of the data, then every country code.
zcat data/asn.csv.gz | cut -d, -f3 | sort -un > "$WORK/asns"
if [ -n "${ASES:-}" ]; then head -n "$ASES" "$WORK/asns" > "$WORK/a" && mv "$WORK/a" "$WORK/asns"; fi
awk -v b="$BASE" '{ printf "url = \"%s/api/v1/asn/AS%s\"\noutput = \"/dev/null\"\n", b, $1 }' "$WORK/asns" > "$WORK/as.cfg"
cut -f1 data/countries.tsv | tail -n +2 |
    awk -v b="$BASE" '{ printf "url = \"%s/api/v1/country/%s\"\noutput = \"/dev/null\"\n", b, $1 }' > "$WORK/cc.cfg"
start=$(date +%s.%N)
curl -s --no-progress-meter --parallel --parallel-max "$PARALLEL" -K "$WORK/cc.cfg" -w '%{http_code}\n' > "$WORK/cc.codes"
echo "every country ($(wc -l < "$WORK/cc.codes") answers: $(sort "$WORK/cc.codes" | uniq -c | tr -s ' \n' ' ')) in $(echo "$(date +%s.%N) - $start" | bc) s: $(mem)"
start=$(date +%s.%N)
curl -s --no-progress-meter --parallel --parallel-max "$PARALLEL" -K "$WORK/as.cfg" -w '%{http_code}\n' > "$WORK/as.codes"
echo "every AS ($(wc -l < "$WORK/as.codes") answers: $(sort "$WORK/as.codes" | uniq -c | tr -s ' \n' ' ')) in $(echo "$(date +%s.%N) - $start" | bc) s: $(mem)"
