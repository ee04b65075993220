#!/usr/bin/env bash
# Instructions per request of one server under callgrind: repeatable whatever
# the load of the machine (wall-clock figures of bench/http.sh are not).
#
# Starts the server under `valgrind --tool=callgrind`, waits for /healthz,
# zeroes the counters, sends requests with wrk for DURATION seconds (random.lua:
# PREFIX + a line of LIST drawn at random), dumps, and prints the requests
# served and the instructions per request (start-up excluded). The profile is
# left in OUT (callgrind_annotate OUT/callgrind.out.*.1 shows where they go).
#
# Usage: bash bench/callgrind.sh PORT LIST PREFIX -- SERVER_COMMAND...
#   bash bench/callgrind.sh 18900 addresses.txt /api/v1/ip/ -- \
#       target/release/iplookup serve --listen 127.0.0.1:18900 --no-reverse-dns
#   bash bench/callgrind.sh 18901 addresses.txt /api/v1/ip/ -- \
#       bench/ceiling/target/release/ceiling 127.0.0.1:18901 body.json
#   (addresses.txt: python3 bench/ceiling/helpers/addresses.py 100000 > addresses.txt;
#    /healthz: a LIST holding the line `healthz` and PREFIX `/`)
# Environment: DURATION (6), OUT (a new temporary directory), ACCEPT_ENCODING
# (sent as `Accept-Encoding` on every request when set, e.g. "gzip, br": the
# hot route must cost the same with it as without, issue 32), HEADER_NAME (send
# that value under another name instead: the same bytes, no encoding asked).
# Function names need symbols only; for line numbers build with
# CARGO_PROFILE_RELEASE_DEBUG=line-tables-only.
set -euo pipefail
port=$1 list=$2 prefix=$3
shift 3
[[ "${1:-}" == "--" ]] && shift
list="$(realpath "$list")"
OUT="${OUT:-$(mktemp -d)}"

BENCH=callgrind.sh
source "$(dirname "$0")/lib.sh"
need valgrind callgrind_control callgrind_annotate wrk curl
HELPERS="$ROOT/bench/ceiling/helpers"
mkdir -p "$OUT"

valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out.%p" "$@" > "$OUT/server.log" 2>&1 &
pid=$!
pids+=("$pid")
wait_healthy "$port" 120
callgrind_control -z "$pid" > /dev/null 2>&1
requests=$(wrk -t1 -c8 -d"${DURATION:-6}s" -s "$HELPERS/random.lua" "http://127.0.0.1:$port" -- "$list" "$prefix" "${ACCEPT_ENCODING:-}" "${HEADER_NAME:-Accept-Encoding}" \
    | sed -nE 's/^WRK requests=([0-9]+).*/\1/p')
callgrind_control -d "$pid" > /dev/null 2>&1
kill "$pid"
wait "$pid" || true
total=$(callgrind_annotate "$(ls -t "$OUT"/callgrind.out.*.1 | head -n 1)" 2>/dev/null \
    | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
echo "requests $requests, instructions $total, per request $((total / requests)) (profile in $OUT)"
