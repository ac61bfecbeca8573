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
