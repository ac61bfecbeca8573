#!/usr/bin/env bash
# Measures `waterfall serve` (the HTTP API) at a million images with wrk, against the framework's
# own ceiling (GET /healthz) and against a process per query (the CLI), in one run on one machine
# (issue 11). Prints a markdown table.
#
#   Benchmarks/serve.sh [IMAGES]        # a generated feed of IMAGES images (default 1,000,000)
#   Benchmarks/serve.sh FEED.json       # any feed of the same shape
#   WATERFALL_BENCH_DB=postgres://USER:PASSWORD@HOST/DATABASE Benchmarks/serve.sh
#                                       # the same on PostgreSQL (its feeds are removed first)
#
# Needs wrk, hyperfine, curl and python3. Each wrk run: 64 connections, 2 threads, 20 s.
#   a. GET /healthz
#   b. one page of 100 at offset 99%, the same request every time (answered from the server's cache)
#   c. pages of 100 at a random offset per request (the uncached cost)
#   d. (b) while a writer moves one image near the top to a random place among the first 4,000
#      images, 20 times a second (POST …/reorder)
#   e. (c) with the same writer
#   f. the same page as (b) with a process per query: `waterfall page`, timed by hyperfine
#   g. with WATERFALL_BENCH_GZIP=1: (b) and (c) again with `Accept-Encoding: gzip`, in the same
#      run, and the bytes of that page plain and gzipped (DESIGN section 16)
# The release binary is built as compare.sh builds it. Work files and the raw outputs
# (serve-*.txt) go to Benchmarks/out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source=${1:-1000000}
started=$SECONDS
source Benchmarks/prepare.sh
prepare serve.sh "$source" wrk hyperfine curl python3

# 1. A fresh database with the feed and a warm phone layout.
db=${WATERFALL_BENCH_DB:-serve.sqlite}
fresh_catalog "$db"
echo "importing $feed…" >&2
"$W" --db "$db" import "$feed" >/dev/null
"$W" --db "$db" layout add phone --columns 3 --width 414 >/dev/null
"$W" --db "$db" layout warm phone >/dev/null
# On PostgreSQL, the previous run's million rows, removed above, are dead rows until a vacuum:
# autovacuum would clear them during one of the runs below, when it wakes (once a minute),
# and a run it lands in measured the disk instead (9 random pages a second once, against 570
# to 900). Vacuumed now, with the planner's statistics, every run measures serving alone.
if [[ "$db" == postgres://* || "$db" == postgresql://* ]] && command -v psql >/dev/null; then
    psql "$db" -qc "VACUUM (ANALYZE) image, change, section, layout_checkpoint" >/dev/null
fi
read -r name images < <("$W" --db "$db" feeds --json \
    | python3 -c 'import json, sys; f = json.load(sys.stdin)["feeds"][0]; print(f["name"], f["images"])')
deep=$((images * 99 / 100)); last=$((images - 100))
id_at() {  # the id of the image at catalog index $1
    "$W" --db "$db" images --offset "$1" --limit 1 --json \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["images"][0]["id"])'
}
# The writer's images (issue 23).
writer_images "$db"
page="/v1/feeds/$name/layouts/phone/page"

# 2. The server, on a free port.
start_server serve.sh "$db" serve-server.txt
base="http://127.0.0.1:$port"
echo "server $server on $base; feed $name, $images images" >&2
check() {  # a request that must answer 200
    local status
    status=$(curl -s -o /dev/null -w '%{http_code}' "$base$1")
    [ "$status" = 200 ] || { echo "serve.sh: GET $1 answered $status" >&2; curl -s "$base$1" >&2; exit 1; }
}
check /healthz
check "$page?offset=$deep&limit=100"

cat > serve-random.lua <<LUA
-- A page of 100 at a random offset in 0…$last per request, a different sequence per thread.
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) math.randomseed(os.time() * 100 + id) end
function request()
    return wrk.format("GET", "$page?offset=" .. math.random(0, $last) .. "&limit=100")
end
LUA

cat > serve-locate.lua <<LUA
-- Locate a random image by id (ids are img-0…img-$last): as a page at a random offset, but
-- finding the image first (DESIGN section 16).
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) math.randomseed(os.time() * 100 + id + 50) end
function request()
    return wrk.format("GET", "/v1/feeds/$name/layouts/phone/locate?id=img-" .. math.random(0, $last) .. "&limit=100")
end
LUA

bench() {  # name, wrk arguments…
    local name=$1; shift
    echo "wrk: $name…" >&2
    wrk -c 64 -t 2 -d 20s --timeout 10s --latency "$@" > "serve-$name.txt"
    kill -0 $server 2>/dev/null || { cat serve-server.txt >&2; echo "serve.sh: the server died during $name" >&2; exit 1; }
}

# 3a–c.
bench healthz "$base/healthz"
bench page "$base$page?offset=$deep&limit=100"
bench random -s serve-random.lua "$base"
check "/v1/feeds/$name/layouts/phone/locate?id=img-$last"
bench locate -s serve-locate.lua "$base"
# 3c'. The whole catalog as NDJSON (DESIGN section 16), and the server's peak memory before and
# after it (VmHWM: the high-water mark).
echo "curl: the catalog as lines…" >&2
awk '/^VmHWM:/ { print int($2 / 1024) }' /proc/$server/status > serve-ndjson-rss.txt
curl -s -H 'Accept: application/x-ndjson' -o serve-ndjson.out -w '%{http_code} %{time_total} %{size_download}\n' \
    "$base/v1/feeds/$name/images" > serve-ndjson.txt
wc -l < serve-ndjson.out >> serve-ndjson.txt
rm -f serve-ndjson.out
awk '/^VmHWM:/ { print int($2 / 1024) }' /proc/$server/status >> serve-ndjson-rss.txt
if [ "${WATERFALL_BENCH_GZIP:-}" = 1 ]; then
    curl -s -o /dev/null -w '%{size_download}\n' "$base$page?offset=$deep&limit=100" > serve-bytes.txt
    curl -s -o /dev/null -w '%{size_download}\n' -H 'Accept-Encoding: gzip' "$base$page?offset=$deep&limit=100" >> serve-bytes.txt
    bench page-gzip -H 'Accept-Encoding: gzip' "$base$page?offset=$deep&limit=100"
    bench random-gzip -H 'Accept-Encoding: gzip' -s serve-random.lua "$base"
fi

# 3d–e. The same pages while a writer moves an image near the top to a random place among the
# first 4,000, 20 times a second, through POST …/reorder (for the 20 s of wrk).
cat > serve-writer.py <<'PY'
import http.client, json, random, statistics, sys, time
port, path, duration, ids = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4:]
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
statuses, latencies, failures = {}, [], []
start = time.monotonic()
n = 0
while time.monotonic() - start < duration:
    time.sleep(max(0.0, start + n * 0.05 - time.monotonic()))
    # ids[0] goes before a random other image of the first 4,000: a new revision each time.
    target = random.choice([i for i in ids[1:] if i != ids[0]])
    body = json.dumps({"moves": [{"id": ids[0], "before": target}]})
    sent = time.monotonic()
    try:
        connection.request("POST", path, body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        status = response.status
    except Exception as error:
        status, answer = "error", repr(error).encode()
        connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies.append(time.monotonic() - sent)
    statuses[status] = statuses.get(status, 0) + 1
    if status != 200 and len(failures) < 5:
        failures.append(f"{status}: {answer[:300].decode(errors='replace')}")
    n += 1
elapsed = time.monotonic() - start
latencies.sort()
print(f"moves: {n} in {elapsed:.1f} s ({n / elapsed:.1f}/s)")
print(f"non-200: {n - statuses.get(200, 0)}")
print(f"statuses: {json.dumps({str(k): v for k, v in statuses.items()})}")
print(f"latency: median {statistics.median(latencies) * 1000:.1f} ms, "
      f"p99 {latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
for failure in failures:
    print(failure)
PY
with_writer() {  # name, wrk arguments…
    local name=$1
    python3 serve-writer.py "$port" "/v1/feeds/$name_of_feed/reorder" 21 "${ids[@]}" > "serve-$name-moves.txt" &
    local writer=$!
    bench "$@"
    wait $writer || { echo "serve.sh: the writer failed" >&2; exit 1; }
    cat "serve-$name-moves.txt" >&2
}
name_of_feed=$name
with_writer page-writer "$base$page?offset=$deep&limit=100"
with_writer random-writer -s serve-random.lua "$base"

# On PostgreSQL: a second instance over the same database, and how long a move through one
# takes to show in the other's page.
if [[ "$db" == postgres://* || "$db" == postgresql://* ]]; then
    rm -f serve-second.txt
    "$W" serve --db "$db" --port 0 >serve-second.txt 2>&1 &
    second=$!
    port2=
    for _ in $(seq 600); do
        port2=$(sed -n 's|^waterfall: serving .* at http://127\.0\.0\.1:\([0-9]*\)/$|\1|p' serve-second.txt)
        [ -n "$port2" ] && break
        sleep 0.1
    done
    [ -n "$port2" ] || { cat serve-second.txt >&2; echo "serve.sh: the second instance did not start" >&2; exit 1; }
    curl -s -o /dev/null "http://127.0.0.1:$port2$page?offset=0&limit=20"
    python3 "$root/Benchmarks/visibility.py" "$port" "$port2" "$name" phone "${top[20]}" "${top[21]}" 20 > serve-visibility.txt
    kill $second; wait $second 2>/dev/null || true
    cat serve-visibility.txt >&2
else
    rm -f serve-visibility.txt
fi

# The server's peak resident memory over the whole run (the feed hot, 64 readers, the writer).
peak_rss=$(awk '/^VmHWM:/ { print int($2 / 1024) }' /proc/$server/status)
echo "$peak_rss" > serve-rss.txt

# 3f. A process per query.
echo "hyperfine: the CLI…" >&2
hyperfine -N -w 5 -r 100 --export-json serve-cli.json \
    "$W --db $db page --layout phone --offset $deep --limit 100 --json" > serve-cli.txt

python3 - "$images" <<'PY'
import json, re, sys

def milliseconds(text):
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]

def wrk(name):
    text = open(f"serve-{name}.txt").read()
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    p50 = milliseconds(re.search(r"^\s+50%\s+(\S+)", text, re.M).group(1))
    p99 = milliseconds(re.search(r"^\s+99%\s+(\S+)", text, re.M).group(1))
    requests = int(re.search(r"(\d+) requests in", text).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    errors = (int(non2xx.group(1)) if non2xx else 0, sum(map(int, socket.groups())) if socket else 0)
    return rate, p50, p99, requests, errors

def ms(value):
    return f"{value:,.2f} ms" if value < 10 else f"{value:,.1f} ms"

images = int(sys.argv[1])
deep = images * 99 // 100
rows = [
    ("GET /healthz", wrk("healthz")),
    (f"page of 100 at offset {deep:,} (same request)", wrk("page")),
    ("page of 100 at a random offset", wrk("random")),
    ("locate a random image by id", wrk("locate")),
    (f"page of 100 at offset {deep:,} (same request), 20 moves/s writing", wrk("page-writer")),
    ("page of 100 at a random offset, 20 moves/s writing", wrk("random-writer")),
]
import os
if os.path.exists("serve-page-gzip.txt"):
    rows[4:4] = [(f"page of 100 at offset {deep:,} (same request), gzip", wrk("page-gzip")),
                 ("page of 100 at a random offset, gzip", wrk("random-gzip"))]
times = sorted(json.load(open("serve-cli.json"))["results"][0]["times"])
mean = sum(times) / len(times)
cli = (1 / mean, times[len(times) // 2] * 1000, times[min(len(times) - 1, int(len(times) * 0.99))] * 1000, len(times), None)
ceiling = rows[0][1][0]
print(f"| work, {images:,} images, 64 connections | requests/s | p50 | p99 | of /healthz |")
print("|---|---:|---:|---:|---:|")
for name, (rate, p50, p99, _, _) in rows + [(f"CLI process per query, page at offset {deep:,}", cli)]:
    print(f"| {name} | {rate:,.0f} | {ms(p50)} | {ms(p99)} | {rate / ceiling * 100:.1f}% |")
print()
for name, (_, _, _, requests, errors) in rows:
    print(f"- {name}: {requests:,} requests, {errors[0]} non-2xx, {errors[1]} socket errors")
print(f"- locate over a page at a random offset: {wrk('locate')[0] / wrk('random')[0]:.2f} (requests/s), p99 {ms(wrk('locate')[2])} against {ms(wrk('random')[2])}")
status, seconds, size, lines = open("serve-ndjson.txt").read().split()
before, after = open("serve-ndjson-rss.txt").read().split()
print(f"- the whole catalog as NDJSON (one client, curl): status {status}, {int(lines):,} lines, {int(size) / 1e6:,.0f} MB in {float(seconds):.2f} s; "
      f"the server's peak resident memory {before} MiB before it, {after} MiB after")
if os.path.exists("serve-bytes.txt"):
    plain, gzipped = map(int, open("serve-bytes.txt").read().split())
    print(f"- the page of 100 at offset {deep:,}: {plain:,} bytes plain, {gzipped:,} gzipped ({gzipped / plain:.1%}); "
          f"gzip over plain: {wrk('page-gzip')[0] / wrk('page')[0]:.2f} (same request), {wrk('random-gzip')[0] / wrk('random')[0]:.2f} (random)")
print(f"- the server's peak resident memory over the run: {open('serve-rss.txt').read().strip()} MiB")
if os.path.exists("serve-visibility.txt"):
    for line in open("serve-visibility.txt").read().splitlines():
        print(f"- {line}")
for name in ("page-writer", "random-writer"):
    print(f"- writer during {name}: " + "; ".join(open(f"serve-{name}-moves.txt").read().splitlines()[:3]))
PY
echo "serve.sh: done in $((SECONDS - started)) s" >&2
