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

for tool in wrk curl python3; do
    command -v "$tool" >/dev/null || { echo "memory.sh: needs $tool" >&2; exit 1; }
done
if [[ "${PIN:-1}" == 1 ]] && command -v taskset >/dev/null && (( $(nproc) >= 2 )); then
    SERVER_PIN=(taskset -c "${SERVER_CPUS:-1}")
    CLIENT_PIN=(taskset -c "${CLIENT_CPUS:-0}")
else
    SERVER_PIN=() CLIENT_PIN=()
fi
if [[ "${BUILD:-1}" == 1 && -z "${IPLOOKUP_BIN:-}" ]]; then
    cargo build --release --locked --bin iplookup
fi
unset IPLOOKUP_DATA_DIR IPLOOKUP_LISTEN IPLOOKUP_TRUSTED_PROXIES IPLOOKUP_NO_REVERSE_DNS \
    IPLOOKUP_DNS_SERVER IPLOOKUP_RDNS_CACHE_SIZE IPLOOKUP_RATE_LIMIT

# The interpreter itself, not a shim (pyenv): its PID is the one to signal.
PYTHON="$(python3 -c 'import sys; print(sys.executable)')"
WORK="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

wait_healthy() {
    for _ in $(seq 1 300); do
        [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/healthz" || true)" == 200 ]] && return 0
        sleep 0.1
    done
    echo "memory.sh: nothing answers on port $1" >&2
    exit 1
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
status_kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; } # PID VmRSS|VmHWM
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
metric() { # PORT NAME-AND-LABEL-REGEX
    curl -s "http://127.0.0.1:$1/metrics" | awk -v re="^$2" '$0 ~ re {s += $NF} END {printf "%d", s}'
}
# A wrk run that ends when its script creates the marker file (walk.lua,
# distinct.lua): wrk would otherwise sleep for its whole -d. Prints the WRK line.
run_wrk_until_done() { # PORT SCRIPT MAX_SECONDS ARGS... (the marker file is appended to ARGS)
    local port=$1 script=$2 dur=$3
    shift 3
    local marker="$WORK/wrk.done" out="$WORK/wrk.out"
    rm -f "$marker"
    "${CLIENT_PIN[@]}" wrk -t1 -c"$CONNECTIONS" -d"${dur}s" --timeout 5s -s "$HELPERS/$script" \
        "http://127.0.0.1:$port" -- "$@" "$marker" > "$out" &
    local w=$!
    while kill -0 "$w" 2>/dev/null && [[ ! -e "$marker" ]]; do sleep 0.05; done
    kill -INT "$w" 2>/dev/null || true
    wait "$w" || true
    grep '^WRK ' "$out"
}
field() { sed -E "s/.* $1=([0-9.]+).*/\1/" <<<"$2"; }

for p in "$P_OURS" "$P_DNS"; do
    if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$p/"; then
        echo "memory.sh: port $p in use; set PORT" >&2
        exit 1
    fi
done

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
