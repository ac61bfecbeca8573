import GRDB
import Testing
import WaterfallTestSupport
@testable import WaterfallStore

/// Sparse order keys: a move writes one row; a used-up gap renumbers a small window, never the feed.
@Suite struct OrderKeyTests {
    /// A database with one feed of `count` images keyed 1·spacing, 2·spacing, …
    func feed(count: Int) throws -> (SQLiteCatalog, Int64) {
        let database = try SQLiteCatalog.inMemory()
        let feedID = try database.write { tx in
            let feed = try tx.createFeed(named: "f")
            let section = try tx.insertSection(feedID: feed.id, name: nil, title: nil, position: 1, isDeclared: false)
            try tx.insertImages(feedID: feed.id, OrderKeys.fresh(count: count).enumerated().map {
                ImageRecord(key: $0.element, externalID: "i\($0.offset)", sectionID: section, width: 10, height: 10,
                            isFullSpan: false, url: nil, title: nil)
            })
            return feed.id
        }
        return (database, feedID)
    }

    @Test func keysInAWideGapAreEvenlySpreadAndWriteNothing() throws {
        let (database, feedID) = try feed(count: 3)
        let spacing = OrderKeys.spacing
        let allocation = try database.write { tx in
            try tx.allocateKeys(feedID: feedID, count: 3, after: spacing, before: 2 * spacing)
        }
        // The gap (2^32, 2^33) is split in four: 2^32 + 2^30, 2^32 + 2^31, 2^32 + 3·2^30.
        #expect(allocation.keys == [spacing + spacing / 4, spacing + spacing / 2, spacing + 3 * spacing / 4])
        #expect(allocation.renumberedFrom == nil)
    }

    @Test func aUsedUpGapRenumbersOnlyALocalWindow() throws {
        let (database, feedID) = try feed(count: 1_000)
        // Keys 500 and 501 become adjacent integers: no room between them.
        try database.write { tx in
            try tx.rekeyImages(feedID: feedID, [(from: 501 * OrderKeys.spacing, to: 500 * OrderKeys.spacing + 1, sectionID: nil)])
        }
        let (allocation, changed) = try database.write { tx in
            let before = try Int64.fetchAll(tx.db, sql: "SELECT sort_key FROM image ORDER BY sort_key")
            let allocation = try tx.allocateKeys(feedID: feedID, count: 1, after: 500 * OrderKeys.spacing, before: 500 * OrderKeys.spacing + 1)
            let after = try Int64.fetchAll(tx.db, sql: "SELECT sort_key FROM image ORDER BY sort_key")
            return (allocation, zip(before, after).filter { $0 != $1 }.count)
        }
        #expect(allocation.keys.count == 1)
        #expect(allocation.renumberedFrom != nil)
        #expect(changed > 0 && changed <= 64, "renumbered \(changed) rows")
        // The order of the images did not change, and the new key fits between its neighbours.
        let ids = try database.read { tx in try String.fetchAll(tx.db, sql: "SELECT external_id FROM image ORDER BY sort_key") }
        #expect(ids == (0..<1_000).map { "i\($0)" })
        let neighbours = try database.read { tx in
            (try tx.image(feedID: feedID, externalID: "i499")!.key, try tx.image(feedID: feedID, externalID: "i500")!.key)
        }
        #expect(neighbours.0 < allocation.keys[0] && allocation.keys[0] < neighbours.1)
    }

    @Test func invalidationDeletesOnlyCheckpointsFromTheChangedKeyOn() throws {
        let (database, feedID) = try feed(count: 10)
        try database.write { tx in
            let entry = try tx.makeCacheEntry(feedID: feedID, configuration: "{}", stride: 2)
            let section = try tx.sections(feedID: feedID)[0].id
            _ = try tx.saveLayoutCache(
                cacheID: entry.id, feedID: feedID, revision: 0,
                checkpoints: stride(from: 2, to: 10, by: 2).map {
                    CheckpointRecord(index: $0, key: Int64($0 + 1) * OrderKeys.spacing, sectionID: section, state: [1], bandTop: 0, bandBottom: 1)
                },
                sections: [], end: nil)
            try tx.invalidateLayouts(feedID: feedID, fromKey: 5 * OrderKeys.spacing)
            let left = try Int.fetchAll(tx.db, sql: "SELECT idx FROM layout_checkpoint ORDER BY idx")
            // Checkpoints before images 2 and 4 (keys 3 and 5 × spacing): the one at key 5 goes.
            #expect(left == [2])
        }
    }
}
