#!/usr/bin/env bash
# Bulk enrichment on the command line (issue 14, section 1): addresses per
# second of `iplookup lookup --format csv` against a loop over the maxminddb
# crate doing the same work (examples/enrich_maxminddb.rs: read a line, look
# up country and ASN, write a CSV row), in the same run.
#
#  - input: COUNT (1,000,000) random public addresses, half IPv4, half IPv6 in
#    2000::/3, all distinct, fixed seed (bench/ceiling/helpers/addresses.py);
#  - ours: target/release/iplookup lookup --format csv, the embedded data,
#    twice: with --fields ip,country_code,asn,organization, the loop's own
#    columns (the same work: the comparison the target is about), and with
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
#  - BEFORE=/path/to/iplookup (optional): an older binary timed in the same
#    rounds (its rows checked to be the same, local_time aside).
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
SAME=("${OURS[@]}" --fields ip,country_code,asn,organization)
BASE=("$ROOT/target/release/examples/enrich_maxminddb" "$DATA/dbip-country.mmdb" "$DATA/asn.mmdb")

# Wall and CPU (user + system) seconds of one run: COMMAND... < addresses > OUT.
# The CPU time is the steadier figure on a shared machine (a pinned process
# waiting for its CPU adds wall time, not CPU time).
timed() { # OUT COMMAND...
    local out=$1
    shift
    local TIMEFORMAT='%R %U %S' t
    # The last round's output goes first, untimed: truncating a file of
    # 174 MB in the timed redirection cost ours about 60 ms of wall time.
    rm -f "$out"
    t=$( { time "${SERVER_PIN[@]}" "$@" < "$WORK/addresses.txt" > "$out"; } 2>&1 )
    awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f %.3f", a[1], a[2] + a[3] }'
}

# Each side's wall and CPU seconds per round.
ours=() same=() base=() before=() ours_cpu=() same_cpu=() base_cpu=() before_cpu=()
run() { # NAME OUT COMMAND...: appends to NAME and NAME_cpu
    local -n wall=$1 cpu=${1}_cpu
    local t
    t=$(timed "${@:2}")
    wall+=("${t% *}") cpu+=("${t#* }")
}
for r in $(seq 1 "$ROUNDS"); do
    run same "$WORK/same.csv" "${SAME[@]}"
    run base "$WORK/base.csv" "${BASE[@]}"
    run ours "$WORK/ours.csv" "${OURS[@]}"
    line="round $r (wall/CPU s): ours, same columns ${same[-1]}/${same_cpu[-1]}, maxminddb ${base[-1]}/${base_cpu[-1]}, ours, every field ${ours[-1]}/${ours_cpu[-1]}"
    if [[ -n "${BEFORE:-}" ]]; then
        run before "$WORK/before.csv" "$BEFORE" lookup --format csv
        line+=", before ${before[-1]}/${before_cpu[-1]}"
    fi
    echo "$BENCH: $line"
done
if [[ -n "${BEFORE:-}" ]]; then
    # The same rows, local_time aside (the runs are seconds apart).
    python3 - "$WORK/ours.csv" "$WORK/before.csv" <<'PY'
import csv, sys
with open(sys.argv[1], newline="") as a, open(sys.argv[2], newline="") as b:
    ours, before = csv.reader(a), csv.reader(b)
    head = next(ours)
    assert head == next(before), "headers differ"
    t = head.index("local_time")
    for n, (o, p) in enumerate(zip(ours, before)):
        o[t] = p[t] = ""
        assert o == p, (n, o, p)
PY
fi

rows_ours=$(( $(wc -l < "$WORK/ours.csv") - 1 ))
rows_same=$(( $(wc -l < "$WORK/same.csv") - 1 ))
rows_base=$(( $(wc -l < "$WORK/base.csv") - 1 ))
if (( rows_ours != COUNT || rows_same != COUNT || rows_base != COUNT )); then
    echo "$BENCH: expected $COUNT rows, got ours=$rows_ours same=$rows_same maxminddb=$rows_base" >&2
    exit 1
fi
# The rows in the loop's columns are those columns of the whole rows.
python3 - "$WORK/ours.csv" "$WORK/same.csv" <<'PY'
import csv, sys
with open(sys.argv[1], newline="") as a, open(sys.argv[2], newline="") as b:
    whole, same = csv.DictReader(a), csv.reader(b)
    head = next(same)
    assert head == ["ip", "country_code", "asn", "organization", "error"], head
    for n, (w, s) in enumerate(zip(whole, same)):
        assert [w[c] for c in head] == s, (n, w, s)
PY
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

mo=$(median "${ours[@]}") mb=$(median "${base[@]}") ms=$(median "${same[@]}")
co=$(median "${ours_cpu[@]}") cb=$(median "${base_cpu[@]}") cs=$(median "${same_cpu[@]}")
per_s() { awk -v n="$COUNT" -v t="$1" 'BEGIN { printf "%.0f", n / t }'; }
echo
echo "$BENCH: $COUNT addresses, median of $ROUNDS rounds, one CPU each"
printf '| | wall (s) | addresses/s | CPU (s) | addresses per CPU second |\n|---|---|---|---|---|\n'
printf '| iplookup lookup --format csv --fields ip,country_code,asn,organization | %s | %s | %s | %s |\n' "$ms" "$(per_s "$ms")" "$cs" "$(per_s "$cs")"
printf '| maxminddb loop (examples/enrich_maxminddb.rs), the same columns | %s | %s | %s | %s |\n' "$mb" "$(per_s "$mb")" "$cb" "$(per_s "$cb")"
printf '| iplookup lookup --format csv, every field (21 columns) | %s | %s | %s | %s |\n' "$mo" "$(per_s "$mo")" "$co" "$(per_s "$co")"
if [[ -n "${BEFORE:-}" ]]; then
    mp=$(median "${before[@]}") cp=$(median "${before_cpu[@]}")
    printf '| before (%s) | %s | %s | %s | %s |\n' "$BEFORE" "$mp" "$(per_s "$mp")" "$cp" "$(per_s "$cp")"
fi
echo "speed-up, the same columns (maxminddb time / ours): wall $(ratio "$mb" "$ms")x, CPU $(ratio "$cb" "$cs")x"
echo "speed-up, every field against the loop's 5 columns: wall $(ratio "$mb" "$mo")x, CPU $(ratio "$cb" "$co")x"
echo "rows agreeing: $agree"
if [[ -n "${BEFORE:-}" ]]; then
    echo "before: maxminddb time / before: wall $(ratio "$mb" "$mp")x, CPU $(ratio "$cb" "$cp")x; before / ours: wall $(ratio "$mp" "$mo")x, CPU $(ratio "$cp" "$co")x"
fi
