import WaterfallStore

extension WaterfallService {
    /// Runs `body`, a write of the catalog's content (a feed's images, sections, layouts, views
    /// or share links), in one transaction: committed, or with `dryRun` rolled back. On a mirror
    /// (DESIGN section 21) it is refused before anything is written: a mirror's feeds change
    /// only by following its source (``WaterfallError/mirrorIsReadOnly(source:)``). The layout
    /// cache, API keys and the pruning of the change log are the catalog's own, and written on
    /// a mirror as anywhere. A server's kept feed is brought to what the write committed before
    /// it returns, where its readers move on only then (``keepAlong(_:for:)``).
    func writeContent<T: Sendable>(
        _ scope: WriteScope, dryRun: Bool = false, _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T {
        let guarded = { @Sendable (tx: any CatalogTransaction) throws -> T in
            if let source = try tx.mirrorSource() { throw WaterfallError.mirrorIsReadOnly(source: source) }
            return try body(tx)
        }
        if dryRun { return try await database.dryRun(scope, guarded) }
        // A write given in a view (a move `before`/`after` a member) is a write in the feed, and
        // the feed's copy is brought along as for one given there. The views' memberships, feeds
        // of their own, are left to their readers, whatever route the write came by.
        guard case .feed(let name) = scope, let patience = bringsWritesAlong,
            keptFeeds?.keepsFeed(named: name) == true
        else { return try await database.write(scope, guarded) }
        let (written, along) = try await database.write(scope) { tx in
            (try guarded(tx), try keptAlong(feed: name, tx))
        }
        // Readers move on when it returns; the records they find kept are of the catalog before.
        keptRecords?.committed()
        if let along { await keepAlong(along, for: patience) }
        return written
    }
}
