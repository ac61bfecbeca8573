import PostgresNIO

/// ``CatalogPageReads`` on PostgreSQL: the statements of ``PostgresTransaction``'s methods of
/// the same names, prepared once per connection and awaited.
struct PostgresPageReads: CatalogPageReads {
    let session: PostgresSession

    func feed(named name: String) async throws -> FeedRecord? {
        try await session.rowsWithoutBlocking(PostgresStatement.FeedByName.self, .text(name)).first.map(FeedRecord.init(postgres:))
    }

    func layout(feedID: Int64, name: String) async throws -> NamedLayoutRecord? {
        try await session.rowsWithoutBlocking(PostgresStatement.LayoutByName.self, .int(feedID), .text(name)).first.map(NamedLayoutRecord.init(postgres:))
    }

    func images(feedID: Int64, fromKey key: Int64, limit: Int) async throws -> [ImageRecord] {
        try await session.rowsWithoutBlocking(PostgresStatement.ImagesFromKey.self, .int(feedID), .int(key), .int(Int64(limit)))
            .map(ImageRecord.init(postgres:))
    }

    func sections(ids: [Int64]) async throws -> [SectionRecord] {
        guard !ids.isEmpty else { return [] }
        return try await session.rowsWithoutBlocking(PostgresStatement.SectionsByID.self, .ints(ids)).map(SectionRecord.init(postgres:))
    }

    func sections(feedID: Int64) async throws -> [SectionRecord] {
        try await session.rowsWithoutBlocking(PostgresStatement.SectionsOfFeed.self, .int(feedID)).map(SectionRecord.init(postgres:))
    }
}
