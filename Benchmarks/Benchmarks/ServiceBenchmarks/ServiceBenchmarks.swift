import Benchmark
import Foundation
import Waterfall

/// In-process benchmarks of the service over a real database file (WAL, as the command line
/// uses it): import, a deep page with a warm cache, a viewport, a move, and rebuilding the cache
/// after a change at the top. 200,000 images in sections of 5,000, so a run stays short; the
/// million-image, whole-process comparison lives in `Benchmarks/compare.sh`.
enum Fixture {
    static let images = 200_000
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appending(path: "waterfall-service-bench-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// A deterministic feed file with COCO-like sizes.
    static let feed: String = {
        let path = folder.appending(path: "feed.json").path
        let sizes = [(640, 427), (640, 480), (480, 640), (500, 375), (427, 640), (640, 360), (612, 612), (3000, 1000)]
        var json = "{\"feed\":\"bench\",\"images\":["
        for index in 0..<images {
            let (width, height) = sizes[(index &* 2_654_435_761) % sizes.count]
            if index > 0 { json += "," }
            json += "{\"id\":\"img-\(index)\",\"width\":\(width),\"height\":\(height),\"url\":\"https://img.example.com/\(index).jpg\",\"section\":\"s\(index / 5_000)\"}"
        }
        json += "]}"
        try! json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    static let layout = LayoutSource.inline(LayoutConfiguration(columns: 3, width: 800, headerHeight: 44))

    /// A database holding the feed with a warm cache, made once.
    static let warm: WaterfallService = {
        let path = folder.appending(path: "warm.sqlite").path
        let service = try! WaterfallService.open(path: path)
        _ = try! service.importFeed(contentsOf: feed, options: .init())
        _ = try! service.page(feed: "bench", layout: layout, offset: 0, limit: 1)
        return service
    }()

    static func fresh(_ name: String) -> WaterfallService {
        let path = folder.appending(path: "\(name)-\(UUID().uuidString).sqlite").path
        return try! WaterfallService.open(path: path)
    }
}

let benchmarks: @Sendable () -> Void = {
    let slow = Benchmark.Configuration(metrics: [.wallClock, .cpuTotal, .peakMemoryResident], warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 3)
    let fast = Benchmark.Configuration(metrics: [.wallClock, .cpuTotal, .mallocCountTotal], warmupIterations: 3, maxDuration: .seconds(5), maxIterations: 200)

    Benchmark("import 200k into an empty database", configuration: slow) { benchmark in
        let service = Fixture.fresh("import")
        _ = Fixture.feed
        benchmark.startMeasurement()
        blackHole(try service.importFeed(contentsOf: Fixture.feed, options: .init()))
    }

    Benchmark("page 100 at 99% depth, warm cache", configuration: fast) { benchmark in
        let service = Fixture.warm
        benchmark.startMeasurement()
        blackHole(try service.page(feed: "bench", layout: Fixture.layout, offset: Fixture.images * 99 / 100, limit: 100))
    }

    Benchmark("viewport 1000 points at 99% depth, warm cache", configuration: fast) { benchmark in
        let service = Fixture.warm
        let height = try service.page(feed: "bench", layout: Fixture.layout, offset: 0, limit: 1).contentHeight
        benchmark.startMeasurement()
        blackHole(try service.viewport(feed: "bench", layout: Fixture.layout, y: height * 0.99, height: 1_000, pinOffset: 0))
    }

    Benchmark("move one image in the middle", configuration: fast) { benchmark in
        let service = Fixture.warm
        let middle = Fixture.images / 2
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
            let anchor = iteration % 2 == 0 ? middle + 50 : middle - 50
            blackHole(try service.move(feed: "bench", id: "img-\(middle)", to: .after("img-\(anchor)")))
        }
    }

    Benchmark("cache rebuild after a move at the top, then the last page", configuration: slow) { benchmark in
        let service = Fixture.warm
        _ = try service.page(feed: "bench", layout: Fixture.layout, offset: 0, limit: 1)
        _ = try service.move(feed: "bench", id: "img-\(benchmark.currentIteration % 7 + 3)", to: .index(0))
        benchmark.startMeasurement()
        blackHole(try service.page(feed: "bench", layout: Fixture.layout, offset: Fixture.images - 100, limit: 100))
    }
}
