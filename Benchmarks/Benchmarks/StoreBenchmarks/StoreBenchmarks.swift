import Benchmark
import Foundation
import Waterfall
import WaterfallStore

/// What the catalog's one transaction protocol costs or saves (DESIGN section 15, "the store's
/// door is async"): a transaction's body is synchronous, as GRDB's are, so SQLite runs a whole
/// transaction in one hop to GRDB's queue, and PostgreSQL runs it on a thread of its own that
/// waits for each statement's answer (the lane), where the reads of answers from feeds held in
/// memory await each statement instead (``CatalogStore/readAwaitingStatements(_:)``).
///
/// Each benchmark runs 400 times the same read of a page's rows: the feed, its named layout,
/// 100 images from a key, their sections (four statements between `BEGIN` and `COMMIT`), one at
/// a time or 32 at once, over a server's pool (eight connections). Compare the rows of one
/// engine and one concurrency:
///
/// - PostgreSQL, **on the lane** (``CatalogStore/read(_:)``) against **awaited**;
/// - SQLite, **in one transaction** (``CatalogStore/read(_:)``, its body on GRDB's reader)
///   against **a hop per statement** (four awaited reads of one statement each: the least an
///   asynchronous transaction protocol would cost SQLite, whose statements GRDB runs only
///   inside its synchronous bodies).
///
///     swift package benchmark --target StoreBenchmarks                      # SQLite
///     WATERFALL_BENCH_DB=postgres://USER:PASSWORD@HOST/DATABASE \
///         swift package benchmark --target StoreBenchmarks                  # and PostgreSQL
///
/// On PostgreSQL it imports a feed `store-bench` of 20,000 images into the catalog named when
/// the catalog has none of that name; on SQLite, into a temporary file.
enum Fixture {
    static let feed = "store-bench"
    static let images = 20_000
    static let transactions = 400
    /// A server's pool (`waterfall serve --connections 8`).
    static let connections = 8
    static let postgresURL = ProcessInfo.processInfo.environment["WATERFALL_BENCH_DB"]

    struct Catalog: Sendable {
        let store: any CatalogStore
        let feedID: Int64
        /// The order keys of the feed's images.
        let keys: [Int64]
    }

    static let postgres = Task { () throws -> Catalog in
        let url = postgresURL!
        return try await prepare(url) { try PostgresCatalog.open(url: url, connections: connections) }
    }

    static let sqlite = Task { () throws -> Catalog in
        let path = FileManager.default.temporaryDirectory.appending(path: "store-bench-\(getpid()).sqlite").path
        return try await prepare(path) { try SQLiteCatalog.openForServing(atPath: path, readers: connections) }
    }

    /// The catalog at `location` with the feed imported, opened for serving by `open`.
    static func prepare(_ location: String, open: () throws -> any CatalogStore) async throws -> Catalog {
        let service = try WaterfallService.open(path: location)
        if try await !service.feeds().feeds.contains(where: { $0.name == feed }) {
            _ = try await service.importFeed(contentsOf: makeFeed(), options: .init(feedName: feed))
        }
        let store = try open()
        let (feedID, keys) = try await store.read { transaction in
            let record = try transaction.feed(named: feed)!
            return (record.id, try transaction.images(feedID: record.id, fromKey: .min, limit: images).map(\.key))
        }
        return Catalog(store: store, feedID: feedID, keys: keys)
    }

    /// A feed file of ``images`` images in sections of 1,000.
    static func makeFeed() throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "store-bench-\(getpid()).json").path
        var json = "{\"images\":["
        for index in 0..<images {
            if index > 0 { json += "," }
            json +=
                "{\"id\":\"img-\(index)\",\"width\":640,\"height\":\(360 + index % 7 * 40),\"section\":\"s\(index / 1_000)\"}"
        }
        json += "]}"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// The page read, in its three ways.
enum PageRead {
    typealias Way = @Sendable (Fixture.Catalog, _ key: Int64) async throws -> Int

    /// One transaction, its body synchronous: on GRDB's reader (SQLite), on the lane (PostgreSQL).
    static let inOneTransaction: Way = { catalog, key in
        try await catalog.store.read { transaction in
            _ = try transaction.feed(named: Fixture.feed)
            _ = try transaction.layout(feedID: catalog.feedID, name: "default")
            let images = try transaction.images(feedID: catalog.feedID, fromKey: key, limit: 100)
            return try transaction.sections(ids: Array(Set(images.map(\.sectionID)))).count + images.count
        }
    }

    /// One transaction, each statement awaited (PostgreSQL).
    static let awaited: Way = { catalog, key in
        try await catalog.store.readAwaitingStatements { reads in
            _ = try await reads.feed(named: Fixture.feed)
            _ = try await reads.layout(feedID: catalog.feedID, name: "default")
            let images = try await reads.images(feedID: catalog.feedID, fromKey: key, limit: 100)
            return try await reads.sections(ids: Array(Set(images.map(\.sectionID)))).count + images.count
        }!
    }

    /// Each statement its own awaited read (SQLite).
    static let hopPerStatement: Way = { catalog, key in
        let store = catalog.store
        _ = try await store.read { try $0.feed(named: Fixture.feed) }
        _ = try await store.read { try $0.layout(feedID: catalog.feedID, name: "default") }
        let images = try await store.read { try $0.images(feedID: catalog.feedID, fromKey: key, limit: 100) }
        let sectionIDs = Array(Set(images.map(\.sectionID)))
        return try await store.read { try $0.sections(ids: sectionIDs) }.count + images.count
    }

    /// ``Fixture/transactions`` reads from keys spread over the feed, `concurrency` at a time.
    static func run(_ catalog: Fixture.Catalog, concurrency: Int, _ way: @escaping Way) async throws -> Int {
        let keys = catalog.keys
        let step = max(1, (keys.count - 100) / Fixture.transactions)
        return try await withThrowingTaskGroup(of: Int.self) { group in
            var total = 0
            for index in 0..<Fixture.transactions {
                if index >= concurrency { total += try await group.next()! }
                let key = keys[index * step % (keys.count - 100)]
                group.addTask { try await way(catalog, key) }
            }
            for try await rows in group { total += rows }
            return total
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal], warmupIterations: 2, maxDuration: .seconds(20), maxIterations: 30)
    var engines: [(name: String, catalog: Task<Fixture.Catalog, any Error>, ways: [(String, PageRead.Way)])] = [
        (
            "SQLite", Fixture.sqlite,
            [
                ("in one transaction", PageRead.inOneTransaction),
                ("a hop per statement", PageRead.hopPerStatement),
            ]
        )
    ]
    if Fixture.postgresURL != nil {
        engines.append(
            (
                "PostgreSQL", Fixture.postgres,
                [
                    ("on the lane", PageRead.inOneTransaction),
                    ("awaited", PageRead.awaited),
                ]
            ))
    }
    for engine in engines {
        for concurrency in [1, 32] {
            for (name, way) in engine.ways {
                Benchmark(
                    "\(engine.name): 400 page reads, \(concurrency) at once, \(name)", configuration: configuration
                ) { benchmark in
                    let catalog = try await engine.catalog.value
                    benchmark.startMeasurement()
                    blackHole(try await PageRead.run(catalog, concurrency: concurrency, way))
                }
            }
        }
    }
}
