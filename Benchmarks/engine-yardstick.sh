#!/usr/bin/env bash
# Random pages beside what the engine alone does with the same statement (issue 53: "random
# pages near what the engine allows"), in rounds on one database serve.sh has filled.
#
#   Benchmarks/engine-yardstick.sh DATABASE ROUNDS [BINARY]
#
# Each round starts the server (BINARY, else the `make install` one) on DATABASE, warms random
# pages 5 s, runs them 10 s at 64 connections (Benchmarks/out/serve-random.lua) and the deep page
# 5 s, stops it, then runs the page's statement alone on the same host: on SQLite two `sqlite3`
# shells at once, 20,000 statements each at random keys (every statement parsed anew, its rows
# printed as text); on PostgreSQL `pgbench` 10 s at 8 connections, with the extended protocol as
# postgres-nio sends a statement and with a prepared one. The statement is
# SharedSQL.imagesFromKeyAtRevision (Sources/WaterfallStore/SharedSQL.swift) with the feed's id
# and revision bound: its 100 rows from a random key. One line a round: the server's random
# pages, the deep page, the engine's rate, their ratio and the goals' rates (0.4 of the deep page
# on SQLite, 0.2 on PostgreSQL), the host's load.
set -euo pipefail
source "$(dirname "$0")/prepare.sh"
db=$1; rounds=$2; bin=${3:-}
if [ -z "$bin" ]; then
    prepare engine-yardstick.sh 1000000 wrk python3
    bin=$W
else
    cd "$(dirname "$0")/out"
fi
W=$bin
[ -f serve-random.lua ] || { echo "engine-yardstick.sh: run Benchmarks/serve.sh first" >&2; exit 1; }
columns="sort_key, external_id, section_id, width, height, full_span, url, title, taken_at, placeholder, color, renditions, tags"
read -r name < <("$W" --db "$db" feeds --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["feeds"][0]["name"])')
postgres=false
if [[ "$db" == postgres://* || "$db" == postgresql://* ]]; then
    postgres=true
    pgbench=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)
    [ -n "$pgbench" ] || { echo "engine-yardstick.sh needs pgbench (apt-get install -y postgresql)" >&2; exit 1; }
    command -v psql >/dev/null || { echo "engine-yardstick.sh needs psql (apt-get install -y postgresql-client)" >&2; exit 1; }
    read -r feed revision low high < <(psql "$db" -At -F ' ' -c "SELECT f.id, f.revision, min(i.sort_key), max(i.sort_key)
        FROM feed f JOIN image i ON i.feed_id = f.id WHERE f.name = '$name' GROUP BY f.id, f.revision")
    cat >yardstick.sql <<SQL
\set k random($low, $high)
SELECT $columns FROM image WHERE feed_id = (SELECT id FROM feed WHERE id = $feed AND revision = $revision) AND sort_key >= :k ORDER BY sort_key LIMIT 100;
SQL
else
    command -v sqlite3 >/dev/null || { echo "engine-yardstick.sh needs sqlite3 (apt-get install -y sqlite3)" >&2; exit 1; }
    read -r feed revision low high < <(sqlite3 -cmd ".timeout 5000" -separator ' ' "$db" "SELECT f.id, f.revision, min(i.sort_key), max(i.sort_key)
        FROM feed f JOIN image i ON i.feed_id = f.id WHERE f.name = '$name' GROUP BY f.id")
    for shell in 1 2; do
        python3 - "$feed" "$revision" "$low" "$high" "$shell" "$columns" >"yardstick-$shell.sql" <<'PY'
import random, sys
feed, revision, low, high, seed, columns = sys.argv[1:]
random.seed(int(seed))
for _ in range(20000):
    key = random.randint(int(low), int(high))
    print(f"SELECT {columns} FROM image WHERE feed_id = (SELECT id FROM feed WHERE id = {feed} AND revision = {revision}) "
          f"AND sort_key >= {key} ORDER BY sort_key LIMIT 100;")
PY
    done
fi
deep="/v1/feeds/$name/layouts/phone/page?offset=990000&limit=100"
for round in $(seq "$rounds"); do
    start_server engine-yardstick.sh "$db" yardstick-server.txt
    base="http://127.0.0.1:$port"
    wrk -c 64 -t 2 -d 5s -s serve-random.lua "$base/" >/dev/null
    wrk -c 64 -t 2 -d 10s -s serve-random.lua --latency "$base/" >yardstick-random.txt
    wrk -c 64 -t 2 -d 5s --latency "$base$deep" >yardstick-deep.txt
    kill $server
    wait $server 2>/dev/null || true
    random=$(awk '/Requests\/sec/ { print $2 }' yardstick-random.txt)
    p99=$(awk '/ 99%/ { print $2 }' yardstick-random.txt)
    page=$(awk '/Requests\/sec/ { print $2 }' yardstick-deep.txt)
    if $postgres; then
        extended=$("$pgbench" "$db" -n -f yardstick.sql -M extended -c 8 -j 2 -T 10 2>&1 | awk '/^tps/ { print int($3) }')
        engine=$("$pgbench" "$db" -n -f yardstick.sql -M prepared -c 8 -j 2 -T 10 2>&1 | awk '/^tps/ { print int($3) }')
        alone="pgbench $extended/s extended, $engine/s prepared"
        goal=0.2
    else
        start=$(date +%s.%N)
        sqlite3 -cmd ".timeout 5000" "$db" <yardstick-1.sql >/dev/null &
        sqlite3 -cmd ".timeout 5000" "$db" <yardstick-2.sql >/dev/null
        wait
        engine=$(python3 -c "print(round(40000 / ($(date +%s.%N) - $start)))")
        alone="two sqlite3 shells $engine/s"
        goal=0.4
    fi
    echo "round $round: random pages $random/s, p99 $p99; deep page $page/s; the statement alone: $alone;" \
        "server/engine $(python3 -c "print(round($random / $engine, 3))"); goal $goal of the deep page:" \
        "$(python3 -c "print(round($goal * $page))")/s; $(uptime | sed 's/.*load/load/')"
done
