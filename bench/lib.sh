# Shared by every bench/*.sh script (sourced, not run): the tools check, CPU
# pinning, the scratch directory and the processes stopped on exit, and the
# small helpers the scripts have in common.
#
# The script sets BENCH (its name, for messages) before sourcing this file.
# ROOT is the repository root (sourcing does not change directory).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Exits with a message unless every tool named is on PATH.
need() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "$BENCH: needs $tool (Debian: apt-get install -y $tool)" >&2; exit 1; }
    done
}

# SERVER_PIN / CLIENT_PIN: taskset prefixes that keep the server on
# SERVER_CPUS (1) and the load generator on CLIENT_CPUS (0); empty with PIN=0
# or on a single CPU.
if [[ "${PIN:-1}" == 1 ]] && command -v taskset >/dev/null && (( $(nproc) >= 2 )); then
    SERVER_PIN=(taskset -c "${SERVER_CPUS:-1}")
    CLIENT_PIN=(taskset -c "${CLIENT_CPUS:-0}")
else
    SERVER_PIN=() CLIENT_PIN=()
fi

# The service reads these; a bench sets what it measures on the command line.
unset IPLOOKUP_DATA_DIR IPLOOKUP_LISTEN IPLOOKUP_TRUSTED_PROXIES IPLOOKUP_NO_REVERSE_DNS \
    IPLOOKUP_DNS_SERVER IPLOOKUP_RDNS_CACHE_SIZE IPLOOKUP_RATE_LIMIT IPLOOKUP_MAX_CONNECTIONS \
    IPLOOKUP_NO_WATCH

# The interpreter itself, not a shim (pyenv): its PID is the one to signal.
# Empty without python3 (the scripts that run Python check with `need python3`).
PYTHON="$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)"
# Scratch files; every PID in pids is stopped on exit.
WORK="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# Waits up to 30 s (or SECONDS_MAX) for a 200 on /healthz.
wait_healthy() { # PORT [SECONDS_MAX]
    for _ in $(seq 1 $((${2:-30} * 10))); do
        [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/healthz" || true)" == 200 ]] && return 0
        sleep 0.1
    done
    echo "$BENCH: nothing answers on port $1" >&2
    exit 1
}
# Exits unless nothing answers on the port.
port_free() { # PORT
    if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$1/"; then
        echo "$BENCH: port $1 is in use; set PORT" >&2
        exit 1
    fi
}
# Builds the release binary unless BUILD=0 or IPLOOKUP_BIN names another one.
build_release() {
    if [[ "${BUILD:-1}" == 1 && -z "${IPLOOKUP_BIN:-}" ]]; then
        cargo build --release --locked --bin iplookup
    fi
}
stop() { # PID
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# A wrk run that ends when its script creates the marker file (walk.lua,
# distinct.lua): wrk would otherwise sleep for its whole -d. Prints the WRK
# line. Uses CONNECTIONS and HELPERS.
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

# NAME=value out of a "WRK ..." / "OHA ..." line.
field() { sed -E "s/.* $1=([0-9.]+).*/\1/" <<<"$2"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
maximum() { printf '%s\n' "$@" | sort -g | tail -n 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.3f", u / 1000 }'; } # microseconds to ms
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; } # KiB to MiB
status_kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; } # PID VmRSS|VmHWM
