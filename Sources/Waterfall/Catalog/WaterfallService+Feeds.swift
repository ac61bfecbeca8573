import WaterfallStore
import WaterfallSync

extension WaterfallService {
    /// Opens the catalog at `path` (a file or a `postgres://` URL) for a long-lived server:
    /// reads in parallel on a pool of connections, one write at a time (see
    /// ``CatalogLocation/openForServing(_:)``).
    /// - Throws: ``WaterfallError`` `cannotCreate` or `database`.
    public static func openForServing(path: String) throws(WaterfallError) -> WaterfallService {
        do {
            return WaterfallService(database: try CatalogLocation.openForServing(path))
        } catch {
            throw WaterfallError(error)
        }
    }

    /// A watcher of the database's commits, by this process or any other (see ``ChangeWatcher``),
    /// but for those of writes made under ``CommitTag`` `tag` where the engine can tell them
    /// (``CatalogStore/makeChangeWatcher(ignoringCommitsTagged:)``).
    /// - Throws: ``WaterfallError`` `database` for an in-memory database.
    public func makeChangeWatcher(ignoringCommitsTagged tag: String? = nil) async throws(WaterfallError)
        -> any ChangeWatcher
    {
        do {
            return try await database.makeChangeWatcher(ignoringCommitsTagged: tag)
        } catch {
            throw WaterfallError(error)
        }
    }

    /// Every feed's incarnation and revision, by name (one short read): what the events stream
    /// compares after each commit to see which feeds moved on, or were removed and made anew.
    public func feedVersions() async throws(WaterfallError) -> [String: FeedVersion] {
        try await perform { try await database.read { tx in try tx.feedVersions() } }
    }

    /// One feed with its counts, as ``feeds()`` lists it.
    /// - Throws: ``WaterfallError/unknownFeed(_:)``.
    public func feed(named name: String) async throws(WaterfallError) -> FeedList.Feed {
        try await perform {
            try await database.read { tx in
                guard let summary = try tx.feedSummary(named: name) else {
                    throw WaterfallError.unknownFeed(name)
                }
                return FeedList.Feed(
                    name: summary.name, images: summary.images, sections: summary.sections,
                    revision: summary.revision, incarnation: summary.id, layouts: summary.layouts)
            }
        }
    }

    /// Removes a feed and everything of it (images, sections, change log, layouts, cache), in
    /// one transaction.
    /// - Throws: ``WaterfallError/unknownFeed(_:)``.
    public func removeFeed(named name: String) async throws(WaterfallError) {
        let id = try await perform {
            try await writeContent(.feed(name)) { tx in
                let feed = try resolveFeed(name, tx)
                try tx.deleteFeed(id: feed.id)
                return feed.id
            }
        }
        // What a server kept of it goes too (a removal by another process is noticed when a
        // read finds the copy disagreeing with the catalog).
        keptFeeds?.forget(feedID: id)
    }

    /// Reads, validates and imports a feed document that a front end received as a stream and
    /// kept in the file at `path` (a request body): `source` names it in messages, and the feed
    /// is `name`, which the document's own `feed` field, when it has one, must equal.
    /// - Throws: ``WaterfallError`` `invalidData` for a bad document or one naming another feed,
    ///   `conflictingValues` for contradicting options, `database` when writing fails.
    public func importFeed(
        contentsOf path: String, format: FeedFormat, source: String, named name: String, options: ImportOptions
    ) async throws(WaterfallError) -> ChangeSummary {
        try Self.validateName(name, .feedName)
        if options.resetOrder && options.mode == .append {
            throw WaterfallError.conflictingValues(.resetOrder, .appendMode)
        }
        let document = try performNow { try FeedDecoder().decode(contentsOf: path, format: format, source: source) }
        if let named = document.feed, !named.isExactly(name) {
            throw WaterfallError.invalidData(
                "\(source): feed: the document names feed \(named.quoted), not \(name.quoted).")
        }
        return try await importFeed(document, named: name, options: options)
    }
}

extension WaterfallService {
    /// Whether the catalog answers and every migration this version knows is applied (a
    /// server's readiness, DESIGN section 19).
    /// - Throws: ``WaterfallError`` when the catalog cannot be read.
    public func migrationsAreCurrent() async throws(WaterfallError) -> Bool {
        try await perform { try await database.read { tx in try tx.migrationsAreCurrent() } }
    }
}
