#!/usr/bin/env bash
# Measures views and share links (DESIGN section 20, issue 51) at a million images with wrk, each
# figure beside its yardstick in the same run. Prints a markdown table.
#
#   Benchmarks/views.sh [IMAGES]        # a generated, tagged feed of IMAGES images (default 1,000,000)
#   WATERFALL_BENCH_DB=postgres://USER:PASSWORD@HOST/DATABASE Benchmarks/views.sh
#                                       # the same on PostgreSQL (its feeds are removed first)
#
# Needs wrk, curl and python3. Each wrk run: 64 connections, 2 threads, 20 s.
#   a. GET /healthz
#   b. the feed's deep page (100 at offset 99%), with a key
#   c. the deep page of a view that selects 10% of the feed (tag "pick"), with a key: (c)/(b)
#   d. the same page of the view through a share link, without a key: (d)/(c), then (d) and (c)
#      again in that order (A B B A), the ratio taken over both pairs
#   e. with 100 saved views, an append of 10,000 images: how long the append takes, then the
#      first page of each view asked once, one after the other (the worst and the total)
# The work files and raw outputs (views-*.txt) go to Benchmarks/out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
count=${1:-1000000}
mkdir -p Benchmarks/out
tagged="Benchmarks/out/feed-tagged-$count.json"
[ -f "$tagged" ] || python3 Benchmarks/generate-feed.py "$tagged" "$count" --tagged
source Benchmarks/prepare.sh
prepare views.sh "$tagged" wrk curl python3

db=${WATERFALL_BENCH_DB:-views.sqlite}
fresh_catalog "$db"
if [[ "$db" == postgres://* || "$db" == postgresql://* ]]; then
    for id in $("$W" --db "$db" share list --json | python3 -c 'import json, sys; print(" ".join(str(s["id"]) for s in json.load(sys.stdin)["shares"]))'); do
        "$W" --db "$db" share remove "$id" >/dev/null
    done
    "$W" --db "$db" key remove views-bench >/dev/null 2>&1 || true
fi
echo "importing $feed…" >&2
"$W" --db "$db" import "$feed" >/dev/null
"$W" --db "$db" layout add phone --columns 3 --width 414 >/dev/null
"$W" --db "$db" layout warm phone >/dev/null
view_started=$SECONDS
"$W" --db "$db" view add pick --tag pick >/dev/null
echo "view add pick: $((SECONDS - view_started)) s" >&2
if [[ "$db" == postgres://* || "$db" == postgresql://* ]] && command -v psql >/dev/null; then
    psql "$db" -qc "VACUUM (ANALYZE) image, change, section, layout_checkpoint" >/dev/null
fi
key=$("$W" --db "$db" key add views-bench --write)
link=$("$W" --db "$db" share add --view pick)
read -r name images < <("$W" --db "$db" feeds --json \
    | python3 -c 'import json, sys; f = json.load(sys.stdin)["feeds"][0]; print(f["name"], f["images"])')
members=$("$W" --db "$db" view list --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["views"][0]["images"])')
deep=$((images * 99 / 100)); viewdeep=$((members * 99 / 100))

start_server views.sh "$db" views-server.txt
base="http://127.0.0.1:$port"
auth="Authorization: Bearer $key"
feedpage="/v1/feeds/$name/layouts/phone/page?offset=$deep&limit=100"
viewpage="/v1/feeds/$name/views/pick/layouts/phone/page?offset=$viewdeep&limit=100"
sharedpage="$link/layouts/phone/page?offset=$viewdeep&limit=100"
for path in "$feedpage" "$viewpage"; do
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "$auth" "$base$path")
    [ "$status" = 200 ] || { echo "views.sh: GET $path answered $status" >&2; exit 1; }
done
status=$(curl -s -o /dev/null -w '%{http_code}' "$base$sharedpage")
[ "$status" = 200 ] || { echo "views.sh: GET $sharedpage answered $status" >&2; exit 1; }

bench() {  # name, wrk arguments…
    local name=$1; shift
    echo "wrk: $name…" >&2
    wrk -c 64 -t 2 -d 20s --timeout 10s --latency "$@" > "views-$name.txt"
    kill -0 $server 2>/dev/null || { cat views-server.txt >&2; echo "views.sh: the server died during $name" >&2; exit 1; }
}
bench healthz "$base/healthz"
bench feed -H "$auth" "$base$feedpage"
bench view -H "$auth" "$base$viewpage"
bench shared "$base$sharedpage"
# The pair again in the other order (A B B A), so that a host getting busier or quieter during
# the run weighs on both sides alike: the ratio is taken over both pairs.
bench shared2 "$base$sharedpage"
bench view2 -H "$auth" "$base$viewpage"

# e. 100 views, then an append of 10,000 images, then the first page of each view.
echo "100 views…" >&2
for n in $(seq 1 99); do
    curl -s -o /dev/null -X PUT -H "$auth" -H 'Content-Type: application/json' \
        --data "{\"where\": {\"tags\": {\"all\": [\"tone-$((n % 10))\"]}, \"aspect\": {\"min\": 0.$((n / 10 + 1))}}}" \
        "$base/v1/feeds/$name/views/v$n"
done
append="$PWD/append-$images.json"
python3 ../../Benchmarks/generate-feed.py "$append" 10000 --tagged --start="$images"
append_started=$(date +%s.%N)
curl -s -o /dev/null -X PUT -H "$auth" -H 'Content-Type: application/json' --data-binary "@$append" \
    "$base/v1/feeds/$name?mode=append"
append_seconds=$(python3 -c "import time; print(f'{time.time() - $append_started:.2f}')")
: > views-first-pages.txt
for view in pick $(seq -f 'v%g' 1 99); do
    curl -s -o /dev/null -w '%{time_total}\n' -H "$auth" \
        "$base/v1/feeds/$name/views/$view/layouts/phone/page?offset=0&limit=100" >> views-first-pages.txt
done

python3 - "$images" "$members" "$append_seconds" "$((SECONDS - started))" <<'PY'
import re, sys
images, members, append_seconds, elapsed = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
def wrk(name):
    text = open(f"views-{name}.txt").read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", text)
    scale = {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    return rps, float(p99.group(1)) * scale
h, f, v, s = wrk("healthz"), wrk("feed"), wrk("view"), wrk("shared")
v2, s2 = wrk("view2"), wrk("shared2")
firsts = [float(line) for line in open("views-first-pages.txt") if line.strip()]
print(f"{images:,} images; the view holds {members:,}; run took {elapsed} s\n")
print("| request | requests/s | of /healthz | p99 | ratio |")
print("|---|---:|---:|---:|---|")
print(f"| GET /healthz | {h[0]:,.0f} | 1.00 | {h[1]:.2f} ms | |")
print(f"| the feed's deep page, with a key | {f[0]:,.0f} | {f[0]/h[0]:.2f} | {f[1]:.2f} ms | |")
print(f"| the view's deep page, with a key | {v[0]:,.0f} | {v[0]/h[0]:.2f} | {v[1]:.2f} ms | feed / view: {f[0]/v[0]:.2f}x the cost (goal <= 1.2) |")
print(f"| the view's deep page, shared | {s[0]:,.0f} | {s[0]/h[0]:.2f} | {s[1]:.2f} ms | shared / keyed: {s[0]/v[0]:.2f} |")
print(f"| the same, shared (second pair, shared first) | {s2[0]:,.0f} | {s2[0]/h[0]:.2f} | {s2[1]:.2f} ms | |")
print(f"| the same, with a key (second pair) | {v2[0]:,.0f} | {v2[0]/h[0]:.2f} | {v2[1]:.2f} ms | shared / keyed: {s2[0]/v2[0]:.2f}; both pairs: {(s[0]+s2[0])/(v[0]+v2[0]):.2f} (goal >= 0.95) |")
print(f"\nAn append of 10,000 images to the feed with 100 views: {append_seconds} s; then the first page of each view: worst {max(firsts)*1000:.0f} ms, all 100 in {sum(firsts):.2f} s.")
PY
