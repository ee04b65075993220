#!/usr/bin/env bash
# Resident memory of the service (issue 6, item 1, "memory"):
#
#  1. after start with the embedded data (target: VmRSS <= 64 MiB), reverse
#     DNS off and on (the in-run baseline of step 2);
#  2. during and after LOOKUPS (1 million) lookups of distinct addresses
#     through HTTP (GET /api/v1/ip/ADDR, every address asked once: half IPv4
#     spread over the whole space, half IPv6 in 2a00::/12;
#     bench/ceiling/helpers/distinct.lua), with reverse DNS on against a local
#     PTR responder (bench/ceiling/helpers/ptr_responder.py: every address has
#     a name), so the reverse DNS cache fills up to its cap, once per
#     --rdns-cache-size in CACHE_SIZES. VmRSS is read after each CHUNK of
#     lookups: bounded memory means it stops growing once the cache is full,
#     at a level set by the cap, not by the number of lookups.
#
# Prints VmRSS/VmHWM (from /proc/PID/status) at each step and the ratios to
# the after-start figure.
#
# Usage: bash bench/memory.sh
# Environment: LOOKUPS (1000000), CHUNK (250000), CACHE_SIZES ("100000 10000";
#   100000 is the default of --rdns-cache-size), CONNECTIONS (8), PORT (18820),
#   SCRAPE=1 to GET /metrics after each chunk, as a Prometheus scraper would
#   (the histogram samples of the metrics recorder are only drained then),
#   BUILD=0 to skip the release build (IPLOOKUP_BIN=PATH: use that binary, not built), SERVER_CPUS (1) / CLIENT_CPUS (0), PIN=0.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

LOOKUPS="${LOOKUPS:-1000000}"
CHUNK="${CHUNK:-250000}"
CACHE_SIZES="${CACHE_SIZES:-100000 10000}"
CONNECTIONS="${CONNECTIONS:-8}"
SCRAPE="${SCRAPE:-0}"
BASE_PORT="${PORT:-18820}"
P_OURS=$BASE_PORT P_DNS=$((BASE_PORT + 1))
HELPERS="$ROOT/bench/ceiling/helpers"
BIN="${IPLOOKUP_BIN:-$ROOT/target/release/iplookup}"

BENCH=memory.sh
source bench/lib.sh
need wrk curl python3
build_release

metric() { # PORT NAME-AND-LABEL-REGEX
    curl -s "http://127.0.0.1:$1/metrics" | awk -v re="^$2" '$0 ~ re {s += $NF} END {printf "%d", s}'
}

for p in "$P_OURS" "$P_DNS"; do port_free "$p"; done

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo

# 1. After start.
start_rss() { # LABEL ARGS...
    local label=$1
    shift
    "${SERVER_PIN[@]}" "$BIN" serve --listen "127.0.0.1:$P_OURS" "$@" >/dev/null 2>&1 &
    local pid=$!
    pids+=("$pid")
    wait_healthy "$P_OURS"
    sleep 1
    local r h
    r=$(status_kib "$pid" VmRSS) h=$(status_kib "$pid" VmHWM)
    printf 'after start, %-22s VmRSS %6s MiB  VmHWM %6s MiB\n' "$label:" "$(mib "$r")" "$(mib "$h")"
    stop "$pid"
    LAST_RSS=$r
}
start_rss "reverse DNS off" --no-reverse-dns
START_OFF=$LAST_RSS
start_rss "reverse DNS on" --dns-server "127.0.0.1:$P_DNS"
echo

# The PTR responder.
"${CLIENT_PIN[@]}" "$PYTHON" "$HELPERS/ptr_responder.py" "$P_DNS" 3600 > "$WORK/dns.out" 2> "$WORK/dns.err" &
dns=$!
pids+=("$dns")
for _ in $(seq 1 50); do grep -q ready "$WORK/dns.out" && break; sleep 0.1; done

summary=()
for cap in $CACHE_SIZES; do
    echo "== reverse DNS on, --rdns-cache-size $cap: $LOOKUPS lookups of distinct addresses$([[ "$SCRAPE" == 1 ]] && echo ", /metrics scraped after each chunk") =="
    "${SERVER_PIN[@]}" "$BIN" serve --listen "127.0.0.1:$P_OURS" --dns-server "127.0.0.1:$P_DNS" \
        --rdns-cache-size "$cap" >/dev/null 2>&1 &
    pid=$!
    pids+=("$pid")
    wait_healthy "$P_OURS"
    sleep 1
    base=$(status_kib "$pid" VmRSS)
    printf '%9s lookups: VmRSS %6s MiB  VmHWM %6s MiB\n' 0 "$(mib "$base")" "$(mib "$(status_kib "$pid" VmHWM)")"
    done_n=0 chunk_i=0 prev=$base rsses=()
    t0=$(date +%s)
    while (( done_n < LOOKUPS )); do
        n=$(( LOOKUPS - done_n < CHUNK ? LOOKUPS - done_n : CHUNK ))
        # Disjoint address sets per chunk: START values CHUNK apart (distinct.lua).
        line=$(run_wrk_until_done "$P_OURS" distinct.lua 1200 $((chunk_i * CHUNK)) "$n")
        done_n=$(( done_n + $(field requests "$line") ))
        chunk_i=$((chunk_i + 1))
        errs=$(( $(field err_status "$line") + $(field err_connect "$line") + $(field err_read "$line") + $(field err_timeout "$line") ))
        [[ "$SCRAPE" == 1 ]] && curl -s -o /dev/null "http://127.0.0.1:$P_OURS/metrics"
        r=$(status_kib "$pid" VmRSS) h=$(status_kib "$pid" VmHWM)
        rsses+=("$r")
        printf '%9s lookups: VmRSS %6s MiB  VmHWM %6s MiB  (%+.1f MiB; %s req/s, %s errors)\n' \
            "$done_n" "$(mib "$r")" "$(mib "$h")" "$(awk -v a="$r" -v b="$prev" 'BEGIN{print (a-b)/1024}')" \
            "$(field rps "$line")" "$errs"
        prev=$r
    done
    secs=$(( $(date +%s) - t0 ))
    hits=$(metric "$P_OURS" 'iplookup_rdns_cache_total\\{.*result="hit"')
    misses=$(metric "$P_OURS" 'iplookup_rdns_cache_total\\{.*result="miss"')
    sleep 2
    r=$(status_kib "$pid" VmRSS) h=$(status_kib "$pid" VmHWM)
    echo "done in ${secs}s; rDNS cache hits $hits, misses $misses"
    echo "final: VmRSS $(mib "$r") MiB (x$(ratio "$r" "$START_OFF") of after start), VmHWM $(mib "$h") MiB (x$(ratio "$h" "$START_OFF"))"
    summary+=("$(printf -- '--rdns-cache-size %-7s (scrape %s) after start %6s MiB; after %s lookups VmRSS %6s MiB (x%s), VmHWM %6s MiB (x%s); growth over the last chunk %+.1f MiB' \
        "$cap" "$SCRAPE" "$(mib "$base")" "$done_n" "$(mib "$r")" "$(ratio "$r" "$START_OFF")" "$(mib "$h")" "$(ratio "$h" "$START_OFF")" \
        "$(awk -v a="${rsses[-1]}" -v b="${rsses[-2]:-$base}" 'BEGIN{print (a-b)/1024}')")")
    stop "$pid"
    echo
done
stop "$dns"
cat "$WORK/dns.err"

echo "== summary (ratios to VmRSS after start with the embedded data, reverse DNS off: $(mib "$START_OFF") MiB; target <= 64 MiB) =="
for s in "${summary[@]}"; do echo "$s"; done
