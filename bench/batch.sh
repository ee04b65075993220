#!/usr/bin/env bash
# Addresses per second through HTTP (issue 14 §1): `POST /api/v1/ip` in
# batches of SIZE (1,000) addresses against single `GET /api/v1/ip/{ip}`,
# the same server, the same addresses, in the same run.
#
#  - server: target/release/iplookup serve --no-reverse-dns --no-watch
#    (embedded data), pinned to SERVER_CPUS;
#  - addresses: ADDRESSES distinct random public addresses, half IPv4, half
#    IPv6 (bench/ceiling/helpers/addresses.py, fixed seed);
#  - singles: wrk, one thread, CONNECTIONS keep-alive connections, each
#    request a random address of the list (random.lua);
#  - batches: wrk, one thread, CONNECTIONS connections, each request the next
#    slice of SIZE addresses of the list as a JSON array (batch.lua), answered
#    as a JSON array, and again as CSV (Accept: text/csv);
#  - ROUNDS rounds, singles and batches alternating, DURATION seconds each;
#    the median of each counts. Load generator pinned to CLIENT_CPUS.
#
# Prints per round and then the medians: requests/s, addresses/s (a batch is
# SIZE addresses), p50 and p99 per request, and the ratio batch/single of
# addresses per second. Any non-2xx answer fails the run.
#
# Usage: bash bench/batch.sh
# Environment: DURATION (10), CONNECTIONS (8 for singles), BATCH_CONNECTIONS
#   (2), ROUNDS (3), ADDRESSES (100000), SIZE (1000), PORT (18830),
#   SERVER_CPUS (1), CLIENT_CPUS (0) (PIN=0: no pinning), BUILD=0 to skip the
#   release build (IPLOOKUP_BIN=PATH: use that binary).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-8}"
BATCH_CONNECTIONS="${BATCH_CONNECTIONS:-2}"
ROUNDS="${ROUNDS:-3}"
ADDRESSES="${ADDRESSES:-100000}"
SIZE="${SIZE:-1000}"
PORT="${PORT:-18830}"
BIN="${IPLOOKUP_BIN:-$PWD/target/release/iplookup}"

BENCH=batch.sh
source bench/lib.sh
HELPERS="$ROOT/bench/ceiling/helpers"
need wrk curl python3
build_release
port_free "$PORT"

python3 "$HELPERS/addresses.py" "$ADDRESSES" > "$WORK/addresses.txt"

"${SERVER_PIN[@]}" "$BIN" serve --listen "127.0.0.1:$PORT" --no-reverse-dns --no-watch \
    --batch-limit "$SIZE" > "$WORK/server.log" 2>&1 &
pids+=($!)
wait_healthy "$PORT"

# One check before measuring: a batch answers SIZE entries.
head -n "$SIZE" "$WORK/addresses.txt" > "$WORK/one.txt"
got=$(curl -s -H 'Content-Type: text/plain' --data-binary @"$WORK/one.txt" \
    "http://127.0.0.1:$PORT/api/v1/ip" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
[[ "$got" == "$SIZE" ]] || { echo "$BENCH: a batch of $SIZE answered $got entries" >&2; exit 1; }

# Runs wrk with a script; prints its WRK line; fails on any error.
run() { # CONNECTIONS SCRIPT ARGS...
    local c=$1 script=$2
    shift 2
    local line
    line=$("${CLIENT_PIN[@]}" wrk -t1 -c"$c" -d"${DURATION}s" --timeout 10s -s "$HELPERS/$script" \
        "http://127.0.0.1:$PORT" -- "$@" | grep '^WRK ')
    local bad
    bad=$(( $(field err_status "$line") + $(field err_timeout "$line") + $(field err_connect "$line") + $(field err_read "$line") ))
    (( bad == 0 )) || { echo "$BENCH: errors in $line" >&2; exit 1; }
    echo "$line"
}

singles=() batches=() csvs=()
for r in $(seq 1 "$ROUNDS"); do
    s=$(run "$CONNECTIONS" random.lua "$WORK/addresses.txt")
    b=$(run "$BATCH_CONNECTIONS" batch.lua "$WORK/addresses.txt" "$SIZE" application/json)
    c=$(run "$BATCH_CONNECTIONS" batch.lua "$WORK/addresses.txt" "$SIZE" text/csv)
    singles+=("$(field rps "$s")") batches+=("$(field rps "$b")") csvs+=("$(field rps "$c")")
    printf 'round %d single: %s\nround %d batch json: %s\nround %d batch csv: %s\n' "$r" "$s" "$r" "$b" "$r" "$c"
done

s=$(median "${singles[@]}") b=$(median "${batches[@]}") c=$(median "${csvs[@]}")
bj=$(awk -v r="$b" -v n="$SIZE" 'BEGIN { printf "%.0f", r * n }')
bc=$(awk -v r="$c" -v n="$SIZE" 'BEGIN { printf "%.0f", r * n }')
printf '\nmedian of %d rounds, %d s each (load average now: %s)\n' "$ROUNDS" "$DURATION" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %12s %14s\n' "" "requests/s" "addresses/s"
printf '%-28s %12.1f %14.0f\n' "GET /api/v1/ip/{ip}" "$s" "$s"
printf '%-28s %12.1f %14s\n' "POST /api/v1/ip (JSON)" "$b" "$bj"
printf '%-28s %12.1f %14s\n' "POST /api/v1/ip (CSV)" "$c" "$bc"
printf 'batch/single (addresses/s): JSON %s, CSV %s\n' "$(ratio "$bj" "$s")" "$(ratio "$bc" "$s")"
