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

    /// Brings what this server keeps of a feed (its copy, and `layouts`, the named layouts of it
    /// that it keeps, as ``keptLayouts(feed:_:)`` found them in the write's transaction) to the
    /// revision a write of this server has just committed, before the write returns, for
    /// ``keptWorkPatience`` at most: the follow of the change log and the layouts' placement
    /// are the writer's work, not its next reader's.
    ///
    /// A server takes the catalog for changed by its own write when the write returns (on
    /// PostgreSQL its watcher leaves out the notifications of its own commits, ``CommitTag``),
    /// so its readers go on with the answers of the revision before until the kept feed is at
    /// the new one. Before, on PostgreSQL, every request for the feed waited, after each move,
    /// for the one that followed the change log and read its page in one transaction (nine
    /// statements, each awaited): the tail of a deep page under a writer (issue 53). On SQLite
    /// readers see the commit at once, and one of them may lead the follow first: the writer
    /// then awaits it. A feed not kept is left to its readers (a write loads nothing), and so
    /// is a layout kept for a configuration sent with a request. A change too large to follow
    /// (a re-import that rewrote every url) loads the feed anew, awaited as long at most; its
    /// readers meanwhile are answered from the layout cache, as during any load.
    func keepAlong(_ layouts: [LayoutQuery]) async {
        let end = ContinuousClock.now + Self.keptWorkPatience
        for query in layouts {
            guard await keep(query, until: end, awaitingLoad: false) else { return }
        }
    }

    /// The named layouts of the feed `name` whose configurations this server keeps, at the
    /// revision `tx` shows, read at the end of a write's transaction (two short statements on
    /// the writer's connection, rather than a transaction of their own on a reader's); none when
    /// it keeps nothing of the feed.
    func keptLayouts(feed name: String, _ tx: any CatalogTransaction) throws -> [LayoutQuery] {
        guard let keptFeeds, view == nil, let feed = try tx.feed(named: name) else { return [] }
        let kept = keptFeeds.keptLayoutKeys(feedID: feed.id)
        guard !kept.isEmpty else { return [] }
        return try tx.layouts(feedID: feed.layoutFeedID).compactMap { record in
            (try? LayoutSource.named(record.name).resolved(feed: feed, record: record)).flatMap {
                kept.contains($0.key) ? $0 : nil
            }
        }
    }

    /// Loads `query`'s feed and places its layout, each awaited until `end` at most, as a reader
    /// whose snapshot showed the feed would (`awaitingLoad`: whatever the feed's size, else as
    /// a reader awaits a load it starts). Whether to go on with the next: `false` past `end`,
    /// or when a load failed (the feed is found without a copy again after it).
    private func keep(_ query: LayoutQuery, until end: ContinuousClock.Instant, awaitingLoad: Bool = true) async
        -> Bool
    {
        var loaded = false
        for _ in 0..<Self.readsPerAnswer {
            let work = KeepWork(service: self, query: query, awaitingLoad: awaitingLoad)
            guard let found = try? query.configuration.withEngine(work) else { return true }
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

/// Where the kept feed of a query stands, for ``WaterfallService/keepFeedsNow(within:)`` and
/// ``WaterfallService/keepAlong(_:)``.
private struct KeepWork: EngineWork {
    let service: WaterfallService
    let query: LayoutQuery
    let awaitingLoad: Bool

    func run<Kind: StreamingLayoutKind>(_ engine: Kind) -> KeptRead<Void> {
        service.keptPlacement(engine: engine, query, awaitingLoad: awaitingLoad).map { _ in () }
    }
}
