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
    static let feed = makeFeed(images, name: "feed.json")

    /// A feed file of `count` images with COCO-like sizes, in sections of 5,000.
    static func makeFeed(_ count: Int, name: String) -> String {
        let path = folder.appending(path: name).path
        let sizes = [(640, 427), (640, 480), (480, 640), (500, 375), (427, 640), (640, 360), (612, 612), (3000, 1000)]
        var json = "{\"feed\":\"bench\",\"images\":["
        for index in 0..<count {
            let (width, height) = sizes[(index &* 2_654_435_761) % sizes.count]
            if index > 0 { json += "," }
            json +=
                "{\"id\":\"img-\(index)\",\"width\":\(width),\"height\":\(height),\"url\":\"https://img.example.com/\(index).jpg\",\"section\":\"s\(index / 5_000)\"}"
        }
        json += "]}"
        try! json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let layout = LayoutSource.inline(.waterfall(LayoutConfiguration(columns: 3, width: 800, headerHeight: 44)))
    static let justified = LayoutSource.inline(
        .justified(JustifiedConfiguration(width: 1_200, rowHeight: 220, headerHeight: 44)))
    static let coverFlow = CoverFlowConfiguration(itemHeight: 300)

    /// 1,000,000 images with warm caches of the cover flow, made once (the size for it),
    /// by the first benchmark that awaits it.
    static let million = Task {
        let path = folder.appending(path: "million.sqlite").path
        let service = try WaterfallService.open(path: path)
        _ = try await service.importFeed(contentsOf: makeFeed(1_000_000, name: "million.json"), options: .init())
        _ = try await service.coverFlow(feed: "bench", configuration: coverFlow, x: 0, viewportWidth: 1_000)
        return service
    }

    /// A database holding the feed with a warm cache, made once.
    static let warm = Task {
        let path = folder.appending(path: "warm.sqlite").path
        let service = try WaterfallService.open(path: path)
        _ = try await service.importFeed(contentsOf: feed, options: .init())
        _ = try await service.page(feed: "bench", layout: layout, offset: 0, limit: 1)
        _ = try await service.page(feed: "bench", layout: justified, offset: 0, limit: 1)
        return service
    }

    /// A layout whose sections differ (DESIGN section 14): every tenth section one column, every
    /// tenth from the fifth justified rows.
    static let steered = LayoutSource.inline(
        .sectioned(
            try! SectionedConfiguration(
                base: .waterfall(LayoutConfiguration(columns: 3, width: 414, headerHeight: 40)),
                entries: (0..<20).map { ["section": .string("s\($0 * 10)"), "columns": .number(1)] }
                    + (0..<20).map {
                        [
                            "section": .string("s\($0 * 10 + 5)"), "kind": .string("justified"),
                            "rowHeight": .number(150),
                        ]
                    })))

    /// The million-image feed served with a hot copy (DESIGN section 12), warm for `layout`
    /// and `steered`.
    static let hotMillion = Task {
        let service = try await million.value.keepingFeeds(KeptFeeds(budget: 256 << 20))
        _ = try await service.sectionIndex(feed: "bench", layout: layout)
        _ = try await service.sectionIndex(feed: "bench", layout: steered)
        return service
    }

    static func fresh(_ name: String) throws -> WaterfallService {
        let path = folder.appending(path: "\(name)-\(UUID().uuidString).sqlite").path
        return try WaterfallService.open(path: path)
    }
}

let benchmarks: @Sendable () -> Void = {
    let slow = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .peakMemoryResident], warmupIterations: 0, maxDuration: .seconds(30),
        maxIterations: 3)
    let fast = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal], warmupIterations: 3, maxDuration: .seconds(5),
        maxIterations: 200)

    Benchmark("import 200k into an empty database", configuration: slow) { benchmark in
        let service = try Fixture.fresh("import")
        _ = Fixture.feed
        benchmark.startMeasurement()
        blackHole(try await service.importFeed(contentsOf: Fixture.feed, options: .init()))
    }

    Benchmark("page 100 at 99% depth, warm cache", configuration: fast) { benchmark in
        let service = try await Fixture.warm.value
        benchmark.startMeasurement()
        blackHole(
            try await service.page(feed: "bench", layout: Fixture.layout, offset: Fixture.images * 99 / 100, limit: 100)
        )
    }

    Benchmark("viewport 1000 points at 99% depth, warm cache", configuration: fast) { benchmark in
        let service = try await Fixture.warm.value
        let height = try await service.page(feed: "bench", layout: Fixture.layout, offset: 0, limit: 1).contentHeight
        benchmark.startMeasurement()
        blackHole(
            try await service.viewport(
                feed: "bench", layout: Fixture.layout, y: height * 0.99, height: 1_000, pinOffset: 0))
    }

    Benchmark("justified page 100 at 99% depth, warm cache", configuration: fast) { benchmark in
        let service = try await Fixture.warm.value
        benchmark.startMeasurement()
        blackHole(
            try await service.page(
                feed: "bench", layout: Fixture.justified, offset: Fixture.images * 99 / 100, limit: 100))
    }

    Benchmark("justified viewport 1000 points at 99% depth, warm cache", configuration: fast) { benchmark in
        let service = try await Fixture.warm.value
        let height = try await service.page(feed: "bench", layout: Fixture.justified, offset: 0, limit: 1).contentHeight
        benchmark.startMeasurement()
        blackHole(
            try await service.viewport(
                feed: "bench", layout: Fixture.justified, y: height * 0.99, height: 1_000, pinOffset: 0))
    }

    Benchmark("cover flow at 1M images, 99% along, warm cache", configuration: fast) { benchmark in
        let service = try await Fixture.million.value
        let width = try await service.coverFlow(
            feed: "bench", configuration: Fixture.coverFlow, x: 0, viewportWidth: 1_000
        ).contentWidth
        benchmark.startMeasurement()
        blackHole(
            try await service.coverFlow(
                feed: "bench", configuration: Fixture.coverFlow, x: width * 0.99, viewportWidth: 1_000))
    }

    Benchmark("section index of 1M images in 200 sections, warm cache", configuration: fast) { benchmark in
        let service = try await Fixture.million.value
        _ = try await service.sectionIndex(feed: "bench", layout: Fixture.layout)
        benchmark.startMeasurement()
        blackHole(try await service.sectionIndex(feed: "bench", layout: Fixture.layout))
    }

    Benchmark("section index of 1M images in 200 sections, hot copy", configuration: fast) { benchmark in
        let service = try await Fixture.hotMillion.value
        benchmark.startMeasurement()
        blackHole(try await service.sectionIndex(feed: "bench", layout: Fixture.layout))
    }

    Benchmark("section index of 1M images, sections of mixed kinds, hot copy", configuration: fast) { benchmark in
        let service = try await Fixture.hotMillion.value
        benchmark.startMeasurement()
        blackHole(try await service.sectionIndex(feed: "bench", layout: Fixture.steered))
    }

    Benchmark("page 100 at 99% depth of 1M images, sections of mixed kinds, hot copy", configuration: fast) {
        benchmark in
        let service = try await Fixture.hotMillion.value
        benchmark.startMeasurement()
        blackHole(try await service.page(feed: "bench", layout: Fixture.steered, offset: 990_000, limit: 100))
    }

    Benchmark("move one image in the middle", configuration: fast) { benchmark in
        let service = try await Fixture.warm.value
        let middle = Fixture.images / 2
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
            let anchor = iteration % 2 == 0 ? middle + 50 : middle - 50
            blackHole(try await service.move(feed: "bench", id: "img-\(middle)", to: .after("img-\(anchor)")))
        }
    }

    Benchmark("cache rebuild after a move at the top, then the last page", configuration: slow) { benchmark in
        let service = try await Fixture.warm.value
        _ = try await service.page(feed: "bench", layout: Fixture.layout, offset: 0, limit: 1)
        _ = try await service.move(feed: "bench", id: "img-\(benchmark.currentIteration % 7 + 3)", to: .index(0))
        benchmark.startMeasurement()
        blackHole(
            try await service.page(feed: "bench", layout: Fixture.layout, offset: Fixture.images - 100, limit: 100))
    }
}
