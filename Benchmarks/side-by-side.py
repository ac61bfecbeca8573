#!/usr/bin/env python3
"""Waterfall's bulk layout paths against a peer's timing command, side by side (issue 28).

    Benchmarks/side-by-side.py --peer CMD [--runs 25] [--rounds 1] [--waterfall]
                               [--tolerance 0.25] [--scale 1] [--thread-clock]
                               [--ratios FILE] [--no-build]

Writes the ratios file (default Benchmarks/out/ratios.bin; kept if it exists): the 10,000,000
photo sizes of the justified benchmark fixture (Benchmarks/Benchmarks/LayoutBenchmarks/
JustifiedBenchmarks.swift, SplitMix64 seed 2024), one record an image, two little-endian
UInt32, width then height in pixels (a = width / height). Then builds Waterfall's timing
program (Benchmarks/SideBySide, `swift build -c release`, only WaterfallLayout compiles) and
runs it and the peer interleaved, RUNS times each per round, one process a run. Each program
lays out the file once and prints the nanoseconds of the layout alone (loading the file and
allocating and touching the output are not timed) as the last line of its stdout.

Ours: `side-by-side justified FILE`: JustifiedLayout's bulk append as one section, 1,000
points wide, rowHeight 235, spacing 2 (columnSpacing and rowSpacing), no insets, scale 1,
rowHeightTolerance 0.25 (Waterfall's default; --tolerance changes it, e.g. 0.15, the number
Immich's benchmark gives its own tolerance, whose meaning differs: see docs/performance.md), frames into
a preallocated buffer. With --waterfall, also `side-by-side
waterfall FILE`: WaterfallLayout's bulk place, 3 columns, 1,000 wide, spacing 2, no insets
(it has no peer; its figure is printed against the 25 ms aim).

The peer: CMD is run through the shell with the ratios file's path in place of `{ratios}`,
or appended. The peer measured in docs/performance.md is Immich's justified layout loop
(immich-app/justified-layout, src/lib.rs, AGPL-3.0, so not in this repository): a Rust timing
program, kept outside it, with `Layout::new`'s loop unchanged except that it writes into a
pre-touched buffer it is given; it reads the same file (a = width as f32 / height as f32) and
uses Immich's own benchmark options (benches/layout.rs: row height 235, row width 1000,
spacing 2, tolerance 0.15; --row-height, --row-width, --spacing, --tolerance change them).
Built natively, as the issue asks, with no target CPU:

    rustc -C opt-level=3 -o immich-timing immich_timing.rs
    Benchmarks/side-by-side.py --peer /work/peer-immich/immich-timing --waterfall --rounds 3

Each round prints minimum and median of both and the ratio ours/peer; the load average is
printed before, after and with each round.
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "Benchmarks", "SideBySide")


def run_ns(command):
    """Runs a timing command (a shell string) and returns the nanoseconds it printed last."""
    result = subprocess.run(command, shell=True, capture_output=True, text=True)
    lines = result.stdout.split()
    if result.returncode != 0 or not lines or not lines[-1].isdigit():
        sys.exit(f"side-by-side: `{command}` failed (status {result.returncode}): {result.stderr.strip()}")
    return int(lines[-1])


def load():
    """The 1-, 5- and 15-minute load averages, as uptime says them."""
    return "%.2f %.2f %.2f" % os.getloadavg()


def summary(label, times):
    ms = [t / 1e6 for t in times]
    return f"{label:<22} min {min(ms):8.2f} ms   median {statistics.median(ms):8.2f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer", required=True, help="the peer's timing command; {ratios} is the file's path")
    parser.add_argument("--runs", type=int, default=25, help="runs of each program per round (25)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds, each summarised on its own (1)")
    parser.add_argument("--waterfall", action="store_true", help="also time the waterfall bulk path")
    parser.add_argument("--ratios", default=os.path.join(ROOT, "Benchmarks", "out", "ratios.bin"),
                        help="the ratios file, written if missing (Benchmarks/out/ratios.bin)")
    parser.add_argument("--tolerance", type=float, default=0.25, help="our rowHeightTolerance (0.25, the default)")
    parser.add_argument("--scale", type=int, default=1, help="our scale, 1 to 3 (1)")
    parser.add_argument("--thread-clock", action="store_true",
                        help="both programs print thread CPU time (SIDE_BY_SIDE_CLOCK=thread), for a busy machine")
    parser.add_argument("--no-build", action="store_true", help="use the timing program already built")
    args = parser.parse_args()

    if not args.no_build:
        subprocess.run(["swift", "build", "-c", "release", "--package-path", PACKAGE], check=True,
                       stdout=subprocess.DEVNULL)
    program = os.path.join(PACKAGE, ".build", "release", "side-by-side")
    if not os.path.exists(args.ratios):
        os.makedirs(os.path.dirname(args.ratios), exist_ok=True)
        subprocess.run([program, "write-ratios", args.ratios], check=True)
    ratios = shlex.quote(args.ratios)
    peer = args.peer.replace("{ratios}", ratios) if "{ratios}" in args.peer else f"{args.peer} {ratios}"
    ours = f"{shlex.quote(program)} justified {ratios} --tolerance {args.tolerance} --scale {args.scale}"
    waterfall = f"{shlex.quote(program)} waterfall {ratios} --scale {args.scale}"
    if args.thread_clock:
        os.environ["SIDE_BY_SIDE_CLOCK"] = "thread"

    print(f"load before: {load()}" + (" (thread CPU time)" if args.thread_clock else " (wall-clock time)"))
    print(f"ours: {ours}\npeer: {peer}")
    for round in range(1, args.rounds + 1):
        times = {"ours": [], "peer": [], "waterfall": []}
        for _ in range(args.runs):
            times["ours"].append(run_ns(ours))
            times["peer"].append(run_ns(peer))
            if args.waterfall:
                times["waterfall"].append(run_ns(waterfall))
        print(f"round {round} ({args.runs} runs each, interleaved), load {load()}")
        print("  " + summary("justified, ours", times["ours"]))
        print("  " + summary("justified, peer", times["peer"]))
        print("  ratio ours/peer:       min %.3f        median %.3f" % (
            min(times["ours"]) / min(times["peer"]),
            statistics.median(times["ours"]) / statistics.median(times["peer"])))
        if args.waterfall:
            print("  " + summary("waterfall, 3 columns", times["waterfall"]) + "   (aim: under 25 ms)")
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
