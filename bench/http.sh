#!/usr/bin/env bash
# HTTP throughput and latency of `GET /api/v1/ip/{random ip}` against the
# ceiling of this machine (issue 6, item 1, "HTTP").
#
#  - ours:    target/release/iplookup serve --no-reverse-dns (embedded data);
#  - ceiling: bench/ceiling, a minimal hyper 1 server answering one fixed body:
#             the real answer of ours to /api/v1/ip/8.8.8.8, so the bodies
#             have the same size;
#  - ours with reverse DNS on, its cache warmed: --dns-server points at a local
#    PTR responder (bench/ceiling/helpers/ptr_responder.py, every address has
#    a name, TTL 1 h), one pass over the whole address list fills the cache,
#    then the same measurement.
#
# Load: closed loop, CONNECTIONS keep-alive connections, DURATION seconds,
# each request for an address drawn at random from ADDRESSES distinct public
# addresses (half IPv4, half IPv6 in 2000::/3; bench/ceiling/helpers/
# addresses.py, fixed seed), with two load generators in turn:
#  - wrk (Debian), one thread, a Lua script building each request;
#  - oha (crates.io: cargo install --locked oha --version 1.16.0), the same
#    addresses as a URL list (--urls-from-file).
# The servers run on SERVER_CPUS and the load generator on CLIENT_CPUS
# (taskset) so that the load generator does not steal the server's CPU; ours
# and the ceiling alternate for ROUNDS rounds (the median counts), so that
# drift on a shared machine hits both alike.
#
# Every run also prints cpu=, the share of one CPU the server process used
# while the load ran (utime + stime from /proc). A server near cpu=1.0 is the
# bottleneck (saturated); below that the load generator is. p99 in a closed
# loop depends on which side is the bottleneck, so compare it knowing that.
# The control run (CONTROL=1) shows it: wrk without a script (one fixed
# request, much cheaper per request for wrk) on /api/v1/ip/8.8.8.8, where the
# ceiling too is driven to saturation.
#
# Latency is also measured in an open loop (RATE req/s, 40000 by default):
# oha sends at that rate whatever the answers (-q) and counts each request's
# latency from when it should have been sent (--latency-correction), so both
# servers see the same offered load and neither they nor oha are saturated.
# A closed loop at full speed measures whichever side saturates first; this
# measures the latency of the server at one load.
#
# Prints req/s, p50 and p99 of each, and the ratios ours/ceiling
# (targets: req/s >= 0.80, p99 <= 2.0, with reverse DNS off).
#
# Usage: bash bench/http.sh
# Environment: DURATION (10), CONNECTIONS (8), ROUNDS (3), ADDRESSES (100000),
#   SERVER_CPUS (1), CLIENT_CPUS (0) (PIN=0: no pinning), PORT (first of 3
#   ports, 18800), RATE (40000; 0 skips the open-loop rounds), BUILD=0 to
#   skip the release builds (IPLOOKUP_BIN=PATH: use that binary, not built),
#   RDNS=0 to skip the reverse DNS run, OHA=0 to skip
#   the oha rounds, CONTROL=0 to skip the control run, DIAG=1 to also time
#   ours on fixed paths (/api/v1/ip/8.8.8.8, /healthz, a 404) against the
#   ceiling, to see where the gap is.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-8}"
ROUNDS="${ROUNDS:-3}"
ADDRESSES="${ADDRESSES:-100000}"
RATE="${RATE:-40000}"
BASE_PORT="${PORT:-18800}"
P_OURS=$BASE_PORT P_CEIL=$((BASE_PORT + 1)) P_DNS=$((BASE_PORT + 2))
HELPERS="$ROOT/bench/ceiling/helpers"
BIN="${IPLOOKUP_BIN:-$ROOT/target/release/iplookup}"
CEILING="$ROOT/bench/ceiling/target/release/ceiling"

BENCH=http.sh
source bench/lib.sh
need wrk curl python3
if [[ "${OHA:-1}" == 1 ]] && ! command -v oha >/dev/null; then
    echo "http.sh: needs oha (cargo install --locked oha --version 1.16.0), or OHA=0" >&2
    exit 1
fi

if [[ "${BUILD:-1}" == 1 ]]; then
    [[ -n "${IPLOOKUP_BIN:-}" ]] || cargo build --release --locked --bin iplookup
    (cd bench/ceiling && cargo build --release --locked)
fi

# One wrk run; prints its "WRK ..." line.
run_wrk() { # PORT SCRIPT DURATION [ARGS...]
    local port=$1 script=$2 dur=$3
    shift 3
    "${CLIENT_PIN[@]}" wrk -t1 -c"$CONNECTIONS" -d"${dur}s" --timeout 5s -s "$HELPERS/$script" \
        "http://127.0.0.1:$port" -- "$@" | grep '^WRK '
}
# One oha run over the address list; prints an "OHA ..." line (oha_line.py).
run_oha() { # PORT DURATION [OHA ARGS...]
    local port=$1 dur=$2
    shift 2
    sed "s#^#http://127.0.0.1:$port/api/v1/ip/#" "$WORK/addresses.txt" > "$WORK/urls.txt"
    "${CLIENT_PIN[@]}" oha --no-tui -c "$CONNECTIONS" -z "${dur}s" --urls-from-file "$WORK/urls.txt" \
        --output-format json "$@" 2>/dev/null | python3 "$HELPERS/oha_line.py"
}
# One wrk run without a script: the same request every time, on 8.8.8.8.
run_wrk_static() { # PORT DURATION
    "${CLIENT_PIN[@]}" wrk -t1 -c"$CONNECTIONS" -d"${2}s" --timeout 5s --latency \
        "http://127.0.0.1:$1/api/v1/ip/8.8.8.8" | awk '
        /Requests\/sec/ { rps = $2 }
        /^ +(50|90|99)%/ { v = $2; u = 1
            if (v ~ /ms$/) u = 1000; else if (v ~ /[^mu]s$/) u = 1000000
            sub(/[a-z]+$/, "", v); p[$1] = int(v * u + 0.5) }
        END { printf "WRK-STATIC rps=%s p50_us=%d p90_us=%d p99_us=%d\n", rps, p["50%"], p["90%"], p["99%"] }'
}
# Warns when a wrk or oha line of the runs just made reports errors.
check_wrk() { # LINE...
    local line
    for line in "$@"; do
        if [[ "$(field err_status "$line")" != 0 || "$(field err_connect "$line")" != 0 \
              || "$(field err_read "$line")" != 0 || "$(field err_timeout "$line")" != 0 ]]; then
            echo "http.sh: errors in the run above" >&2
        fi
    done
}
check_oha() { # LINE...
    local line
    for line in "$@"; do
        if [[ "$(field non2xx "$line")" != 0 || "$(field errors "$line")" != 0 ]]; then
            echo "http.sh: errors in the run above" >&2
        fi
    done
}
# CPU time (user + system) of a process so far, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# Runs a load command and appends cpu=, the share of one CPU that PID used meanwhile.
with_cpu() { # PID COMMAND...
    local pid=$1 t0 w0 line t1 w1
    shift
    t0=$(ticks "$pid") w0=$(date +%s.%N)
    line=$("$@")
    t1=$(ticks "$pid") w1=$(date +%s.%N)
    awk -v l="$line" -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v w="$(awk -v a="$w0" -v b="$w1" 'BEGIN { print b - a }')" \
        'BEGIN { printf "%s cpu=%.2f\n", l, t / hz / w }'
}

"$PYTHON" "$HELPERS/addresses.py" "$ADDRESSES" > "$WORK/addresses.txt"
for p in "$P_OURS" "$P_CEIL" "$P_DNS"; do port_free "$p"; done

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
if (( ${#SERVER_PIN[@]} )); then
    echo "pinned with taskset: servers on CPUs ${SERVER_CPUS:-1}, wrk and the DNS responder on CPUs ${CLIENT_CPUS:-0}"
else
    echo "not pinned"
fi
echo "wrk -t1 -c$CONNECTIONS -d${DURATION}s, $ROUNDS rounds, $ADDRESSES distinct random public addresses"
echo

# The ceiling's body: our real answer for 8.8.8.8.
"${SERVER_PIN[@]}" "$BIN" serve --listen "127.0.0.1:$P_OURS" --no-reverse-dns >/dev/null 2>&1 &
ours=$!
pids+=("$ours")
wait_healthy "$P_OURS"
curl -s -D "$WORK/ours.head" -o "$WORK/body.json" "http://127.0.0.1:$P_OURS/api/v1/ip/8.8.8.8"
"${SERVER_PIN[@]}" "$CEILING" "127.0.0.1:$P_CEIL" "$WORK/body.json" 2>/dev/null &
ceiling=$!
pids+=("$ceiling")
wait_healthy "$P_CEIL"
curl -s -D "$WORK/ceil.head" -o /dev/null "http://127.0.0.1:$P_CEIL/api/v1/ip/8.8.8.8"
echo "body of /api/v1/ip/8.8.8.8: $(wc -c < "$WORK/body.json") bytes (ours and the ceiling);" \
    "response head: ours $(wc -c < "$WORK/ours.head") bytes, ceiling $(wc -c < "$WORK/ceil.head") bytes"

# Warm-up, then alternate.
run_wrk "$P_OURS" random.lua 2 "$WORK/addresses.txt" >/dev/null
run_wrk "$P_CEIL" random.lua 2 "$WORK/addresses.txt" >/dev/null
o_rps=() o_p50=() o_p99=() c_rps=() c_p50=() c_p99=() o_cpu=() c_cpu=()
for ((r = 1; r <= ROUNDS; r++)); do
    o=$(with_cpu "$ours" run_wrk "$P_OURS" random.lua "$DURATION" "$WORK/addresses.txt")
    c=$(with_cpu "$ceiling" run_wrk "$P_CEIL" random.lua "$DURATION" "$WORK/addresses.txt")
    echo "round $r ours:    $o"
    echo "round $r ceiling: $c"
    o_rps+=("$(field rps "$o")") o_p50+=("$(field p50_us "$o")") o_p99+=("$(field p99_us "$o")")
    c_rps+=("$(field rps "$c")") c_p50+=("$(field p50_us "$c")") c_p99+=("$(field p99_us "$c")")
    o_cpu+=("$(field cpu "$o")") c_cpu+=("$(field cpu "$c")")
    check_wrk "$o" "$c"
done
# The same with oha.
h_rps=() h_p50=() h_p99=() hc_rps=() hc_p50=() hc_p99=() h_cpu=() hc_cpu=()
if [[ "${OHA:-1}" == 1 ]]; then
    run_oha "$P_OURS" 2 >/dev/null
    run_oha "$P_CEIL" 2 >/dev/null
    for ((r = 1; r <= ROUNDS; r++)); do
        o=$(with_cpu "$ours" run_oha "$P_OURS" "$DURATION")
        c=$(with_cpu "$ceiling" run_oha "$P_CEIL" "$DURATION")
        echo "round $r ours, oha:    $o"
        echo "round $r ceiling, oha: $c"
        h_rps+=("$(field rps "$o")") h_p50+=("$(field p50_us "$o")") h_p99+=("$(field p99_us "$o")")
        hc_rps+=("$(field rps "$c")") hc_p50+=("$(field p50_us "$c")") hc_p99+=("$(field p99_us "$c")")
        h_cpu+=("$(field cpu "$o")") hc_cpu+=("$(field cpu "$c")")
        check_oha "$o" "$c"
    done
fi
# Open loop (RATE > 0): oha sends RATE req/s whatever the answers, and
# corrects for coordinated omission; the latency at one offered load, with
# neither the server nor oha saturated.
f_p50=() f_p99=() fc_p50=() fc_p99=() f_cpu=() fc_cpu=()
if [[ "${OHA:-1}" == 1 && "$RATE" != 0 ]]; then
    for ((r = 1; r <= ROUNDS; r++)); do
        o=$(with_cpu "$ours" run_oha "$P_OURS" "$DURATION" -q "$RATE" --latency-correction)
        c=$(with_cpu "$ceiling" run_oha "$P_CEIL" "$DURATION" -q "$RATE" --latency-correction)
        echo "round $r ours, oha at $RATE req/s:    $o"
        echo "round $r ceiling, oha at $RATE req/s: $c"
        f_p50+=("$(field p50_us "$o")") f_p99+=("$(field p99_us "$o")") f_cpu+=("$(field cpu "$o")")
        fc_p50+=("$(field p50_us "$c")") fc_p99+=("$(field p99_us "$c")") fc_cpu+=("$(field cpu "$c")")
        check_oha "$o" "$c"
    done
fi
# Control: wrk without a script, one fixed request (CONTROL=1).
s_rps=() s_p99=() sc_rps=() sc_p99=() s_cpu=() sc_cpu=()
if [[ "${CONTROL:-1}" == 1 ]]; then
    for ((r = 1; r <= ROUNDS; r++)); do
        o=$(with_cpu "$ours" run_wrk_static "$P_OURS" "$DURATION")
        c=$(with_cpu "$ceiling" run_wrk_static "$P_CEIL" "$DURATION")
        echo "control round $r ours:    $o"
        echo "control round $r ceiling: $c"
        s_rps+=("$(field rps "$o")") s_p99+=("$(field p99_us "$o")") s_cpu+=("$(field cpu "$o")")
        sc_rps+=("$(field rps "$c")") sc_p99+=("$(field p99_us "$c")") sc_cpu+=("$(field cpu "$c")")
    done
fi
# Where the gap is (DIAG=1): ours on fixed paths, same wrk settings.
diag=()
if [[ "${DIAG:-0}" == 1 ]]; then
    for path in /api/v1/ip/8.8.8.8 /healthz /nope; do
        echo "${path#/}" > "$WORK/one.txt"
        d_rps=() d_p99=()
        for ((r = 1; r <= ROUNDS; r++)); do
            o=$(run_wrk "$P_OURS" random.lua "$DURATION" "$WORK/one.txt" /)
            c=$(run_wrk "$P_CEIL" random.lua "$DURATION" "$WORK/addresses.txt")
            d_rps+=("$(ratio "$(field rps "$o")" "$(field rps "$c")")")
            d_p99+=("$(ratio "$(field p99_us "$o")" "$(field p99_us "$c")")")
            echo "diag $path round $r ours: $o"
            echo "diag $path round $r ceiling: $c"
        done
        diag+=("$(printf 'ours GET %-20s /ceiling: req/s %s, p99 %s (median of %d alternating rounds)' \
            "$path" "$(median "${d_rps[@]}")" "$(median "${d_p99[@]}")" "$ROUNDS")")
    done
fi
stop "$ours"
stop "$ceiling"

O_RPS=$(median "${o_rps[@]}") O_P50=$(median "${o_p50[@]}") O_P99=$(median "${o_p99[@]}")
C_RPS=$(median "${c_rps[@]}") C_P50=$(median "${c_p50[@]}") C_P99=$(median "${c_p99[@]}")
O_CPU=$(median "${o_cpu[@]}") C_CPU=$(median "${c_cpu[@]}")

R_RPS="" R_P50="" R_P99=""
if [[ "${RDNS:-1}" == 1 ]]; then
    echo
    echo "reverse DNS on: PTR responder on 127.0.0.1:$P_DNS"
    "${CLIENT_PIN[@]}" "$PYTHON" "$HELPERS/ptr_responder.py" "$P_DNS" 3600 > "$WORK/dns.out" 2> "$WORK/dns.err" &
    dns=$!
    pids+=("$dns")
    for _ in $(seq 1 50); do grep -q ready "$WORK/dns.out" && break; sleep 0.1; done
    "${SERVER_PIN[@]}" "$BIN" serve --listen "127.0.0.1:$P_OURS" --dns-server "127.0.0.1:$P_DNS" \
        --rdns-cache-size $((ADDRESSES * 2)) >/dev/null 2>&1 &
    ours=$!
    pids+=("$ours")
    wait_healthy "$P_OURS"
    # Warm: ask every address of the list once, wait for the late answers, once more.
    w1=$(run_wrk_until_done "$P_OURS" walk.lua 600 "$WORK/addresses.txt")
    sleep 3
    w2=$(run_wrk_until_done "$P_OURS" walk.lua 600 "$WORK/addresses.txt")
    echo "warm pass 1: $w1"
    echo "warm pass 2: $w2"
    metrics=$(curl -s "http://127.0.0.1:$P_OURS/metrics")
    hits=$(awk '/^iplookup_rdns_cache_total\{.*result="hit"/ {print $NF}' <<<"$metrics")
    misses=$(awk '/^iplookup_rdns_cache_total\{.*result="miss"/ {print $NF}' <<<"$metrics")
    echo "after warming: rDNS cache hits ${hits:-?}, misses ${misses:-?} (${ADDRESSES} addresses)"
    sample=$(head -n 3 "$WORK/addresses.txt" | tail -n 1)
    echo "sample: /api/v1/ip/$sample -> $(curl -s "http://127.0.0.1:$P_OURS/api/v1/ip/$sample" | python3 -c 'import json,sys; print("reverse_dns =", json.load(sys.stdin)["network"]["reverse_dns"])')"
    r_rps=() r_p50=() r_p99=()
    for ((r = 1; r <= ROUNDS; r++)); do
        o=$(run_wrk "$P_OURS" random.lua "$DURATION" "$WORK/addresses.txt")
        echo "round $r ours, reverse DNS on, warm: $o"
        r_rps+=("$(field rps "$o")") r_p50+=("$(field p50_us "$o")") r_p99+=("$(field p99_us "$o")")
    done
    metrics2=$(curl -s "http://127.0.0.1:$P_OURS/metrics")
    misses2=$(awk '/^iplookup_rdns_cache_total\{.*result="miss"/ {print $NF}' <<<"$metrics2")
    echo "rDNS cache misses during the measurement: $(( ${misses2%.*} - ${misses%.*} ))"
    stop "$ours"
    stop "$dns"
    R_RPS=$(median "${r_rps[@]}") R_P50=$(median "${r_p50[@]}") R_P99=$(median "${r_p99[@]}")
fi

echo
echo "== GET /api/v1/ip/{random ip}, median of $ROUNDS x ${DURATION}s, $CONNECTIONS connections =="
printf '%-36s %10s %10s %10s %6s\n' "" "req/s" "p50 ms" "p99 ms" "cpu"
printf '%-36s %10.0f %10s %10s %6s\n' "wrk: ceiling (fixed body)" "$C_RPS" "$(ms "$C_P50")" "$(ms "$C_P99")" "$C_CPU"
printf '%-36s %10.0f %10s %10s %6s\n' "wrk: ours, reverse DNS off" "$O_RPS" "$(ms "$O_P50")" "$(ms "$O_P99")" "$O_CPU"
[[ -n "$R_RPS" ]] && printf '%-36s %10.0f %10s %10s\n' "wrk: ours, reverse DNS on (warm)" "$R_RPS" "$(ms "$R_P50")" "$(ms "$R_P99")"
if (( ${#h_rps[@]} )); then
    H_RPS=$(median "${h_rps[@]}") H_P50=$(median "${h_p50[@]}") H_P99=$(median "${h_p99[@]}")
    HC_RPS=$(median "${hc_rps[@]}") HC_P50=$(median "${hc_p50[@]}") HC_P99=$(median "${hc_p99[@]}")
    printf '%-36s %10.0f %10s %10s %6s\n' "oha: ceiling (fixed body)" "$HC_RPS" "$(ms "$HC_P50")" "$(ms "$HC_P99")" "$(median "${hc_cpu[@]}")"
    printf '%-36s %10.0f %10s %10s %6s\n' "oha: ours, reverse DNS off" "$H_RPS" "$(ms "$H_P50")" "$(ms "$H_P99")" "$(median "${h_cpu[@]}")"
fi
if (( ${#f_p99[@]} )); then
    printf '%-36s %10s %10s %10s %6s\n' "oha at $RATE req/s: ceiling" "$RATE" "$(ms "$(median "${fc_p50[@]}")")" "$(ms "$(median "${fc_p99[@]}")")" "$(median "${fc_cpu[@]}")"
    printf '%-36s %10s %10s %10s %6s\n' "oha at $RATE req/s: ours" "$RATE" "$(ms "$(median "${f_p50[@]}")")" "$(ms "$(median "${f_p99[@]}")")" "$(median "${f_cpu[@]}")"
fi
if (( ${#s_rps[@]} )); then
    printf '%-36s %10.0f %10s %10s %6s\n' "control, wrk static 8.8.8.8: ceiling" "$(median "${sc_rps[@]}")" "" "$(ms "$(median "${sc_p99[@]}")")" "$(median "${sc_cpu[@]}")"
    printf '%-36s %10.0f %10s %10s %6s\n' "control, wrk static 8.8.8.8: ours" "$(median "${s_rps[@]}")" "" "$(ms "$(median "${s_p99[@]}")")" "$(median "${s_cpu[@]}")"
fi
echo
echo "wrk: ours/ceiling req/s: $(ratio "$O_RPS" "$C_RPS") (target >= 0.80)"
echo "wrk: ours/ceiling p99:   $(ratio "$O_P99" "$C_P99") (target <= 2.00)"
echo "wrk: ours/ceiling p50:   $(ratio "$O_P50" "$C_P50")"
if (( ${#h_rps[@]} )); then
    echo "oha: ours/ceiling req/s: $(ratio "$H_RPS" "$HC_RPS") (target >= 0.80)"
    echo "oha: ours/ceiling p99:   $(ratio "$H_P99" "$HC_P99") (target <= 2.00)"
    echo "oha: ours/ceiling p50:   $(ratio "$H_P50" "$HC_P50")"
fi
if (( ${#f_p99[@]} )); then
    echo "oha at $RATE req/s: ours/ceiling p99 $(ratio "$(median "${f_p99[@]}")" "$(median "${fc_p99[@]}")") (target <= 2.00), p50 $(ratio "$(median "${f_p50[@]}")" "$(median "${fc_p50[@]}")")"
fi
if (( ${#s_rps[@]} )); then
    echo "control: ours/ceiling req/s $(ratio "$(median "${s_rps[@]}")" "$(median "${sc_rps[@]}")"), p99 $(ratio "$(median "${s_p99[@]}")" "$(median "${sc_p99[@]}")")"
fi
for d in "${diag[@]}"; do echo "$d"; done
if [[ -n "$R_RPS" ]]; then
    echo "reverse DNS on (warm)/ceiling req/s: $(ratio "$R_RPS" "$C_RPS"), p99: $(ratio "$R_P99" "$C_P99")"
    echo "reverse DNS on (warm)/off req/s: $(ratio "$R_RPS" "$O_RPS"), p99: $(ratio "$R_P99" "$O_P99")"
fi
