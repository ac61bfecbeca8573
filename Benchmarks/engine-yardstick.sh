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
db=$1; rounds=$2; bin=${3:+$(realpath "$3")}
if [ -z "$bin" ]; then
    prepare engine-yardstick.sh 1000000 wrk python3
    bin=$W
else
    cd "$(dirname "$0")/out"
fi
W=$bin
fail() { echo "engine-yardstick.sh: $*" >&2; exit 1; }
[ -f serve-random.lua ] || fail "run Benchmarks/serve.sh first (it writes serve-random.lua for its feed)"
postgres=false
if [[ "$db" == postgres://* || "$db" == postgresql://* ]]; then postgres=true; else [ -f "$db" ] || fail "no file $db"; fi
columns="sort_key, external_id, section_id, width, height, full_span, url, title, taken_at, placeholder, color, renditions, tags"
# serve.sh's feed, its image count, and its name as a URL path segment.
IFS=$'\t' read -r name images path < <("$W" --db "$db" feeds --json | python3 -c '
import json, sys, urllib.parse
f = json.load(sys.stdin)["feeds"][0]
print(f["name"], f["images"], urllib.parse.quote(f["name"], safe=""), sep="\t")')
# The page's statement from key $1, once the feed's id and revision are known.
statement() {
    echo "SELECT $columns FROM image WHERE feed_id = (SELECT id FROM feed WHERE id = $feed AND revision = $revision)" \
        "AND sort_key >= $1 ORDER BY sort_key LIMIT 100"
}
# The feed's id, revision and key range, the name bound as a value, never pasted into SQL.
if $postgres; then
    pgbench=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)
    [ -n "$pgbench" ] || fail "needs pgbench (apt-get install -y postgresql)"
    command -v psql >/dev/null || fail "needs psql (apt-get install -y postgresql-client)"
    read -r feed revision low high < <(psql "$db" -At -F ' ' -v name="$name" <<'SQL'
SELECT f.id, f.revision, min(i.sort_key), max(i.sort_key) FROM feed f JOIN image i ON i.feed_id = f.id
WHERE f.name = :'name' GROUP BY f.id, f.revision;
SQL
    )
    rows=$(psql "$db" -At -c "SELECT count(*) FROM ($(statement "$low")) AS page")
    cat >yardstick.sql <<SQL
\set k random($low, $high)
$(statement :k);
SQL
else
    command -v sqlite3 >/dev/null || fail "needs sqlite3 (apt-get install -y sqlite3)"
    read -r feed revision low high < <(python3 - "$db" "$name" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=5)
print(*db.execute("SELECT f.id, f.revision, min(i.sort_key), max(i.sort_key) FROM feed f JOIN image i "
                  "ON i.feed_id = f.id WHERE f.name = ? GROUP BY f.id", (sys.argv[2],)).fetchone())
PY
    )
    rows=$(sqlite3 -cmd ".timeout 5000" "$db" "SELECT count(*) FROM ($(statement "$low"))")
    for shell in 1 2; do
        python3 - "$(statement KEY)" "$low" "$high" "$shell" >"yardstick-$shell.sql" <<'PY'
import random, sys
statement, low, high, seed = sys.argv[1:]
random.seed(int(seed))
for _ in range(20000):
    print(statement.replace("KEY", str(random.randint(int(low), int(high)))) + ";")
PY
    done
fi
# A statement whose feed moved on since (a write meanwhile) would read nothing, and fast.
[ "$rows" = 100 ] || fail "the page's statement read $rows rows, not 100: is the feed at revision $revision still?"
deep="/v1/feeds/$path/layouts/phone/page?offset=$((images * 99 / 100))&limit=100"
for round in $(seq "$rounds"); do
    start_server engine-yardstick.sh "$db" yardstick-server.txt
    base="http://127.0.0.1:$port"
    wrk -c 64 -t 2 -d 5s -s serve-random.lua "$base/" >/dev/null
    wrk -c 64 -t 2 -d 10s -s serve-random.lua --latency "$base/" >yardstick-random.txt
    wrk -c 64 -t 2 -d 5s --latency "$base$deep" >yardstick-deep.txt
    kill $server
    wait $server 2>/dev/null || true
    if grep -q "Non-2xx" yardstick-random.txt yardstick-deep.txt; then
        fail "some requests were not answered 200 (serve-random.lua is serve.sh's last feed: run it on this database)"
    fi
    random=$(awk '/Requests\/sec/ { print $2 }' yardstick-random.txt)
    p99=$(awk '/ 99%/ { print $2 }' yardstick-random.txt)
    page=$(awk '/Requests\/sec/ { print $2 }' yardstick-deep.txt)
    if $postgres; then
        extended=$("$pgbench" "$db" -n -f yardstick.sql -M extended -c 8 -j 2 -T 10 2>&1 | awk '/^tps/ { print int($3); exit }')
        engine=$("$pgbench" "$db" -n -f yardstick.sql -M prepared -c 8 -j 2 -T 10 2>&1 | awk '/^tps/ { print int($3); exit }')
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
