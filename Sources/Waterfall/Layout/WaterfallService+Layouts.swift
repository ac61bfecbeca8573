import WaterfallLayout
import WaterfallStore

/// A named layout as `layout list` shows it.
public struct NamedLayout: Hashable, Sendable {
    public var name: String
    public var configuration: AnyLayoutConfiguration
}

/// `layout list --json`: a feed's named layouts, by name.
public struct LayoutList: Hashable, Sendable {
    public var layouts: [NamedLayout]

    public init(layouts: [NamedLayout]) {
        self.layouts = layouts
    }
}

/// How much of a cached layout is valid: `layout warm` and `stats` report it.
public struct LayoutCoverage: Hashable, Sendable {
    public var feed: String
    /// The names the configuration is saved under (empty for an inline configuration).
    public var layouts: [String]
    /// `waterfall`, `justified`, or `coverflow` for the cache of cover-flow queries.
    public var kind: String
    /// The configuration; nil for a cover flow's cache (its key is a ``CoverFlowConfiguration``).
    public var configuration: AnyLayoutConfiguration?
    public var checkpoints: Int
    /// Checkpoints a complete cache of a waterfall holds: one per `stride` images after the
    /// first chunk. Absent for justified rows, whose checkpoints wait for a row start (their
    /// number is known only by laying the feed out).
    public var expectedCheckpoints: Int?
    public var complete: Bool
}

extension WaterfallService {
    /// Saves `configuration` under `name` for a feed (replacing a layout of that name).
    /// Returns whether a layout of that name existed.
    /// - Throws: ``WaterfallError`` `usage` for a bad name or configuration.
    @discardableResult
    public func addLayout(feed: String?, name: String, configuration: AnyLayoutConfiguration)
        async throws(WaterfallError) -> Bool
    {
        try Self.validateName(name, .layoutName)
        try performNow { try configuration.validate() }
        return try await perform {
            try await writeContent(.feed(named: feed)) { tx in
                let feed = try resolveFeedToEdit(feed, tx)
                let existed = try tx.layout(feedID: feed.id, name: name) != nil
                try tx.saveLayout(
                    feedID: feed.id, NamedLayoutRecord(name: name, configuration: configuration.canonicalJSON))
                return existed
            }
        }
    }

    /// The named layouts of a feed, by name.
    public func layouts(feed: String?) async throws(WaterfallError) -> [NamedLayout] {
        try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                return try tx.layouts(feedID: feed.layoutFeedID).map {
                    NamedLayout(
                        name: $0.name, configuration: try AnyLayoutConfiguration.fromCanonicalJSON($0.configuration))
                }
            }
        }
    }

    /// The configuration saved under `name` for a feed.
    /// - Throws: ``WaterfallError/unknownLayout(feed:layout:)``.
    public func layout(feed: String?, name: String) async throws(WaterfallError) -> AnyLayoutConfiguration {
        try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                return try resolveLayout(.named(name), feed: feed, tx).configuration
            }
        }
    }

    /// Removes a named layout (and its cache entry unless another name shares the configuration).
    /// - Throws: ``WaterfallError`` `invalidData` for an unknown layout.
    public func removeLayout(feed: String?, name: String) async throws(WaterfallError) {
        try await perform {
            try await writeContent(.feed(named: feed)) { tx in
                let feed = try resolveFeedToEdit(feed, tx)
                guard try tx.removeLayout(feedID: feed.id, name: name) else {
                    throw WaterfallError.unknownLayout(feed: feed.name, layout: name)
                }
            }
        }
    }

    /// Computes and stores every checkpoint of a layout now, so that the next query at any depth
    /// reads O(stride + limit) rows. Returns the coverage afterwards.
    public func warmLayout(feed: String?, layout: LayoutSource) async throws(WaterfallError) -> LayoutCoverage {
        let (update, feedName, name, configuration) = try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                let query = try resolveLayout(layout, feed: feed, tx)
                let update = try query.configuration.withEngine(
                    CacheCompletion(key: query.key, feed: feed, stride: stride, tx: tx))
                return (update, feed.name, query.name, query.configuration)
            }
        }
        if let update {
            try await perform {
                try await database.write(.feed(update.feedName)) { tx in
                    let entry = try tx.makeCacheEntry(
                        feedID: update.feedID, configuration: update.configuration, stride: update.stride)
                    _ = try tx.saveLayoutCache(
                        cacheID: entry.id, feedID: update.feedID, revision: update.revision,
                        checkpoints: update.checkpoints, sections: update.sections, end: update.end)
                }
            }
        }
        let coverage = try await stats().layouts
        let key = configuration.canonicalJSON
        return coverage.first { $0.feed == feedName && $0.configuration?.canonicalJSON == key }
            ?? LayoutCoverage(
                feed: feedName, layouts: name.map { [$0] } ?? [], kind: configuration.kind.rawValue,
                configuration: configuration,
                checkpoints: 0, expectedCheckpoints: 0, complete: false)
    }
}

/// What completing the cache of a layout would store (`nil`: it is complete), with the engine
/// of the layout's kind.
private struct CacheCompletion: EngineWork {
    let key: String
    let feed: FeedRecord
    let stride: Int
    let tx: any CatalogTransaction

    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> CacheUpdate? {
        try CachedLayout(tx: tx, feed: feed, name: nil, engine: engine, key: key, stride: stride).update
    }
}
