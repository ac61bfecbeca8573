#!/usr/bin/env bash
# The deep page under serve.sh's writer, in alternating rounds of two or more `waterfall`
# binaries on one database, each beside its own /healthz: how a change moves the tail when the
# host's load moves it more between runs than a change does (DESIGN section 15, issue 53).
#
#   Benchmarks/writer-rounds.sh DATABASE ROUNDS BINARY…
#   ROUNDS_PAGE=random Benchmarks/writer-rounds.sh …   # a page at a random offset per request
#
# DATABASE is one serve.sh has filled (Benchmarks/out/serve.sqlite, or the PostgreSQL URL it
# was given); run serve.sh first, which also writes the writer (Benchmarks/out/serve-writer.py).
# Each round starts each binary's server on it, warms the deep page 5 s, runs wrk on /healthz
# for 10 s, then on the deep page for 20 s while the writer moves 20 times a second, and prints
# one line: requests a second, p99, the ratio to /healthz, the moves made and their latency, the
# host's load. With ROUNDS_PAGE=random the readers ask serve.sh's pages at random offsets
# (Benchmarks/out/serve-random.lua) instead of the deep page.
set -euo pipefail
source "$(dirname "$0")/prepare.sh"
cd "$(dirname "$0")/out"
db=$1; rounds=$2; shift 2
bins=("$@")
[ -f serve-writer.py ] || { echo "writer-rounds.sh: run Benchmarks/serve.sh first" >&2; exit 1; }
W=${bins[0]}
read -r name images < <("$W" --db "$db" feeds --json \
    | python3 -c 'import json, sys; f = json.load(sys.stdin)["feeds"][0]; print(f["name"], f["images"])')
deep=$((images * 99 / 100))
writer_images "$db"
page="/v1/feeds/$name/layouts/phone/page?offset=$deep&limit=100"
script=()
if [ "${ROUNDS_PAGE:-deep}" = random ]; then script=(-s serve-random.lua); fi
what=$([ ${#script[@]} -eq 0 ] && echo "deep page" || echo "random page")
for round in $(seq "$rounds"); do
    for i in "${!bins[@]}"; do
        W=${bins[$i]}
        start_server writer-rounds.sh "$db" rounds-server.txt
        base="http://127.0.0.1:$port"
        wrk -c 64 -t 2 -d 5s "${script[@]}" "$base$page" >/dev/null
        wrk -c 64 -t 2 -d 10s --latency "$base/healthz" >rounds-healthz.txt
        python3 serve-writer.py "$port" "/v1/feeds/$name/reorder" 21 "${ids[@]}" >rounds-moves.txt &
        writer=$!
        wrk -c 64 -t 2 -d 20s --timeout 10s --latency "${script[@]}" "$base$page" >rounds-page.txt
        wait $writer
        kill $server
        wait $server 2>/dev/null || true
        healthz=$(awk '/Requests\/sec/ { print $2 }' rounds-healthz.txt)
        rate=$(awk '/Requests\/sec/ { print $2 }' rounds-page.txt)
        p99=$(awk '/ 99%/ { print $2 }' rounds-page.txt)
        moves="$(sed -n 's/^moves: \([0-9]*\) .*/\1 made/p' rounds-moves.txt), $(sed -n 's/^latency: //p' rounds-moves.txt)"
        echo "round $round, ${bins[$i]}: /healthz $healthz/s; $what under the writer $rate/s," \
            "p99 $p99, $(python3 -c "print(round($rate / $healthz, 3))") of /healthz; moves $moves;" \
            "$(uptime | sed 's/.*load/load/')"
    done
done
