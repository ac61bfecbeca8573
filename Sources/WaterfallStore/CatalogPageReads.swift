/// The reads an answer from a kept feed makes (DESIGN section 12: an answer reads only its own
/// rows), each awaited (``CatalogStore/readAwaitingStatements(_:)``): on PostgreSQL without
/// blocking a thread while the server answers, on SQLite on the reader connection's thread.
/// Each gives what the ``CatalogTransaction`` method of its name gives, all of them in one
/// snapshot.
public protocol CatalogPageReads: Sendable {
    func feed(named name: String) async throws -> FeedRecord?
    func feed(id: Int64) async throws -> FeedRecord?
    func view(feedID: Int64, name: String) async throws -> ViewRecord?
    func layout(feedID: Int64, name: String) async throws -> NamedLayoutRecord?
    func images(feedID: Int64, fromKey key: Int64, limit: Int) async throws -> [ImageRecord]
    func sections(ids: [Int64]) async throws -> [SectionRecord]
    func sections(feedID: Int64) async throws -> [SectionRecord]
    func takenAtRanges(sectionIDs: [Int64]) async throws -> [Int64: ClosedRange<Int64>]

    // Following the change log.
    func changes(feedID: Int64, since revision: Int64, limit: Int) async throws -> [ChangeRecord]
    func sectionIDs(feedID: Int64) async throws -> [Int64]
    func images(feedID: Int64, externalIDs: [String]) async throws -> [ImageRecord]
    func neighbourKeys(feedID: Int64, of keys: [Int64]) async throws -> [Int64: NeighbourKeys]
}
