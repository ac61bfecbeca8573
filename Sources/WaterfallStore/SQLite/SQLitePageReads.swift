import GRDB

/// ``CatalogPageReads`` on SQLite: ``SQLiteTransaction``'s methods of the same names, in the
/// read transaction of ``SQLiteCatalog/readAwaitingStatements(_:)``. Each answers at once.
///
/// Sendable as the protocol asks, but used on one thread only: the connection's, where
/// ``TransactionPump`` runs every part of the body that holds it, inside the transaction.
struct SQLitePageReads: CatalogPageReads, @unchecked Sendable {
    let tx: SQLiteTransaction

    func feed(named name: String) async throws -> FeedRecord? { try tx.feed(named: name) }
    func feed(id: Int64) async throws -> FeedRecord? { try tx.feed(id: id) }
    func view(feedID: Int64, name: String) async throws -> ViewRecord? { try tx.view(feedID: feedID, name: name) }
    func layout(feedID: Int64, name: String) async throws -> NamedLayoutRecord? {
        try tx.layout(feedID: feedID, name: name)
    }
    func images(feedID: Int64, fromKey key: Int64, limit: Int) async throws -> [ImageRecord] {
        try tx.images(feedID: feedID, fromKey: key, limit: limit)
    }
    func sections(ids: [Int64]) async throws -> [SectionRecord] { try tx.sections(ids: ids) }
    func sections(feedID: Int64) async throws -> [SectionRecord] { try tx.sections(feedID: feedID) }
    func takenAtRanges(sectionIDs: [Int64]) async throws -> [Int64: ClosedRange<Int64>] {
        try tx.takenAtRanges(sectionIDs: sectionIDs)
    }
    func changes(feedID: Int64, since revision: Int64, limit: Int) async throws -> [ChangeRecord] {
        try tx.changes(feedID: feedID, since: revision, limit: limit)
    }
    func sectionIDs(feedID: Int64) async throws -> [Int64] { try tx.sectionIDs(feedID: feedID) }
    func images(feedID: Int64, externalIDs: [String]) async throws -> [ImageRecord] {
        try tx.images(feedID: feedID, externalIDs: externalIDs)
    }
    func neighbourKeys(feedID: Int64, of keys: [Int64]) async throws -> [Int64: NeighbourKeys] {
        try tx.neighbourKeys(feedID: feedID, of: keys)
    }
}
