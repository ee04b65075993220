#!/usr/bin/env bash
# Soak (issue 6, item 4): the release binary under a steady mixed load for
# DURATION seconds, with a data reload in the middle.
#
#  - data: --data-dir holding a small valid release (2030-01: the first
#    ROWS rows of the embedded DB-IP country file and of the embedded ASN
#    file, gzipped, in DB-IP file names); at DURATION/2 a new release
#    (2030-02: the next ROWS rows of each) is dropped in atomically (written
#    under a temporary name, then renamed) and SIGHUP is sent as well. With
#    RELOADS=N, N reloads evenly spread, the releases alternating between the
#    two row sets (to tell a change in data size from memory kept per reload);
#  - reverse DNS on, against a local PTR responder with a short TTL (60 s), so
#    the reverse DNS cache keeps expiring and refilling;
#  - load: bench/ceiling/helpers/soak_client.py (Python standard library):
#    RATE requests/s over CONNECTIONS keep-alive connections (5 % of the
#    requests close theirs), every endpoint and format, valid and invalid
#    addresses, CLI and browser User-Agents.
#
# Reports requests, answers by status (4xx for the invalid requests counted
# apart from 5xx), unexpected statuses, failed connections, p50/p99, VmRSS
# sampled every second (peak; first minute vs last minute) and VmHWM.
# Exits non-zero on any 5xx, failed connection or unexpected status.
#
# Usage: bash bench/soak.sh [DURATION_SECONDS]     (default 600)
# Environment: RATE (300), CONNECTIONS (16), ROWS (100000), RELOADS (1), PORT (18840),
#   BUILD=0 to skip the release build (IPLOOKUP_BIN=PATH: use that binary, not built), JSON=FILE to keep the full report.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

DURATION="${1:-600}"
RATE="${RATE:-300}"
CONNECTIONS="${CONNECTIONS:-16}"
ROWS="${ROWS:-100000}"
RELOADS="${RELOADS:-1}"
BASE_PORT="${PORT:-18840}"
P_OURS=$BASE_PORT P_DNS=$((BASE_PORT + 1))
HELPERS="$ROOT/bench/ceiling/helpers"
BIN="${IPLOOKUP_BIN:-$ROOT/target/release/iplookup}"

BENCH=soak.sh
source bench/lib.sh
need curl python3
build_release

for p in "$P_OURS" "$P_DNS"; do port_free "$p"; done

# Small releases cut from the embedded files (sorted, non-overlapping rows):
# the first in the data directory (2030-01: rows 1..ROWS), the next ones in
# $WORK/next/N, dropped in by reload N (month 01 + N: rows ROWS+1..2*ROWS for
# odd N, rows 1..ROWS again for even N, so that releases alternate).
mkdir -p "$WORK/data"
python3 - "$ROOT/data" "$WORK" "$ROWS" "$RELOADS" <<'PY'
import gzip, itertools, os, sys
src, work, rows, reloads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for kind, name in (("country", "dbip-country-lite.csv.gz"), ("asn", "asn.csv.gz")):
    with gzip.open("%s/%s" % (src, name), "rt", newline="") as f:
        lines = list(itertools.islice(f, 2 * rows))
    for n in range(reloads + 1):
        d = "%s/data" % work if n == 0 else "%s/next/%d" % (work, n)
        os.makedirs(d, exist_ok=True)
        part = lines[rows:] if n % 2 else lines[:rows]
        path = "%s/dbip-%s-lite-%04d-%02d.csv.gz" % (d, kind, 2030 + n // 12, n % 12 + 1)
        with gzip.open(path, "wt", newline="") as out:
            out.writelines(part)
PY
ls -l "$WORK/data" "$WORK/next/1" | grep csv

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "soak: ${DURATION}s at $RATE req/s over $CONNECTIONS connections; $RELOADS reload(s), evenly spread"

"$PYTHON" "$HELPERS/ptr_responder.py" "$P_DNS" 60 > "$WORK/dns.out" 2> "$WORK/dns.err" &
pids+=("$!")
for _ in $(seq 1 50); do grep -q ready "$WORK/dns.out" && break; sleep 0.1; done

"$BIN" serve --listen "127.0.0.1:$P_OURS" --data-dir "$WORK/data" --dns-server "127.0.0.1:$P_DNS" --log-format json \
    > "$WORK/server.log" 2>&1 &
server=$!
pids+=("$server")
for _ in $(seq 1 300); do
    [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P_OURS/healthz" || true)" == 200 ]] && break
    sleep 0.1
done

# The reload: each file under a temporary name, renamed into place; then SIGHUP.
reload_cmd="for f in $WORK/next/\$RELOAD_N/*.csv.gz; do b=\$(basename \$f); cp \$f $WORK/data/.\$b.partial && mv $WORK/data/.\$b.partial $WORK/data/\$b; done; kill -HUP $server"

rc=0
"$PYTHON" "$HELPERS/soak_client.py" --base "http://127.0.0.1:$P_OURS" --pid "$server" \
    --duration "$DURATION" --rate "$RATE" --connections "$CONNECTIONS" \
    --reload-cmd "$reload_cmd" --reloads "$RELOADS" ${JSON:+--json "$JSON"} || rc=$?

if ! kill -0 "$server" 2>/dev/null; then
    echo "soak.sh: the server is gone" >&2
    rc=1
fi
echo "server log: $(grep -c . "$WORK/server.log") lines; warnings/errors:"
grep -iE 'warn|error|panic' "$WORK/server.log" | head -20 || true
grep -E 'reload|SIGHUP' "$WORK/server.log" | head -10 || true
exit $rc
