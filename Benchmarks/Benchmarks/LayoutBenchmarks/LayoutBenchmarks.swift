import Benchmark
import WaterfallLayout

/// Deterministic image sizes with COCO-like aspect ratios (mostly 640 on the long side,
/// landscape more common than portrait), from a fixed SplitMix64 seed.
struct FeedFixture: @unchecked Sendable {
    let items: UnsafeMutableBufferPointer<LayoutItem>
    let frames: UnsafeMutableBufferPointer<Frame>

    init(count: Int, seed: UInt64 = 2024) {
        let sizes: [(Int32, Int32)] = [
            (640, 480), (640, 427), (480, 640), (640, 640), (500, 375), (427, 640), (640, 360), (375, 500),
        ]
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        items = .allocate(capacity: count)
        for index in 0..<count {
            let size = sizes[Int(next() % UInt64(sizes.count))]
            items[index] = LayoutItem(width: size.0, height: size.1 + Int32(next() % 64))
        }
        // Touch every page of the output now, so that page faults are not measured.
        frames = .allocate(capacity: count)
        frames.initialize(repeating: Frame(x: 0, y: 0, width: 0, height: 0))
    }
}

/// Fixtures are built on first use, outside the measured region, and shared by benchmarks.
let fixture1M = FeedFixture(count: 1_000_000)
let fixture10M = FeedFixture(count: 10_000_000)

/// A one-section, 1,000,000-image feed laid out in memory, for viewport queries.
let feed1M: FeedLayout = {
    let layout = try! WaterfallLayout(LayoutConfiguration(columns: 3, width: 1_170, headerHeight: 44, scale: 3))
    let items = Array(fixture1M.items)
    // 100 sections of 10,000 images, so that pinned headers have sections to find.
    let sections = stride(from: 0, to: items.count, by: 10_000).map { Array(items[$0..<min($0 + 10_000, items.count)]) }
    return layout.layout(sections)
}()

let benchmarks: @Sendable () -> Void = {
    justifiedBenchmarks()
    let bulk = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 25)

    for (label, fixture) in [("1M", fixture1M), ("10M", fixture10M)] {
        for columns in [2, 3, 5] {
            Benchmark("bulk place \(label) shortest \(columns) columns", configuration: bulk) { benchmark in
                let layout = try! WaterfallLayout(LayoutConfiguration(columns: columns, width: 1_000))
                var state = layout.initialState
                _ = layout.openSection(&state)
                benchmark.startMeasurement()
                layout.place(UnsafeBufferPointer(fixture.items), into: fixture.frames, &state)
                benchmark.stopMeasurement()
                blackHole(state)
            }
        }
    }

    Benchmark("bulk place 10M left-to-right 3 columns", configuration: bulk) { benchmark in
        let layout = try! WaterfallLayout(LayoutConfiguration(columns: 3, width: 1_000, order: .leftToRight))
        var state = layout.initialState
        _ = layout.openSection(&state)
        benchmark.startMeasurement()
        layout.place(UnsafeBufferPointer(fixture10M.items), into: fixture10M.frames, &state)
        benchmark.stopMeasurement()
        blackHole(state)
    }

    Benchmark("scalar place 1M shortest 3 columns", configuration: bulk) { benchmark in
        let layout = try! WaterfallLayout(LayoutConfiguration(columns: 3, width: 1_000))
        var state = layout.initialState
        _ = layout.openSection(&state)
        benchmark.startMeasurement()
        for index in fixture1M.items.indices {
            fixture1M.frames[index] = layout.place(fixture1M.items[index], &state)
        }
        benchmark.stopMeasurement()
        blackHole(state)
    }

    let query = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .throughput], warmupIterations: 10, scalingFactor: .kilo,
        maxDuration: .seconds(3))

    Benchmark("viewport 1M at 99% depth", configuration: query) { benchmark in
        let feed = feed1M
        let y = feed.contentHeight * 0.99
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(feed.viewport(y: y, height: 2_532))
        }
    }

    Benchmark("viewport 1M at 99% depth, pinned headers", configuration: query) { benchmark in
        let feed = feed1M
        let y = feed.contentHeight * 0.99
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(feed.viewport(y: y, height: 2_532, pinOffset: 100))
        }
    }
}
