import WaterfallLayout
import WaterfallStore

extension WaterfallService {
    /// Brings into memory every feed the kept feeds' budget holds, with its named layouts
    /// placed, awaited: a server does it before it listens (DESIGN section 15), so that its
    /// first readers find their feeds kept. Without it they are answered from the layout cache
    /// in the database while the feed loads (half a second for a million images on SQLite,
    /// 2.4 s on PostgreSQL), and that cache may be far behind the feed: a keeping server writes
    /// no checkpoints back, so after a day of moves a fresh instance's first page laid a
    /// million images out from their rows (3.4 s on PostgreSQL).
    ///
    /// Feeds by name, each as far as the budget holds it, with its first ``KeptFeeds/layoutsPerFeed``
    /// named layouts by name (a feed keeps no more); a feed without a named layout is left to
    /// its first reader (a layout is what a placement places). A failure (the database away)
    /// leaves the rest to the readers, as without it. Returns the feeds and images kept.
    public func keepFeedsNow() async -> (feeds: Int, images: Int) {
        guard let keptFeeds else { return (0, 0) }
        let catalog = try? await database.read { tx in
            try tx.feeds().map { feed in (feed, try tx.layouts(feedID: feed.layoutFeedID)) }
        }
        for (feed, layouts) in catalog ?? [] {
            for record in layouts.prefix(KeptFeeds.layoutsPerFeed) {
                guard let query = try? LayoutSource.named(record.name).resolved(feed: feed, record: record) else {
                    continue
                }
                await keep(query)
            }
        }
        let report = keptFeeds.report
        return (report.count, report.reduce(0) { $0 + $1.images })
    }

    /// Loads `query`'s feed and places its layout, each awaited, as a reader whose snapshot
    /// showed the feed would (at most ``readsPerAnswer`` waits: a load, a placement, and the
    /// feed's newer revisions met meanwhile).
    private func keep(_ query: LayoutQuery) async {
        for _ in 0..<Self.readsPerAnswer {
            guard let found = try? query.configuration.withEngine(KeepWork(service: self, query: query)) else {
                return
            }
            switch found {
            case .wait(let task), .started(let task): await task.value
            case .ready, .ahead, .lead, .notKept: return
            }
        }
    }
}

/// Where the kept feed of a query stands, for ``WaterfallService/keepFeedsNow()``.
private struct KeepWork: EngineWork {
    let service: WaterfallService
    let query: LayoutQuery

    func run<Kind: StreamingLayoutKind>(_ engine: Kind) -> KeptRead<Void> {
        service.keptPlacement(engine: engine, query, awaitingLoad: true).map { _ in () }
    }
}
