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

    /// Brings what this server keeps of a feed to the revision a write of this server has just
    /// committed, before the write returns, for `patience` at most (a server's:
    /// ``keptAlongPatience``): the follow of the change log and the placement of the named
    /// layouts kept are the writer's work, not its next reader's. What the follow reads was read
    /// in the write's transaction, on the writer's connection (``keptAlong(feed:_:)``).
    ///
    /// A server takes the catalog for changed by its own write when the write returns (on
    /// PostgreSQL its watcher leaves out the notifications of its own commits, ``CommitTag``),
    /// so the answers it has kept of the revision before are served until the kept feed is at
    /// the new one (an answer not kept reads the new revision at once, and awaits the writer's
    /// work under way). Before, on PostgreSQL, every request for the feed waited, after each
    /// move, for the one that followed the change log and read its page in one transaction
    /// (nine statements, each awaited): the tail of a deep page under a writer (issue 53). A
    /// server on SQLite, whose readers see a commit at once, does not do it
    /// (``keepingFeeds(_:bringingWritesAlong:)``). A feed not kept is left to its readers (a
    /// write loads nothing), and so is a layout kept for a configuration sent with a request,
    /// or a view's. A change too large to follow (a re-import that rewrote every url) is left
    /// to the readers too, who load the feed anew.
    func keepAlong(_ along: KeptAlong, for patience: Duration) async {
        let end = ContinuousClock.now + patience
        // The tasks it starts read; none is the write's, whatever they may do one day.
        await CommitTag.$current.withValue(nil) {
            if let follow = along.follow, let task = keptFeeds?.bring(follow, database: database) {
                guard await task.ends(within: ContinuousClock.now.duration(to: end)) else { return }
            }
            for query in along.layouts {
                guard await keep(query, until: end, awaitingLoad: false) else { return }
            }
        }
    }

    /// How long a server's write awaits its kept feed brought along (``keepAlong(_:for:)``): what is not
    /// done by then goes on for the readers, who until the write returns are served the
    /// answers kept of the revision before (a quarter of a second at most, where a move's
    /// follow took 15 to 20 ms under 64 readers on PostgreSQL).
    public static let keptAlongPatience: Duration = .milliseconds(250)

    /// What a write brings along of the feed `name`, read last in its transaction at the
    /// revision it made, on the writer's connection rather than in a transaction of its own on
    /// a reader's: the follow of the kept copy (``KeptFeeds/written(_:_:)``), and the named
    /// layouts of the feed whose configurations this server keeps. `nil` when it keeps nothing
    /// of the feed.
    ///
    /// Its statements are the write's: one that fails fails the write, as PostgreSQL aborts a
    /// transaction at its first failed statement (a savepoint around them would cost every
    /// write two more round trips). They are few and bounded: the change log since the copy's
    /// revision (``KeptGeometry/changeRowLimit`` rows at most), the rows and neighbours of the
    /// images it names, the section ids, the layouts; on the connection that has just written.
    func keptAlong(feed name: String, _ tx: any CatalogTransaction) throws -> KeptAlong? {
        guard let keptFeeds, let feed = try tx.feed(named: name) else { return nil }
        let follow = try keptFeeds.written(feed, tx)
        let kept = keptFeeds.keptLayoutKeys(feedID: feed.id)
        guard follow != nil || !kept.isEmpty else { return nil }
        let layouts = try kept.isEmpty ? [] : tx.layouts(feedID: feed.layoutFeedID)
        return KeptAlong(
            follow: follow,
            layouts: layouts.compactMap { record in
                (try? LayoutSource.named(record.name).resolved(feed: feed, record: record)).flatMap {
                    kept.contains($0.key) ? $0 : nil
                }
            })
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

/// What a server's write brings along of a feed it keeps (``WaterfallService/keepAlong(_:for:)``).
struct KeptAlong: Sendable {
    /// The follow of the copy, read by the write.
    var follow: WrittenFollow?
    /// The named layouts kept of the feed, at the write's revision.
    var layouts: [LayoutQuery]
}

/// Where the kept feed of a query stands, for ``WaterfallService/keepFeedsNow(within:)`` and
/// ``WaterfallService/keepAlong(_:for:)``.
private struct KeepWork: EngineWork {
    let service: WaterfallService
    let query: LayoutQuery
    let awaitingLoad: Bool

    func run<Kind: StreamingLayoutKind>(_ engine: Kind) -> KeptRead<Void> {
        service.keptPlacement(engine: engine, query, as: .placing(awaitingLoad: awaitingLoad)).map { _ in () }
    }
}
