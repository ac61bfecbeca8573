#!/usr/bin/env bash
# Measures mirrors (DESIGN section 21, issue 52) at a million images, each figure beside its
# yardstick in the same run. Prints a markdown table.
#
#   Benchmarks/mirror.sh [IMAGES]       # a generated feed of IMAGES images (default 1,000,000)
#   WATERFALL_BENCH_DB=postgres://USER:PASSWORD@HOST/DATABASE Benchmarks/mirror.sh
#                                       # the source on PostgreSQL (its feeds are removed first)
#
# Needs curl, python3 and GNU time (/usr/bin/time). The source is served on a free port.
#   a. a plain `waterfall import` of the feed into a new SQLite file, and a first
#      `waterfall mirror` of the served feed into a new file, in the order A B B A: the
#      mirror's time over the import's, over both pairs; peak resident memory of each
#   b. 1,000 moves at the source (one reorder file), then `waterfall mirror` catching up:
#      its whole process's time, three times (each after another 1,000 moves)
#   c. a first mirror killed with SIGKILL after 1 s and 3 s, then run again: the mirror's
#      listing (all of it, 100,000 at a time; its nextCursor aside), deep page and section
#      index equal the source's, byte for byte (the same after the catch-ups of b)
#   d. `mirror --follow`: 20 moves at the source through its HTTP API, each timed until the
#      mirror's file shows its revision (median and worst)
# The work files and raw outputs (mirror-*.txt) go to Benchmarks/out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000000}
source Benchmarks/prepare.sh
prepare mirror.sh "$count" curl python3 /usr/bin/time

db=${WATERFALL_BENCH_DB:-mirror-source.sqlite}
fresh_catalog "$db"
echo "importing $feed into the source…" >&2
"$W" --db "$db" import "$feed" >/dev/null
"$W" --db "$db" layout add phone --columns 3 --width 414 >/dev/null
"$W" --db "$db" key remove mirror-bench >/dev/null 2>&1 || true
key=$("$W" --db "$db" key add mirror-bench --write)
if [[ "$db" == postgres://* || "$db" == postgresql://* ]] && command -v psql >/dev/null; then
    psql "$db" -qc "VACUUM (ANALYZE) image, change, section" >/dev/null
fi
start_server mirror.sh "$db" mirror-server.txt
from="http://127.0.0.1:$port"

# One timed run: prints "seconds peak-KiB".
timed() {
    /usr/bin/time -f '%e %M' -o mirror-time.txt "$@" >/dev/null
    cat mirror-time.txt
}

declare -a imports mirrors import_kib mirror_kib
for run in A B B A; do
    if [ "$run" = A ]; then
        fresh_catalog plain.sqlite
        read -r s k < <(timed "$W" --db plain.sqlite import "$feed")
        imports+=("$s"); import_kib+=("$k")
    else
        fresh_catalog mirror.sqlite
        read -r s k < <(timed "$W" --db mirror.sqlite mirror --from "$from" --key "$key")
        mirrors+=("$s"); mirror_kib+=("$k")
    fi
done

# 1,000 moves of random images before or after other random images, as one reorder file.
moves() {
    python3 - "$1" "$2" <<'PY'
import json, random, sys
count, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
moves = []
for _ in range(1000):
    a, b = rng.sample(range(count), 2)
    moves.append({"id": f"img-{a}", ("before" if rng.random() < 0.5 else "after"): f"img-{b}"})
json.dump({"feed": "bench", "moves": moves}, open("mirror-moves.json", "w"))
PY
}
declare -a catchups
for seed in 1 2 3; do
    moves "$count" "$seed"
    "$W" --db "$db" reorder mirror-moves.json >/dev/null
    read -r s k < <(timed "$W" --db mirror.sqlite mirror --from "$from" --key "$key")
    catchups+=("$s")
done

# The same answers from the source and the mirror: the whole listing, a deep page, the index.
compare() {
    local mirror=$1 deep=$((count * 99 / 100)) offset
    local -a reads=("page --layout phone --offset $deep --limit 100" "sections --layout phone")
    for ((offset = 0; offset < count; offset += 100000)); do reads+=("images --offset $offset --limit 100000"); done
    for args in "${reads[@]}"; do
        # shellcheck disable=SC2086
        "$W" --db "$db" $args --json >mirror-a.json || { echo "the source refused: $args" >&2; return 1; }
        # shellcheck disable=SC2086
        "$W" --db "$mirror" $args --json >mirror-b.json || { echo "the mirror refused: $args" >&2; return 1; }
        # A listing's nextCursor is signed by each catalog with its own secret (docs/design.md
        # section 21): everything else is compared byte for byte.
        python3 - mirror-a.json mirror-b.json <<'PY' || { echo "differs: $args" >&2; return 1; }
import re, sys
a, b = (re.sub(rb',"nextCursor":"[^"]*"', b"", open(path, "rb").read()) for path in sys.argv[1:])
sys.exit(a != b)
PY
    done
}
compare mirror.sqlite && equal_after_catchup=yes || equal_after_catchup=NO

declare -a killed
for delay in 1 3; do
    fresh_catalog killed.sqlite
    "$W" --db killed.sqlite mirror --from "$from" --key "$key" >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    "$W" --db killed.sqlite mirror --from "$from" --key "$key" >/dev/null
    compare killed.sqlite && killed+=("killed after ${delay} s: equal") || killed+=("killed after ${delay} s: DIFFERS")
done

"$W" --db mirror.sqlite mirror --from "$from" --key "$key" --follow >mirror-follow.txt 2>&1 &
follower=$!
trap 'kill $server $follower 2>/dev/null || true; wait 2>/dev/null || true' EXIT
sleep 2
follow=$(python3 - "$from" mirror.sqlite "$key" <<'PY'
import json, random, sqlite3, statistics, sys, time, urllib.request
base, path, key = sys.argv[1], sys.argv[2], sys.argv[3]
rng = random.Random(7)
def revision():
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute("SELECT revision FROM feed WHERE name = 'bench'").fetchone()[0]
waits = []
for _ in range(20):
    body = json.dumps({"moves": [{"id": f"img-{rng.randrange(1000)}", "to": 0}]}).encode()
    request = urllib.request.Request(f"{base}/v1/feeds/bench/reorder", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"})
    started = time.monotonic()
    target = json.load(urllib.request.urlopen(request))["revision"]
    while revision() < target:
        if time.monotonic() - started > 30: break
        time.sleep(0.002)
    waits.append(time.monotonic() - started)
    time.sleep(0.2)
print(f"{statistics.median(waits) * 1000:.0f} {max(waits) * 1000:.0f}")
PY
)
kill $follower 2>/dev/null || true

python3 - "$count" "${imports[*]}" "${mirrors[*]}" "${import_kib[*]}" "${mirror_kib[*]}" "${catchups[*]}" \
    "$equal_after_catchup" "${killed[*]}" "$(uptime)" "$follow" <<'PY'
import sys
count = int(sys.argv[1])
imports = [float(x) for x in sys.argv[2].split()]
mirrors = [float(x) for x in sys.argv[3].split()]
import_kib = [int(x) for x in sys.argv[4].split()]
mirror_kib = [int(x) for x in sys.argv[5].split()]
catchups = [float(x) for x in sys.argv[6].split()]
print(f"| work, {count:,} images | mirror | yardstick | ratio | goal |")
print("|---|---:|---:|---:|---:|")
print(f"| first mirror vs plain import (A B B A, sums) | {sum(mirrors):.2f} s | {sum(imports):.2f} s | {sum(mirrors) / sum(imports):.2f}× | ≤ 2× |")
print(f"| peak memory of a first mirror (worst of two) | {max(mirror_kib) / 1024:.0f} MiB | {max(import_kib) / 1024:.0f} MiB (import) | — | < 250 MiB |")
median, worst = sys.argv[10].split()
print(f"| a move at the source seen in a following mirror (20 moves) | median {median} ms, worst {worst} ms | — | — | ≤ 1 s |")
print(f"| catching up 1,000 moves, whole process (three runs) | {', '.join(f'{c:.2f} s' for c in catchups)} | — | — | ≤ 1 s |")
print()
print(f"- runs: imports {imports} s, mirrors {mirrors} s")
print(f"- equal after the catch-ups: {sys.argv[7]}; {sys.argv[8]}")
print(f"- host: {sys.argv[9].strip()}")
PY
