#!/usr/bin/env bash
# Fuzzes the HTTP API of `waterfall serve` with schemathesis (PyPI), driven by the server's own
# /openapi.json: generated, mutated and stateful requests against a live server on 127.0.0.1
# over the sample feeds. Fails when any answer is a 5xx, breaks the document's schemas, or the
# server stops answering.
#
#   Fuzz/api.sh [SECONDS]        # default 600 (ten minutes)
#
# Checks: every schemathesis check but two whose premise does not hold for this API:
# positive_data_acceptance demands that any request the schema allows be accepted, while some
# rules span parameters (page does not mix with offset; insets must fit the width) and stay
# 400s; negative_data_rejection counts a request with an extra header as invalid and a 412
# (its precondition failed, nothing written) as accepting it, while HTTP servers must ignore
# headers they do not know. Work files go to Fuzz/out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
out=Fuzz/out
mkdir -p "$out"
command -v schemathesis >/dev/null || python3 -m pip install -q schemathesis
swift build --product waterfall >&2
W="$(swift build --show-bin-path)/waterfall"
db="$PWD/$out/api.sqlite"
rm -f "$db" "$db-wal" "$db-shm"
"$W" --db "$db" import SampleData/travel.json >/dev/null
"$W" --db "$db" import SampleData/coco-val2017.json >/dev/null
"$W" --db "$db" layout add phone --feed travel --columns 2 --width 375 --header-height 44 >/dev/null
"$W" --db "$db" serve --port 0 > "$out/api-serve.log" 2> "$out/api-serve.err" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "serving" "$out/api-serve.log" && break; sleep 0.1; done
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$out/api-serve.log")
status=0
PYTHONPATH="$PWD/Fuzz${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=api_hooks schemathesis run "http://127.0.0.1:$port/openapi.json" \
    --exclude-checks positive_data_acceptance,negative_data_rejection --max-time "$seconds" --workers 2 --seed 20261123 \
    --report junit --report-dir "$out" | tee "$out/api-schemathesis.txt" || status=$?
kill -0 $server 2>/dev/null || { echo "the server died during the run" >&2; exit 1; }
grep -q "unexpected failure" "$out/api-serve.err" && { echo "the server logged unexpected failures" >&2; exit 1; }
exit $status
