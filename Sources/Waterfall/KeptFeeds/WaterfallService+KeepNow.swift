import WaterfallLayout
import WaterfallStore

extension WaterfallService {
    /// Brings feeds into memory with their named layouts placed, awaited: a server does it
    /// before it listens (DESIGN section 15), so that its first readers find their feeds kept.
    /// Without it they are answered from the layout cache in the database while the feed loads
    /// (half a second for a million images on SQLite, 2.4 s on PostgreSQL), and that cache may
    /// be far behind the feed: a keeping server writes no checkpoints back, so after a day of
    /// moves a fresh instance's first page laid a million images out from their rows (3.4 s on
    /// PostgreSQL).
    ///
    /// - Which: the feeds with named layouts, smallest first, into half of the budget at most
    ///   (the rest is left to the feeds readers ask for first, as without it: a kept feed is
    ///   never dropped for another, so a large feed named first must not take it all), each
    ///   with its first ``KeptFeeds/layoutsPerFeed`` named layouts by name (a feed keeps no
    ///   more). A feed without a named layout is left to its first reader (a layout is what a
    ///   placement places).
    /// - How long: `limit` at most, and it stops at the first load that fails (the database
    ///   away, or slow): what it has not kept is left to the readers, and a load under way at
    ///   the limit goes on for them.
    ///
    /// Returns the feeds and images kept.
    public func keepFeedsNow(within limit: Duration = .seconds(30)) async -> (feeds: Int, images: Int) {
        guard let keptFeeds else { return (0, 0) }
        let end = ContinuousClock.now + limit
        let catalog = try? await database.read { tx in
            try tx.feeds().map { feed in (feed, try tx.layouts(feedID: feed.layoutFeedID)) }
        }
        preloading: for (feed, layouts) in (catalog ?? []).sorted(by: { $0.0.imageCount < $1.0.imageCount }) {
            guard !layouts.isEmpty else { continue }
            let kept = keptFeeds.report.reduce(0) { $0 + $1.bytes }
            guard kept + feed.imageCount * KeptGeometry.bytesPerImage <= keptFeeds.budget / 2 else { break }
            for record in layouts.prefix(KeptFeeds.layoutsPerFeed) {
                guard let query = try? LayoutSource.named(record.name).resolved(feed: feed, record: record) else {
                    continue
                }
                guard await keep(query, until: end) else { break preloading }
            }
        }
        let report = keptFeeds.report
        return (report.count, report.reduce(0) { $0 + $1.images })
    }

    /// Loads `query`'s feed and places its layout, each awaited until `end` at most, as a reader
    /// whose snapshot showed the feed would. Whether to go on with the next: `false` past
    /// `end`, or when a load failed (the feed is found without a copy again after it).
    private func keep(_ query: LayoutQuery, until end: ContinuousClock.Instant) async -> Bool {
        var loaded = false
        for _ in 0..<Self.readsPerAnswer {
            guard let found = try? query.configuration.withEngine(KeepWork(service: self, query: query)) else {
                return true
            }
            switch found {
            case .started(let task):
                if loaded { return false }
                loaded = true
                guard await task.ends(within: ContinuousClock.now.duration(to: end)) else { return false }
            case .wait(let task):
                guard await task.ends(within: ContinuousClock.now.duration(to: end)) else { return false }
            case .ready, .ahead, .lead, .notKept:
                return true
            }
        }
        return true
    }
}

/// Where the kept feed of a query stands, for ``WaterfallService/keepFeedsNow(within:)``.
private struct KeepWork: EngineWork {
    let service: WaterfallService
    let query: LayoutQuery

    func run<Kind: StreamingLayoutKind>(_ engine: Kind) -> KeptRead<Void> {
        service.keptPlacement(engine: engine, query, awaitingLoad: true).map { _ in () }
    }
}
