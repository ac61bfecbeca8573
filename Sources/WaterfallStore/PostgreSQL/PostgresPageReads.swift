import PostgresNIO

/// ``CatalogPageReads`` on PostgreSQL: the statements of ``PostgresTransaction``'s methods of
/// the same names, prepared once per connection and awaited.
struct PostgresPageReads: CatalogPageReads {
    let session: PostgresSession

    func feed(named name: String) async throws -> FeedRecord? {
        try await session.rowsAwaitingAnswer(PostgresStatement.FeedByName.self, .text(name)).first.map(
            FeedRecord.init(postgres:))
    }

    func feed(id: Int64) async throws -> FeedRecord? {
        try await session.rowsAwaitingAnswer(PostgresStatement.FeedByID.self, .int(id)).first.map(
            FeedRecord.init(postgres:))
    }

    func view(feedID: Int64, name: String) async throws -> ViewRecord? {
        try await session.rowsAwaitingAnswer(PostgresStatement.ViewByName.self, .int(feedID), .text(name)).first.map(
            ViewRecord.init(postgres:))
    }

    func layout(feedID: Int64, name: String) async throws -> NamedLayoutRecord? {
        try await session.rowsAwaitingAnswer(PostgresStatement.LayoutByName.self, .int(feedID), .text(name)).first.map(
            NamedLayoutRecord.init(postgres:))
    }

    func images(feedID: Int64, fromKey key: Int64, limit: Int) async throws -> [ImageRecord] {
        try await session.rowsAwaitingAnswer(
            PostgresStatement.ImagesFromKey.self, .int(feedID), .int(key), .int(Int64(limit))
        )
        .map(ImageRecord.init(postgres:))
    }

    /// ``CatalogStore/images(feedID:fromKey:limit:atRevision:)``'s statement.
    func images(feedID: Int64, fromKey key: Int64, limit: Int, atRevision revision: Int64) async throws
        -> [ImageRecord]
    {
        try await session.rowsAwaitingAnswer(
            PostgresStatement.ImagesFromKeyAtRevision.self, .int(feedID), .int(revision), .int(key),
            .int(Int64(limit))
        )
        .map(ImageRecord.init(postgres:))
    }

    func sections(ids: [Int64]) async throws -> [SectionRecord] {
        guard !ids.isEmpty else { return [] }
        return try await session.rowsAwaitingAnswer(PostgresStatement.SectionsByID.self, .ints(ids)).map(
            SectionRecord.init(postgres:))
    }

    func takenAtRanges(sectionIDs: [Int64]) async throws -> [Int64: ClosedRange<Int64>] {
        var ranges: [Int64: ClosedRange<Int64>] = [:]
        guard !sectionIDs.isEmpty else { return ranges }
        for row in try await session.rowsAwaitingAnswer(PostgresStatement.TakenAtRanges.self, .ints(sectionIDs)) {
            let (id, earliest, latest) = try row.decode((Int64, Int64?, Int64?).self)
            if let earliest, let latest { ranges[id] = earliest...latest }
        }
        return ranges
    }

    func sections(feedID: Int64) async throws -> [SectionRecord] {
        try await session.rowsAwaitingAnswer(PostgresStatement.SectionsOfFeed.self, .int(feedID)).map(
            SectionRecord.init(postgres:))
    }

    func changes(feedID: Int64, since revision: Int64, limit: Int) async throws -> [ChangeRecord] {
        try await session.rowsAwaitingAnswer(
            PostgresStatement.ChangesSince.self, .int(feedID), .int(revision), .int(Int64(limit))
        )
        .map(ChangeRecord.init(postgres:))
    }

    func sectionIDs(feedID: Int64) async throws -> [Int64] {
        try await session.rowsAwaitingAnswer(PostgresStatement.SectionIDsOfFeed.self, .int(feedID)).map {
            try $0.decode(Int64.self)
        }
    }

    func images(feedID: Int64, externalIDs: [String]) async throws -> [ImageRecord] {
        guard !externalIDs.isEmpty else { return [] }
        return try await session.rowsAwaitingAnswer(
            PostgresStatement.ImagesByIDs.self, .int(feedID), .texts(externalIDs)
        )
        .map(ImageRecord.init(postgres:))
    }

    func neighbourKeys(feedID: Int64, of keys: [Int64]) async throws -> [Int64: NeighbourKeys] {
        guard !keys.isEmpty else { return [:] }
        return try NeighbourKeys.byKey(
            await session.rowsAwaitingAnswer(PostgresStatement.NeighbourKeys.self, .int(feedID), .ints(keys)))
    }
}
