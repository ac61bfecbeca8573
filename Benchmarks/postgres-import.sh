#!/usr/bin/env bash
# Measures a first import of a million images into PostgreSQL against `psql \copy` of the same
# image rows into the same table (same indexes, same constraints), side by side in one run on one
# machine (issue 15). Prints a markdown table of medians.
#
#   WATERFALL_BENCH_DB=postgres://USER:PASSWORD@HOST:PORT/DATABASE Benchmarks/postgres-import.sh [IMAGES | FEED.json]
#
# The user must be allowed to create schemas: the runs use the schemas bench_waterfall and
# bench_copy, dropped and made anew for each run. The yardstick loads only the image rows, which
# the first Waterfall import exported from PostgreSQL itself (rows.csv); Waterfall also parses
# and checks the feed file, plans sections and order keys, and writes the sections, the feed and a
# change-log row per image. Needs hyperfine, psql and python3. Work files go to Benchmarks/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
source=${1:-1000000}
server=${WATERFALL_BENCH_DB:?set WATERFALL_BENCH_DB to a postgres:// URL}
source Benchmarks/prepare.sh
prepare postgres-import.sh "$source" hyperfine psql python3
in_schema() { echo "$server$([[ "$server" == *\?* ]] && echo '&' || echo '?')options=-c%20search_path%3D$1"; }
waterfall_db=$(in_schema bench_waterfall)
copy_db=$(in_schema bench_copy)
fresh() { psql -X -q -d "$server" -c "DROP SCHEMA IF EXISTS $1 CASCADE" -c "CREATE SCHEMA $1" 2>/dev/null; }

# The yardstick's rows: one Waterfall import, exported as CSV; its schema, emptied of images.
fresh bench_waterfall
"$W" --db "$waterfall_db" import "$feed" >/dev/null
psql -X -q -d "$waterfall_db" -c "\\copy (SELECT feed_id, sort_key, external_id, section_id, width, height, full_span, url, title FROM image ORDER BY sort_key) TO 'rows.csv' CSV"
images=$(wc -l < rows.csv)
prepare_copy="bash -c 'psql -X -q -d \"$server\" -c \"DROP SCHEMA IF EXISTS bench_copy CASCADE\" -c \"CREATE SCHEMA bench_copy\" 2>/dev/null && $W --db \"$copy_db\" import \"$feed\" >/dev/null && psql -X -q -d \"$copy_db\" -c \"TRUNCATE image, change\"'"
copy="psql -X -q -d $copy_db -c \"\\copy image (feed_id, sort_key, external_id, section_id, width, height, full_span, url, title) FROM 'rows.csv' CSV\""

hyperfine -N --style none -w 0 -r 3 --export-json postgres-import.json \
    --prepare "bash -c 'psql -X -q -d \"$server\" -c \"DROP SCHEMA IF EXISTS bench_waterfall CASCADE\" -c \"CREATE SCHEMA bench_waterfall\" 2>/dev/null'" \
    "$W --db $waterfall_db import $feed" \
    --prepare "$prepare_copy" "$copy" >/dev/null

python3 - "$images" <<'PY'
import json, sys
results = json.load(open("postgres-import.json"))["results"]
def median(result):
    times = sorted(result["times"])
    return times[len(times) // 2]
waterfall, copy = median(results[0]), median(results[1])
print(f"| first import, {int(sys.argv[1]):,} images, PostgreSQL | waterfall | psql \\copy of the image rows | ratio |")
print("|---|---:|---:|---:|")
print(f"| median of 3 | {waterfall:.2f} s | {copy:.2f} s | {waterfall / copy:.2f}× |")
PY
