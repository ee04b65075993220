#!/usr/bin/env bash
# Bulk enrichment on the command line (issue 14, section 1): addresses per
# second of `iplookup lookup --format csv` against a loop over the maxminddb
# crate doing the same work (examples/enrich_maxminddb.rs: read a line, look
# up country and ASN, write a CSV row), in the same run.
#
#  - input: COUNT (1,000,000) random public addresses, half IPv4, half IPv6 in
#    2000::/3, all distinct, fixed seed (bench/ceiling/helpers/addresses.py);
#  - ours: target/release/iplookup lookup --format csv, the embedded data,
#    every IpInfo field (21 columns) per row;
#  - baseline: target/release/examples/enrich_maxminddb on the DB-IP country
#    MMDB of the same release as the embedded CSV (bench/fetch-mmdb.sh) and an
#    ASN MMDB written from the embedded data/asn.csv.gz by
#    tools/mmdb-fixtures/asn_from_csv.py (no package ships one), 5 columns;
#  - each runs ROUNDS times (3), alternating, pinned to one CPU (SERVER_CPUS),
#    input from a file, output to a file; the median wall time counts, start
#    up included. The outputs are checked: one row per input, and the share of
#    rows where both name the same country and AS.
#
# Needs: python3 with venv (Debian python3-venv), npm (bench/fetch-mmdb.sh).
# Usage: bash bench/enrich.sh        (COUNT=100000 ROUNDS=5 for a quick run)
set -euo pipefail

BENCH=enrich
cd "$(dirname "$0")/.."
ROOT="$PWD"
source bench/lib.sh

COUNT="${COUNT:-1000000}"
ROUNDS="${ROUNDS:-3}"
DATA="target/bench-data"
need python3 npm awk

cargo build --release --bin iplookup --example enrich_maxminddb
bash bench/fetch-mmdb.sh
if [[ ! -s "$DATA/asn.mmdb" ]]; then
    python3 -m venv "$DATA/venv"
    "$DATA/venv/bin/pip" install -q -r tools/mmdb-fixtures/requirements.txt
    "$DATA/venv/bin/python" tools/mmdb-fixtures/asn_from_csv.py data/asn.csv.gz "$DATA/asn.mmdb"
fi

python3 bench/ceiling/helpers/addresses.py "$COUNT" > "$WORK/addresses.txt"
OURS=("$ROOT/target/release/iplookup" lookup --format csv)
BASE=("$ROOT/target/release/examples/enrich_maxminddb" "$DATA/dbip-country.mmdb" "$DATA/asn.mmdb")

# Wall seconds of one run: COMMAND... < addresses > OUT
timed() { # OUT COMMAND...
    local out=$1
    shift
    local t0 t1
    t0=$(date +%s.%N)
    "${SERVER_PIN[@]}" "$@" < "$WORK/addresses.txt" > "$out"
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

ours=() base=()
for r in $(seq 1 "$ROUNDS"); do
    ours+=("$(timed "$WORK/ours.csv" "${OURS[@]}")")
    base+=("$(timed "$WORK/base.csv" "${BASE[@]}")")
    echo "$BENCH: round $r: ours ${ours[-1]} s, maxminddb ${base[-1]} s"
done

rows_ours=$(( $(wc -l < "$WORK/ours.csv") - 1 ))
rows_base=$(( $(wc -l < "$WORK/base.csv") - 1 ))
if (( rows_ours != COUNT || rows_base != COUNT )); then
    echo "$BENCH: expected $COUNT rows, got ours=$rows_ours maxminddb=$rows_base" >&2
    exit 1
fi
# Same country and AS? (csv module: quoted organisation names hold commas.)
agree=$(python3 - "$WORK/ours.csv" "$WORK/base.csv" <<'PY'
import csv, sys
with open(sys.argv[1], newline="") as a, open(sys.argv[2], newline="") as b:
    ours, base = csv.DictReader(a), csv.DictReader(b)
    n = country = asn = 0
    for o, m in zip(ours, base):
        assert o["ip"] == m["ip"], (o["ip"], m["ip"])
        n += 1
        country += o["country_code"] == m["country_code"]
        asn += o["asn"] == m["asn"]
print(f"country {country / n:.4%}, asn {asn / n:.4%} of {n} rows")
PY
)

mo=$(median "${ours[@]}") mb=$(median "${base[@]}")
echo
echo "$BENCH: $COUNT addresses, median of $ROUNDS rounds, one CPU each"
printf '| | wall (s) | addresses/s |\n|---|---|---|\n'
printf '| iplookup lookup --format csv | %s | %.0f |\n' "$mo" "$(awk -v n="$COUNT" -v t="$mo" 'BEGIN { print n / t }')"
printf '| maxminddb loop (examples/enrich_maxminddb.rs) | %s | %.0f |\n' "$mb" "$(awk -v n="$COUNT" -v t="$mb" 'BEGIN { print n / t }')"
echo "speed-up (maxminddb time / ours): $(ratio "$mb" "$mo")x; rows agreeing: $agree"
