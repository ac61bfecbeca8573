#!/usr/bin/env bash
# Date sections at a million images (DESIGN section 17), each figure beside its yardstick in
# the same run:
#   1. the first import of a dated feed with `--section-by day` against the same import of the
#      same file by its own sections (goal: within 1.2×);
#   2. an append of 1,000 images in date order (dates spread over the feed's days, so each lands
#      inside a section of 5,000) into the 1M feed by day (goal: under a second).
# Needs hyperfine and python3. Usage: Benchmarks/dates.sh [N] (default 1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$SECONDS
source Benchmarks/prepare.sh
count=${1:-1000000}
prepare dates.sh "$count" hyperfine python3
feed="$PWD/feed-dated-$count.json"
[ -f "$feed" ] || python3 "$root/Benchmarks/generate-feed.py" "$feed" "$count" --dated
python3 - "$count" > append-1000.json <<'PY'
import datetime, json, random, sys
count = int(sys.argv[1])
days = (count + 4999) // 5000
rng = random.Random(17)
start = datetime.date(2020, 1, 1)
images = []
for n in range(1000):
    day = start + datetime.timedelta(days=rng.randrange(days))
    second = rng.randrange(86_400)
    images.append({"id": f"new-{n}", "width": 640, "height": 480,
                   "takenAt": f"{day}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"})
images.sort(key=lambda image: image["takenAt"], reverse=True)  # in date order, newest first
print(json.dumps({"feed": "bench", "images": images}))
PY

echo "hyperfine: imports…" >&2
hyperfine -N -w 0 -r 3 --export-json dates-import.json \
    --prepare "rm -f d.sqlite d.sqlite-wal d.sqlite-shm" \
    "$W --db d.sqlite import $feed" \
    "$W --db d.sqlite import $feed --section-by day" > dates-import.txt
rm -f base.sqlite base.sqlite-wal base.sqlite-shm
"$W" --db base.sqlite import "$feed" --section-by day >/dev/null
echo "hyperfine: appends…" >&2
hyperfine -N -w 1 -r 5 --export-json dates-append.json \
    --prepare "cp base.sqlite a.sqlite" \
    "$W --db a.sqlite import append-1000.json --append" > dates-append.txt

python3 - "$count" <<'PY'
import json, statistics, sys
count = int(sys.argv[1])
imports = json.load(open("dates-import.json"))["results"]
plain, by_day = (statistics.median(r["times"]) for r in imports)
append = json.load(open("dates-append.json"))["results"][0]["times"]
print(f"| {count:,} images | median | runs | against | ratio | goal |")
print("|---|---:|---:|---|---:|---|")
print(f"| first import by the file's sections | {plain:.2f} s | {len(imports[0]['times'])} | — | — | — |")
print(f"| first import with `--section-by day` | {by_day:.2f} s | {len(imports[1]['times'])} | the import by sections | {by_day / plain:.2f} | ≤ 1.2 |")
print(f"| append of 1,000 dated images (by day) | {statistics.median(append) * 1000:.0f} ms | {len(append)} | — | — | < 1 s |")
print()
print(f"- appends: min {min(append) * 1000:.0f} ms, max {max(append) * 1000:.0f} ms")
PY
echo "dates.sh: done in $((SECONDS - started)) s" >&2
