# Sourced by the benchmark scripts: `prepare NAME SOURCE TOOL…` checks that the tools are
# installed, installs Waterfall with `make install` (exactly what a user installs, see the
# Makefile) into Benchmarks/out/prefix, and sets W (the installed binary) and feed (SOURCE when it
# is a file, else a generated feed of SOURCE images, made once), then enters Benchmarks/out/,
# where the work files go (git-ignored). Run from the repository's top folder.
prepare() {
    local name=$1 source=$2; shift 2
    local out=Benchmarks/out
    mkdir -p "$out"
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "$name needs $tool (apt-get install -y $tool)" >&2; exit 1; }
    done
    make install PREFIX="$PWD/$out/prefix" >&2
    W="$PWD/$out/prefix/bin/waterfall"
    if [ -f "$source" ]; then
        feed=$(realpath "$source")
    else
        feed="$PWD/$out/feed-$source.json"
        [ -f "$feed" ] || python3 Benchmarks/generate-feed.py "$feed" "$source"
    fi
    cd "$out"
}

# `start_server NAME DATABASE LOG` starts `$W serve --db DATABASE` on a free port, its output in
# LOG, stopped when the script exits; sets `server` (its pid) and `port`. Waits at most 60 s.
start_server() {
    local name=$1 db=$2 log=$3
    rm -f "$log"
    "$W" serve --db "$db" --port 0 >"$log" 2>&1 &
    server=$!
    trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
    port=
    for _ in $(seq 600); do
        port=$(sed -n 's|^waterfall: serving .* at http://127\.0\.0\.1:\([0-9]*\)/$|\1|p' "$log")
        [ -n "$port" ] && break
        kill -0 $server 2>/dev/null || { cat "$log" >&2; echo "$name: the server exited" >&2; exit 1; }
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$log" >&2; echo "$name: the server did not start in 60 s" >&2; exit 1; }
}

# `fresh_catalog DATABASE` empties the catalog a benchmark writes: every feed of a PostgreSQL
# catalog removed (its keys and the rest kept), an SQLite file removed with its WAL and SHM.
fresh_catalog() {
    local db=$1
    if [[ "$db" == postgres://* || "$db" == postgresql://* ]]; then
        for old in $("$W" --db "$db" feeds --json | python3 -c 'import json, sys; print(" ".join(f["name"] for f in json.load(sys.stdin)["feeds"]))'); do
            "$W" --db "$db" feed remove "$old" >/dev/null
        done
    else
        rm -f "$db" "$db-wal" "$db-shm"
    fi
}

# `writer_images DATABASE` sets the writer's images (issue 23), with `$W`: `top`, the ids of the
# first 4,000 images, and `ids`, the one it moves (near the top) then those among which it puts
# it at random.
writer_images() {
    local db=$1
    top=()
    for offset in 0 1000 2000 3000; do
        while read -r id; do top+=("$id"); done < <("$W" --db "$db" images --offset $offset --limit 1000 --json \
            | python3 -c 'import json, sys; print("\n".join(i["id"] for i in json.load(sys.stdin)["images"]))')
    done
    ids=("${top[10]}" "${top[@]}")
}
