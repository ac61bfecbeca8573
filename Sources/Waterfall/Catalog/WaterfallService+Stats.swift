import WaterfallLayout
import WaterfallStore

/// `stats`: counts, revisions, cache coverage and the database's size.
public struct DatabaseStats: Hashable, Sendable {
    public var path: String?
    /// The space the catalog takes, in bytes: the SQLite file plus its write-ahead log, or the
    /// PostgreSQL database's size on its server.
    public var databaseBytes: Int64
    public var feeds: [FeedList.Feed]
    public var layouts: [LayoutCoverage]
    /// The feeds a server keeps hot (DESIGN section 12), with their images and bytes; absent
    /// where nothing is kept (a command).
    public var hot: [KeptFeedReport]?
}

extension WaterfallService {
    /// Counts, revisions, how much of each cached layout is valid, and the database's size.
    public func stats() async throws(WaterfallError) -> DatabaseStats {
        try await perform {
            // Measured outside the read: a PostgreSQL catalog asks its server, on a connection
            // the read may be holding.
            let bytes = await database.storageSize()
            return try await database.read { tx in
                let feeds = try tx.feedSummaries().map {
                    FeedList.Feed(
                        name: $0.name, images: $0.images, sections: $0.sections, revision: $0.revision,
                        incarnation: $0.id, layouts: $0.layouts)
                }
                let layouts = try tx.cacheCoverage().map { coverage in
                    let isCoverFlow = coverage.configuration.hasPrefix(CoverFlowConfiguration.cacheKeyPrefix)
                    let configuration =
                        isCoverFlow ? nil : try? AnyLayoutConfiguration.fromCanonicalJSON(coverage.configuration)
                    return LayoutCoverage(
                        feed: coverage.feed, layouts: coverage.names,
                        kind: isCoverFlow ? "coverflow" : configuration?.kind.rawValue ?? "unknown",
                        configuration: configuration,
                        checkpoints: coverage.checkpoints,
                        expectedCheckpoints: configuration?.kind == .justified
                            ? nil : max(0, (coverage.feedImages - 1) / coverage.stride),
                        complete: coverage.isComplete)
                }
                return DatabaseStats(
                    path: database.location, databaseBytes: bytes, feeds: feeds, layouts: layouts,
                    hot: keptFeeds?.report)
            }
        }
    }
}
