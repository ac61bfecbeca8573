#!/usr/bin/env bash
# Measures Waterfall at a million images against the sqlite3 shell doing the bare minimum of the
# same work, side by side in one run on one machine (issue 5). Prints a markdown table of medians.
#
#   Benchmarks/compare.sh [IMAGES]        # a generated feed of IMAGES images (default 1,000,000)
#   Benchmarks/compare.sh FEED.json       # any feed of the same shape (ids without spaces or quotes)
#
# Needs hyperfine, sqlite3 and python3. The images moved are picked by catalog index (5 and 9 at
# the top; the middle one, moved after the images 50 and 80 further on), the same ids on both
# sides.
#
# Waterfall is installed with `make install` (the Makefile), as a user installs it: a release
# build as a fully static executable (start-up matters for whole-process timings: no dynamic
# loader binding libstdc++, libc and SQLite at every start), with concrete generic metadata
# reached through direct accessors rather than mangled names, which spares a fresh process a
# dozen scans of the runtime's conformance tables. `.ci/run` installs the same way and checks
# the binary. Work files go to Benchmarks/out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
source=${1:-1000000}
source Benchmarks/prepare.sh
prepare compare.sh "$source" hyperfine sqlite3 python3

yardstick_import="CREATE TABLE image(id TEXT NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL, url TEXT, section TEXT, position INTEGER NOT NULL);
INSERT INTO image SELECT json_extract(value,'\$.id'), json_extract(value,'\$.width'), json_extract(value,'\$.height'), json_extract(value,'\$.url'), json_extract(value,'\$.section'), key FROM json_each(readfile('$feed'),'\$.images');
CREATE UNIQUE INDEX image_id ON image(id); CREATE INDEX image_position ON image(position);"

run() {  # name, hyperfine arguments…
    local name=$1; shift
    hyperfine -N --style none --export-json "$name.json" "$@" >/dev/null
}

# 1. Import into an empty database (and its peak memory).
run import -w 0 -r 3 --prepare "rm -f w.sqlite w.sqlite-wal w.sqlite-shm y.sqlite" \
    "$W --db w.sqlite import $feed" "sqlite3 y.sqlite \"$yardstick_import\""
rm -f w.sqlite w.sqlite-wal w.sqlite-shm
/usr/bin/time -f "%M" -o import-memory.txt "$W" --db w.sqlite import "$feed" >/dev/null
"$W" --db w.sqlite layout add phone --columns 3 --width 800 >/dev/null
"$W" --db w.sqlite layout warm phone >/dev/null
cp w.sqlite base.sqlite
images=$(sqlite3 y.sqlite "SELECT count(*) FROM image")
last=$((images - 100)); deep=$((images * 99 / 100)); middle=$((images / 2))
id_at() {  # the id of the image at catalog index $1 (file order, for a feed of this shape)
    "$W" --db base.sqlite images --offset "$1" --limit 1 --json \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["images"][0]["id"])'
}
position_of() { sqlite3 y.sqlite "SELECT position FROM image WHERE id = '$1'"; }
top_a=$(id_at 5); top_b=$(id_at 9)
moved=$(id_at $middle); after_a=$(id_at $((middle + 50))); after_b=$(id_at $((middle + 80)))

# 2. A page of 100 at offset 99%, warm cache.
run page -w 5 -r 30 "$W --db w.sqlite page --layout phone --offset $deep --limit 100 --json" \
    "sqlite3 y.sqlite 'SELECT id, width, height, url FROM image WHERE position BETWEEN $deep AND $((deep + 99)) ORDER BY position'"

# 3. Two moves at the very top, then the last page: every checkpoint is invalid.
run invalidated -w 1 -r 5 \
    --prepare "bash -c 'cp base.sqlite w.sqlite; rm -f w.sqlite-wal w.sqlite-shm; $W --db w.sqlite move $top_a --to 0 >/dev/null; $W --db w.sqlite move $top_b --to 0 >/dev/null; sync'" \
    "$W --db w.sqlite page --layout phone --offset $last --limit 100 --json" \
    "sqlite3 y.sqlite 'SELECT width, height FROM image ORDER BY position'"

# 4. Two moves of one image in the middle (two processes each side). The copy of the database is
#    written out before each run (`sync`): else the first fsync of either side (the file
#    system's journal commit) would also write whatever of that copy is still dirty.
echo "UPDATE image SET position = $(position_of "$after_a") + 0.5 WHERE id = '$moved';" > update-1.sql
echo "UPDATE image SET position = $(position_of "$after_b") + 0.5 WHERE id = '$moved';" > update-2.sql
run moves -w 1 -r 10 --prepare "bash -c 'cp base.sqlite w.sqlite; rm -f w.sqlite-wal w.sqlite-shm; sync'" \
    "bash -c '$W --db w.sqlite move $moved --after $after_a >/dev/null && $W --db w.sqlite move $moved --after $after_b >/dev/null'" \
    "bash -c 'sqlite3 y.sqlite < update-1.sql && sqlite3 y.sqlite < update-2.sql'"

# 5. Re-import of the unchanged feed, against the first import.
run reimport -w 1 -r 3 "$W --db w.sqlite import $feed"

python3 - "$images" <<'PY'
import json, statistics, sys
def median(name, index):
    return statistics.median(json.load(open(f"{name}.json"))["results"][index]["times"])
first, yard_import = median("import", 0), median("import", 1)
rows = [
    ("import the feed into an empty database", first, yard_import, 1.5, 1.0),
    ("page of 100 at offset 99%, warm cache", median("page", 0), median("page", 1), 3, 1.5),
    ("two moves at the top, then the last page", median("invalidated", 0), median("invalidated", 1), 3, 1.5),
    ("two moves of one image in the middle", median("moves", 0), median("moves", 1), 3, 1.5),
    ("re-import of the unchanged feed (vs first import)", median("reimport", 0), first, 1.0, 0.5),
]
print(f"| work, {int(sys.argv[1]):,} images | waterfall | yardstick | ratio | must | aim |")
print("|---|---:|---:|---:|---:|---:|")
for name, ours, theirs, must, aim in rows:
    ratio = ours / theirs
    verdict = "✔" if ratio <= must else "✘"
    print(f"| {name} | {ours*1000:,.1f} ms | {theirs*1000:,.1f} ms | {ratio:.2f}× {verdict} | ≤ {must}× | ≤ {aim}× |")
memory = int(open("import-memory.txt").read().strip()) / 1024
print(f"| peak memory of the first import | {memory:,.0f} MiB | — | — | ≤ 500 MiB | ≤ 200 MiB |")
PY
