#!/usr/bin/env bash
# Start-up time and resident memory with a city database (issue 14, section 6:
# at most the file's size plus 64 MiB).
#
# For each binary (BINS, default the release build) and run: a data directory
# holding only the city MMDB (as dbip-city-lite-2026-06.mmdb; country and ASN
# come from the embedded snapshot), `iplookup serve --data-dir DIR`, the time
# from spawn to the first 200 on /healthz, then (after SETTLE seconds, for the
# city zones thread) one city answer and VmRSS/VmHWM from /proc/PID/status.
# One run with the embedded data alone per binary is the in-run baseline.
# Binaries are measured in turn within each round, so load on a shared machine
# hits them alike; medians are printed at the end.
#
# Usage: bash bench/city.sh CITY.mmdb [RUNS]      (default 5)
# Environment: BINS ("target/release/iplookup"; several, space-separated, to
#   compare builds), PORT (18900), SETTLE (2), ADDR (the address asked, 8.8.8.8).
set -euo pipefail
cd "$(dirname "$0")/.."

CITY="${1:?usage: bench/city.sh CITY.mmdb [RUNS]}"
RUNS="${2:-5}"
read -r -a BINS <<< "${BINS:-target/release/iplookup}"
PORT="${PORT:-18900}"
SETTLE="${SETTLE:-2}"
ADDR="${ADDR:-8.8.8.8}"
command -v curl >/dev/null || { echo "city.sh: needs curl" >&2; exit 1; }
unset IPLOOKUP_DATA_DIR IPLOOKUP_LISTEN

DIR="$(mktemp -d)"
pid=""
cleanup() {
    if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$DIR"
}
trap cleanup EXIT
ln -s "$(realpath "$CITY")" "$DIR/dbip-city-lite-2026-06.mmdb"
size_kib=$(( $(stat -L -c %s "$CITY") / 1024 ))
now_ns() { date +%s%N; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# run BIN ARGS... -> "ms rss_kib hwm_kib"
run() {
    local bin=$1
    shift
    local url="http://127.0.0.1:$PORT/healthz" t0 t1 code
    t0=$(now_ns)
    "$bin" serve --listen "127.0.0.1:$PORT" "$@" >/dev/null 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" || true)
        [[ "$code" == 200 ]] && break
        if (( ($(now_ns) - t0) > 60000000000 )); then break; fi
    done
    t1=$(now_ns)
    [[ "$code" == 200 ]] || { echo "city.sh: $bin never answered" >&2; exit 1; }
    sleep "$SETTLE"
    curl -s -o /dev/null "http://127.0.0.1:$PORT/api/v1/ip/$ADDR"
    local r h
    r=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    h=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=""
    echo "$(( (t1 - t0) / 1000000 )) $r $h"
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); city file $(basename "$CITY"), $(mib "$size_kib") MiB"
declare -A T R H
for bin in "${BINS[@]}"; do
    read -r ms r h < <(run "$bin")
    echo "$bin, embedded data only: first 200 after $ms ms, VmRSS $(mib "$r") MiB, VmHWM $(mib "$h") MiB"
done
for ((i = 1; i <= RUNS; i++)); do
    for bin in "${BINS[@]}"; do
        read -r ms r h < <(run "$bin" --data-dir "$DIR")
        T[$bin]+="$ms "
        R[$bin]+="$r "
        H[$bin]+="$h "
        printf 'run %d %s: first 200 after %6s ms   VmRSS %6s MiB   VmHWM %6s MiB\n' \
            "$i" "$bin" "$ms" "$(mib "$r")" "$(mib "$h")"
    done
done
echo "answer for $ADDR (last binary): $("${BINS[-1]}" lookup --data-dir "$DIR" "$ADDR" 2>/dev/null || true)"
echo
echo "median over $RUNS runs (budget: file + 64 MiB = $(mib $((size_kib + 65536))) MiB):"
for bin in "${BINS[@]}"; do
    # shellcheck disable=SC2086
    ms=$(median ${T[$bin]}); r=$(median ${R[$bin]}); h=$(median ${H[$bin]})
    printf '  %-40s first 200 %6s ms   VmRSS %6s MiB (file + %s MiB)   VmHWM %6s MiB\n' \
        "$bin" "$ms" "$(mib "$r")" "$(mib $((r - size_kib)))" "$(mib "$h")"
done
