#!/bin/sh
# Builds the two libFuzzer targets into Fuzz/.build/ with swiftc (SwiftPM cannot add
# -sanitize=fuzzer to one target). Each fuzzer is the WaterfallSync sources plus its entry
# point, compiled as module WaterfallSync so that it reaches the decoder's internals.
# Usage: Fuzz/build.sh   (from anywhere; needs a Swift toolchain for Linux, which ships libFuzzer)
set -eu
cd "$(dirname "$0")"
mkdir -p .build
SOURCES="../Sources/WaterfallSync/*.swift ../Sources/WaterfallSync/Parsing/*.swift FuzzSupport.swift"
for target in feed reorder; do
    case $target in
        feed) entry=FeedFuzzer.swift ;;
        reorder) entry=ReorderFuzzer.swift ;;
    esac
    echo "building .build/$target-fuzzer"
    # shellcheck disable=SC2086  # SOURCES is a list of globs
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld -module-name WaterfallSync \
        $SOURCES "$entry" -o ".build/$target-fuzzer"
done
