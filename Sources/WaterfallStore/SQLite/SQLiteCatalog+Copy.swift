import GRDB

extension SQLiteCatalog: CatalogFileCopying {
    /// Copies the catalog into a new file at `path` with SQLite's online backup API, in one
    /// step inside one read transaction: the copy is the snapshot `body` reads, whatever other
    /// connections (a server's writer, another process) commit meanwhile, and none of them
    /// waits for it. The copy keeps the catalog's page size, `application_id` and WAL mode.
    /// - Throws: what `body` throws; ``StoreError`` naming `name` for a failure to create or
    ///   write the copy, naming the catalog for a failure to read it.
    public func copy<T: Sendable>(
        to path: String, shownAs name: String, reading body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T {
        let destination: DatabaseQueue
        do {
            var configuration = Configuration()
            configuration.label = "waterfall-copy"
            destination = try DatabaseQueue(path: path, configuration: configuration)
        } catch let error as DatabaseError {
            throw error.resultCode == .SQLITE_FULL
                ? StoreError(databaseError: error, path: name)
                : StoreError(.cannotCreate, "\(name): cannot be created: \(error.message ?? "\(error.resultCode)").")
        }
        defer { try? destination.close() }
        return try await translatingErrors {
            try await Self.readTransaction(writer) { source in
                let result = try body(SQLiteTransaction(db: source))
                do {
                    try destination.writeWithoutTransaction { target in try source.backup(to: target) }
                } catch let error as DatabaseError {
                    throw StoreError(databaseError: error, path: name)
                }
                return result
            }
        }
    }
}
