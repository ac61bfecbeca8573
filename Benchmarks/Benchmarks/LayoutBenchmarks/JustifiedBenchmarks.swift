import Benchmark
import WaterfallLayout

// Justified rows (DESIGN section 8) on 10,000,000 photos, one core, frames written to a
// preallocated buffer.
//
// Registered by calling `justifiedBenchmarks()` from `benchmarks` (LayoutBenchmarks.swift);
// then, from Benchmarks/:
//
//     swift package benchmark --target LayoutBenchmarks --filter "justified.*"

/// Deterministic photo sizes from a fixed SplitMix64 seed: 4:3, 3:4, 16:9, 9:16, 1:1, 3:2 and
/// 2:3 camera and phone sizes with up to 31 pixels of noise in the width, and one panorama
/// (3:1 to 8:1) in 64. No banners: a feed of photos.
struct JustifiedFixture: @unchecked Sendable {
    let items: UnsafeMutableBufferPointer<LayoutItem>
    let frames: UnsafeMutableBufferPointer<Frame>

    init(count: Int, seed: UInt64 = 2024) {
        let shapes: [(Int32, Int32)] = [
            (4000, 3000), (4000, 3000), (4000, 3000), (3000, 4000), (3000, 4000), (1920, 1080), (1920, 1080),
            (2000, 2000), (2000, 2000), (3000, 2000), (2000, 3000), (4032, 3024), (3024, 4032), (1080, 1920),
            (1280, 720), (1600, 1200),
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
            let random = next()
            if random % 64 == 0 {
                items[index] = LayoutItem(width: 3000 + Int32((random >> 8) % 5000), height: 1000)
            } else {
                let shape = shapes[Int((random >> 8) % UInt64(shapes.count))]
                items[index] = LayoutItem(width: shape.0 + Int32((random >> 16) % 32), height: shape.1)
            }
        }
        // Touch every page of the output now, so that page faults are not measured.
        frames = .allocate(capacity: count)
        frames.initialize(repeating: Frame(x: 0, y: 0, width: 0, height: 0))
    }
}

/// Built on first use, outside the measured region.
let justifiedFixture10M = JustifiedFixture(count: 10_000_000)

/// 10,000,000 photos all 4000×3000: at 1,200 points wide every row holds 3, so no row's end
/// is mispredicted. Beside the photo feed, it shows what those mispredictions cost.
nonisolated(unsafe) let uniformPhotos10M: UnsafeMutableBufferPointer<LayoutItem> = {
    let items = UnsafeMutableBufferPointer<LayoutItem>.allocate(capacity: 10_000_000)
    items.initialize(repeating: LayoutItem(width: 4000, height: 3000))
    return items
}()

/// Measures one bulk layout of `items`, as one section, into the photo fixture's frames.
func measureBulk(
    _ benchmark: Benchmark, _ configuration: JustifiedConfiguration, _ items: UnsafeMutableBufferPointer<LayoutItem>
) {
    let layout = try! JustifiedLayout(configuration)
    let frames = justifiedFixture10M.frames
    var state = layout.initialState
    _ = layout.openSection(&state)
    benchmark.startMeasurement()
    let written = layout.append(contentsOf: UnsafeBufferPointer(items), into: frames, &state)
    let end = layout.closeSection(&state) { position, frame in frames[position] = frame }
    benchmark.stopMeasurement()
    blackHole(written)
    blackHole(end)
}

let justifiedBenchmarks: @Sendable () -> Void = {
    let bulk = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 25)

    let configurations: [(String, JustifiedConfiguration)] = [
        ("desktop, scale 1", JustifiedConfiguration(width: 1_200, rowHeight: 240)),
        ("retina, scale 3", JustifiedConfiguration(width: 1_170, rowHeight: 200, scale: 3)),
        (
            "phone, scale 2",
            JustifiedConfiguration(
                width: 390, rowHeight: 120, columnSpacing: 2, rowSpacing: 2, sectionInset: .zero, scale: 2)
        ),
    ]
    for (label, configuration) in configurations {
        Benchmark("justified bulk 10M \(label)", configuration: bulk) { benchmark in
            measureBulk(benchmark, configuration, justifiedFixture10M.items)
        }
    }

    Benchmark("justified bulk 10M desktop, scale 1, every row 3 photos", configuration: bulk) { benchmark in
        measureBulk(benchmark, JustifiedConfiguration(width: 1_200, rowHeight: 240), uniformPhotos10M)
    }

    Benchmark("justified streaming 1M desktop, scale 1", configuration: bulk) { benchmark in
        let layout = try! JustifiedLayout(JustifiedConfiguration(width: 1_200, rowHeight: 240))
        let fixture = justifiedFixture10M
        var state = layout.initialState
        _ = layout.openSection(&state)
        benchmark.startMeasurement()
        for index in 0..<1_000_000 {
            layout.append(fixture.items[index], &state) { position, frame in fixture.frames[position] = frame }
        }
        let end = layout.closeSection(&state) { position, frame in fixture.frames[position] = frame }
        benchmark.stopMeasurement()
        blackHole(end)
    }
}
