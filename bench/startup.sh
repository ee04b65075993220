#!/usr/bin/env bash
# Start-up time and resident memory of the release binary with the embedded data.
#
# For each run: start `target/release/iplookup --listen 127.0.0.1:PORT`, poll
# GET /healthz with curl in a tight loop until it answers 200, and record the
# time from just before the process was spawned to that first 200. Then read
# VmRSS (and VmHWM) from /proc/PID/status and stop the process.
# Prints every run, then median and max. Targets (issue 6): <= 500 ms, <= 64 MiB.
#
# Usage: bash bench/startup.sh [RUNS]      (default 20)
# Environment: IPLOOKUP_BIN (default target/release/iplookup, built if absent
# or when BUILD=1), PORT (first port, default 18700; run i uses PORT+i).
# The polling resolution is one curl invocation (a few ms): the figures are an
# upper bound on the real readiness time.
set -euo pipefail

RUNS="${1:-20}"
BASE_PORT="${PORT:-18700}"

# lib.sh also clears the caller's IPLOOKUP_* settings: the service must use
# the embedded data, no data dir.
BENCH=startup.sh
source "$(dirname "$0")/lib.sh"
need curl
cd "$ROOT"
BIN="${IPLOOKUP_BIN:-target/release/iplookup}"
if [[ "${BUILD:-0}" == 1 || ! -x "$BIN" ]]; then
    cargo build --release --locked --bin iplookup
fi

now_ns() { date +%s%N; }
div() { awk -v x="$1" -v d="$2" 'BEGIN { printf "%.1f", x / d }'; }

times=()
rss=()
hwm=()
for ((i = 0; i < RUNS; i++)); do
    port=$((BASE_PORT + i))
    url="http://127.0.0.1:$port/healthz"
    port_free "$port"
    t0=$(now_ns)
    "$BIN" --listen "127.0.0.1:$port" >/dev/null 2>&1 &
    pid=$!
    pids+=("$pid")
    ok=0
    while kill -0 "$pid" 2>/dev/null; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" || true)
        if [[ "$code" == 200 ]]; then
            ok=1
            break
        fi
        if (( ($(now_ns) - t0) > 30000000000 )); then break; fi
    done
    t1=$(now_ns)
    if [[ $ok != 1 ]]; then
        echo "startup.sh: run $i: no 200 on $url (process exited or 30 s passed)" >&2
        exit 1
    fi
    us=$(( (t1 - t0) / 1000 ))
    r=$(status_kib "$pid" VmRSS)
    h=$(status_kib "$pid" VmHWM)
    stop "$pid"
    times+=("$us")
    rss+=("$r")
    hwm+=("$h")
    printf 'run %2d: first 200 after %7s ms   VmRSS %6s MiB   VmHWM %6s MiB\n' \
        "$((i + 1))" "$(div "$us" 1000)" "$(div "$r" 1024)" "$(div "$h" 1024)"
done

stats() { echo "$(median "$@") $(maximum "$@")"; } # prints "median max" of the arguments
read -r t_med t_max < <(stats "${times[@]}")
read -r r_med r_max < <(stats "${rss[@]}")
read -r h_med h_max < <(stats "${hwm[@]}")
echo
printf 'start to first 200 on /healthz, %d runs: median %s ms, max %s ms (target <= 500 ms)\n' \
    "$RUNS" "$(div "$t_med" 1000)" "$(div "$t_max" 1000)"
printf 'VmRSS after start: median %s MiB, max %s MiB (target <= 64 MiB); VmHWM median %s MiB, max %s MiB\n' \
    "$(div "$r_med" 1024)" "$(div "$r_max" 1024)" \
    "$(div "$h_med" 1024)" "$(div "$h_max" 1024)"
