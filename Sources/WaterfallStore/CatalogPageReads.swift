/// The reads an answer from a feed held in memory makes (DESIGN section 12: an answer reads only
/// its own rows), as an engine runs them
/// without blocking a thread while the database answers (``CatalogStore/readAwaitingStatements(_:)``).
/// Each gives what the ``CatalogTransaction`` method of its name gives, all of them in one
/// snapshot.
public protocol CatalogPageReads: Sendable {
    func feed(named name: String) async throws -> FeedRecord?
    func layout(feedID: Int64, name: String) async throws -> NamedLayoutRecord?
    func images(feedID: Int64, fromKey key: Int64, limit: Int) async throws -> [ImageRecord]
    func sections(ids: [Int64]) async throws -> [SectionRecord]
    func sections(feedID: Int64) async throws -> [SectionRecord]
    func takenAtRanges(sectionIDs: [Int64]) async throws -> [Int64: ClosedRange<Int64>]
}
