import GRDB
import Testing
import WaterfallTestSupport

@testable import WaterfallStore

/// A first import's bulk load runs without SQLite's per-row foreign-key and CHECK checks
/// (`SQLiteTransaction.withTrustedRows`). What it writes must still satisfy them, and the
/// checks must be back on for everything after it on the same connection, also when the load
/// fails half-way.
@Suite struct BulkLoadTests {
    /// Enough rows for the bulk path (an empty image table and at least 20,000 rows).
    static let count = 25_000

    /// Image `index` of a bulk load: unicode ids, sizes from 1 to 1,000,000, every tenth without
    /// a url, banners now and then, split between two sections.
    static func image(_ index: Int, sections: (Int64, Int64)) -> ImageRecord {
        ImageRecord(
            key: Int64(index) * 1_024, externalID: "фото-\(index)-é",
            sectionID: index < count / 2 ? sections.0 : sections.1,
            width: Int32(1 + (index * 7_919) % 1_000_000), height: Int32(1_000_000 - (index * 104_729) % 999_999),
            isFullSpan: index % 97 == 0, url: index % 10 == 0 ? nil : "https://example.com/\(index).jpg",
            title: index % 3 == 0 ? "Title \(index)" : nil)
    }

    @Test func whatAFirstBulkLoadWritesPassesEveryCheckItSkipped() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let database = try SQLiteCatalog.open(atPath: folder.path("bulk.sqlite"))
        defer { database.closeWhenDone() }
        try await database.write { tx in
            let feed = try tx.createFeed(named: "f")
            let sections = (
                try tx.insertSection(feedID: feed.id, name: "s1", title: nil, position: 0, isDeclared: true),
                try tx.insertSection(feedID: feed.id, name: nil, title: nil, position: 1, isDeclared: false)
            )
            var index = 0
            try tx.insertImages(feedID: feed.id, count: Self.count, beforeIndexing: nil) {
                defer { index += 1 }
                return Self.image(index, sections: sections)
            }
            try tx.appendInsertChangesForWholeFeed(feedID: feed.id, revision: 1)
            // The checks are on again inside the same transaction.
            let enforced = try Bool.fetchOne(tx.db, sql: "PRAGMA foreign_keys")
            let ignored = try Bool.fetchOne(tx.db, sql: "PRAGMA ignore_check_constraints")
            #expect(enforced == true && ignored == false)
        }
        let (danglingReferences, integrity, images, changes, indexes) = try await database.read { tx in
            (
                try Row.fetchAll(tx.db, sql: "PRAGMA foreign_key_check").count,
                try String.fetchAll(tx.db, sql: "PRAGMA integrity_check"),
                try Int.fetchOne(tx.db, sql: "SELECT count(*) FROM image"),
                try Int.fetchOne(tx.db, sql: "SELECT count(*) FROM change"),
                try Int.fetchOne(
                    tx.db,
                    sql:
                        "SELECT count(*) FROM sqlite_master WHERE tbl_name = 'image' AND type = 'index' AND sql IS NOT NULL"
                )
            )
        }
        #expect(danglingReferences == 0)
        // integrity_check also verifies the CHECK and NOT NULL constraints of every row.
        #expect(integrity == ["ok"])
        // Three: by id, by section, and the sections' dates (DESIGN section 17).
        #expect(images == Self.count && changes == Self.count && indexes == 3)
        // Rows that break the constraints are refused again: a section that does not exist, a
        // width of 0.
        let feedID = try await #require(try database.read { tx in try tx.feed(named: "f") }).id
        await #expect(throws: (any Error).self) {
            try await database.write { tx in
                try tx.insertImages(feedID: feedID, count: 1, beforeIndexing: nil) {
                    ImageRecord(
                        key: -5, externalID: "dangling", sectionID: 424_242, width: 1, height: 1, isFullSpan: false,
                        url: nil, title: nil)
                }
            }
        }
        await #expect(throws: (any Error).self) {
            try await database.write { tx in
                let sectionID = try tx.sections(feedID: feedID)[0].id
                try tx.insertImages(feedID: feedID, count: 1, beforeIndexing: nil) {
                    ImageRecord(
                        key: -5, externalID: "flat", sectionID: sectionID, width: 0, height: 1, isFullSpan: false,
                        url: nil, title: nil)
                }
            }
        }
    }

    @Test func aBulkLoadThatFailsHalfWayLeavesNothingAndTheChecksOn() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let database = try SQLiteCatalog.open(atPath: folder.path("half.sqlite"))
        defer { database.closeWhenDone() }
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await database.write { tx in
                let feed = try tx.createFeed(named: "f")
                let section = try tx.insertSection(
                    feedID: feed.id, name: nil, title: nil, position: 0, isDeclared: false)
                var index = 0
                try tx.insertImages(feedID: feed.id, count: Self.count, beforeIndexing: nil) {
                    defer { index += 1 }
                    if index == 10_000 { throw Stop() }
                    return Self.image(index, sections: (section, section))
                }
            }
        }
        await #expect(try database.read { tx in try tx.feeds() }.isEmpty)
        let (enforced, ignored, integrity) = try await database.write { tx in
            (
                try Bool.fetchOne(tx.db, sql: "PRAGMA foreign_keys"),
                try Bool.fetchOne(tx.db, sql: "PRAGMA ignore_check_constraints"),
                try String.fetchAll(tx.db, sql: "PRAGMA integrity_check")
            )
        }
        #expect(enforced == true && ignored == false && integrity == ["ok"])
        await #expect(throws: (any Error).self) {
            try await database.write { tx in
                let feed = try tx.createFeed(named: "g")
                try tx.insertImages(feedID: feed.id, count: 1, beforeIndexing: nil) {
                    ImageRecord(
                        key: 0, externalID: "dangling", sectionID: 424_242, width: 1, height: 1, isFullSpan: false,
                        url: nil, title: nil)
                }
            }
        }
    }
}
