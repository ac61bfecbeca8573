import WaterfallStore
import WaterfallSync

extension WaterfallService {
    /// Moves one image: before or after another image (into that image's section), or to an
    /// index inside its own section. With `dryRun`, reports what would change and writes nothing.
    /// - Throws: ``WaterfallError`` `invalidData` for an unknown id or an index outside the section.
    public func move(feed: String?, id: String, to target: MoveTarget, dryRun: Bool = false)
        async throws(WaterfallError) -> ChangeSummary
    {
        try await perform {
            let body = { @Sendable (tx: any CatalogTransaction) throws -> ChangeSummary in
                var editor = CatalogEditor(tx: tx, feed: try resolveFeedToEdit(feed, tx))
                try editor.move(id, to: target)
                return try editor.finish()
            }
            return try await edit(feed: feed, dryRun: dryRun, body)
        }
    }

    /// Removes images by id, all or none.
    /// - Throws: ``WaterfallError`` `invalidData` naming the first unknown id.
    public func remove(feed: String?, ids: [String]) async throws(WaterfallError) -> ChangeSummary {
        try await perform {
            try await writeContent(.feed(named: feed)) { tx in
                var editor = CatalogEditor(tx: tx, feed: try resolveFeedToEdit(feed, tx))
                var seen: Set<ExactString> = []
                for id in ids where seen.insert(ExactString(id)).inserted {
                    try editor.remove(id)
                }
                return try editor.finish()
            }
        }
    }

    /// Runs `body` in a write to `feed` (the catalog's only feed when `nil`): committed, or
    /// with `dryRun` rolled back.
    private func edit<T: Sendable>(
        feed: String?, dryRun: Bool, _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T {
        try await writeContent(.feed(named: feed), dryRun: dryRun, body)
    }

    /// Reads, validates and applies a reorder file: all of it in one transaction, or none of it.
    /// The feed is the file's `feed` field, else `feed`, else the database's only feed.
    public func reorder(contentsOf path: String, feed: String?) async throws(WaterfallError) -> ChangeSummary {
        let document = try performNow { try ReorderDecoder().decode(contentsOf: path) }
        let source = path == "-" ? "<stdin>" : path
        return try await reorder(document, feed: feed, source: source)
    }

    /// Applies a decoded reorder document: moves in order, then removals; or an order list.
    /// With `dryRun`, reports what would change and writes nothing.
    public func reorder(
        _ document: ReorderDocument, feed: String?, source: String = "reorder", dryRun: Bool = false
    ) async throws(WaterfallError) -> ChangeSummary {
        try await perform {
            let body = { @Sendable (tx: any CatalogTransaction) throws -> ChangeSummary in
                var editor = CatalogEditor(tx: tx, feed: try resolveFeedToEdit(document.feed ?? feed, tx))
                switch document.operations {
                case .order(let ids):
                    try editor.applyOrder(ids, place: "\(source): ")
                case .edits(let moves, let removals):
                    for move in moves {
                        try editor.move(move.id, to: move.target, place: "\(source): \(move.path): ")
                    }
                    for (index, id) in removals.enumerated() {
                        try editor.remove(id, place: "\(source): remove[\(index)]: ")
                    }
                }
                return try editor.finish()
            }
            return try await edit(feed: document.feed ?? feed, dryRun: dryRun, body)
        }
    }
}

extension WaterfallService {
    /// Decodes and applies a reorder document a front end received whole (a request body) for
    /// the feed `feed`: `source` names it in messages, and its own `feed` field, when it has
    /// one, must equal `feed`. With `dryRun`, reports what would change and writes nothing.
    /// - Throws: ``WaterfallError`` `invalidData` for a bad document or one naming another feed,
    ///   `unknownFeed`, `unknownImage`, `moveOntoItself`, `indexOutsideSection`.
    public func reorder(_ bytes: [UInt8], source: String, feed: String, dryRun: Bool = false)
        async throws(WaterfallError) -> ChangeSummary
    {
        let document = try performNow { try ReorderDecoder().decode(bytes, source: source) }
        if let named = document.feed, !named.isExactly(feed) {
            throw WaterfallError.invalidData(
                "\(source): feed: the document names feed \(named.quoted), not \(feed.quoted).")
        }
        return try await reorder(document, feed: feed, source: source, dryRun: dryRun)
    }
}
