import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, the change log: rows read back oldest first (by revision, then in the
/// order they were appended), per feed.
@Suite(.onOwnThreads(lane: .database)) struct ChangeLogConformanceTests {
    /// A change as "revision kind id section" ("-" for no section), for readable comparisons.
    private static func line(_ change: ChangeRecord) -> String {
        "\(change.revision) \(change.kind.rawValue) \(change.externalID) \(change.section ?? "-")"
    }

    @Test(arguments: TestEngine.all)
    func changesReadBackOldestFirstAndPerFeed(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let (f, g) = try await store.write { tx in
                (try tx.createFeed(named: "f").id, try tx.createFeed(named: "g").id)
            }

            // Given two revisions, each appended to twice, and a revision of another feed between
            try await store.write { tx throws in
                try tx.appendChanges(feedID: f, revision: 1, [(.insert, "b", nil), (.insert, "a", "s")])
                try tx.appendChanges(feedID: g, revision: 1, [(.insert, "other", nil)])
                try tx.appendChanges(feedID: f, revision: 1, [])
            }
            try await store.write { tx throws in
                try tx.appendChanges(feedID: f, revision: 1, [(.update, "a", "s")])
                try tx.appendChanges(feedID: f, revision: 2, [(.move, "b", "Été 2024"), (.remove, "a", nil)])
                try tx.appendChanges(feedID: f, revision: 2, [(.insert, "'; --", "")])
            }

            // Then each feed's log reads in revision order, a revision's rows in the order appended
            try await store.read { tx throws in
                #expect(
                    try tx.changes(feedID: f, since: 0).map(Self.line) == [
                        "1 insert b -", "1 insert a s", "1 update a s", "2 move b Été 2024", "2 remove a -",
                        "2 insert '; -- ",
                    ])
                #expect(
                    try tx.changes(feedID: f, since: 1).map(Self.line) == [
                        "2 move b Été 2024", "2 remove a -", "2 insert '; -- ",
                    ])
                #expect(try tx.changes(feedID: f, since: 2).isEmpty)
                // Read no further than asked (fault 7 of issue 37: a follow read every row of a
                // million-row re-import to give up at the 257th image)
                #expect(
                    try tx.changes(feedID: f, since: 0, limit: 4).map(Self.line) == [
                        "1 insert b -", "1 insert a s", "1 update a s", "2 move b Été 2024",
                    ])
                #expect(try tx.changes(feedID: f, since: 1, limit: 1).map(Self.line) == ["2 move b Été 2024"])
                #expect(try tx.changes(feedID: g, since: 0).map(Self.line) == ["1 insert other -"])
                // An empty section name is not the unnamed section
                #expect(try tx.changes(feedID: f, since: 1).last?.section == "")
                #expect(try tx.changes(feedID: f, since: 1).dropLast().last?.section == nil)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func rowsAppendedToAnEarlierRevisionStillReadBeforeLaterRevisions(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await store.write { tx in try tx.createFeed(named: "f").id }
            try await store.write { tx throws in
                try tx.appendChanges(feedID: f, revision: 3, [(.insert, "c", nil)])
                try tx.appendChanges(feedID: f, revision: 1, [(.insert, "a", nil)])
                try tx.appendChanges(feedID: f, revision: 2, [(.insert, "b", nil)])
                try tx.appendChanges(feedID: f, revision: 1, [(.update, "a", nil)])
            }
            await #expect(
                try store.read { tx in try tx.changes(feedID: f, since: 0).map(Self.line) }
                    == ["1 insert a -", "1 update a -", "2 insert b -", "3 insert c -"])
        }
    }

    @Test(arguments: TestEngine.all)
    func aWholeFeedIsLoggedAsInsertedInCatalogOrder(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in

            // Given images of two sections inserted in an order that is not the catalog's, and an
            // image of another feed
            let f = try await store.write { tx throws in
                let feed = try tx.createFeed(named: "f")
                let unnamed = try tx.insertSection(
                    feedID: feed.id, name: nil, title: nil, position: 20, isDeclared: false)
                let s = try tx.insertSection(feedID: feed.id, name: "s", title: nil, position: 10, isDeclared: false)
                try tx.insertImages(
                    feedID: feed.id,
                    [
                        imageRow("c", key: orderKey(3), section: unnamed), imageRow("a", key: orderKey(1), section: s),
                        imageRow("d", key: orderKey(4), section: unnamed), imageRow("b", key: orderKey(2), section: s),
                    ])
                _ = try tx.makeFeed("g", [(section: nil, images: ["zz"])])
                return feed.id
            }

            // When the whole feed is logged under revision 1, then more is appended to it and to 2
            try await store.write { tx throws in
                try tx.appendInsertChangesForWholeFeed(feedID: f, revision: 1)
                try tx.appendChanges(feedID: f, revision: 1, [(.update, "a", "s")])
                try tx.appendChanges(feedID: f, revision: 2, [(.remove, "d", nil)])
            }

            // Then the log lists the images in key order with their sections, then the rest
            await #expect(
                try store.read { tx in try tx.changes(feedID: f, since: 0).map(Self.line) } == [
                    "1 insert a s", "1 insert b s", "1 insert c -", "1 insert d -", "1 update a s", "2 remove d -",
                ])
        }
    }

    /// PostgreSQL sends change rows in batches of 10,000: the order must run across them.
    @Test(arguments: TestEngine.all)
    func tenThousandAndFiveChangesKeepTheirOrder(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await store.write { tx in try tx.createFeed(named: "f").id }
            let changes = (0..<10_005).map {
                (kind: ChangeKind.allCases[$0 % 4], externalID: "i\($0)", section: $0 % 3 == 0 ? nil : "s\($0 % 7)")
            }
            try await store.write { tx throws in
                try tx.appendChanges(feedID: f, revision: 1, [(.insert, "first", nil)])
                try tx.appendChanges(feedID: f, revision: 1, changes)
            }
            let read = try await store.read { tx in try tx.changes(feedID: f, since: 0) }
            #expect(read.count == changes.count + 1)
            #expect(read.dropFirst().map(\.externalID) == changes.map(\.externalID))
            #expect(read.dropFirst().map(\.kind) == changes.map(\.kind))
            #expect(read.dropFirst().map(\.section) == changes.map(\.section))
        }
    }

    @Test(arguments: TestEngine.all)
    func aPrunedLogStartsLaterAndKeepsEveryRowAfterIt(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let (f, g) = try await store.write { tx in
                (try tx.createFeed(named: "f").id, try tx.createFeed(named: "g").id)
            }
            // Given five revisions of f, with 3, 1, 2, 1 and 1 rows, their commit times recorded, and one of g
            try await store.write { tx throws in
                for (revision, ids) in [(1, ["a", "b", "c"]), (2, ["a"]), (3, ["b", "c"]), (4, ["a"]), (5, ["c"])] {
                    #expect(try tx.bumpRevision(feedID: f) == Int64(revision))
                    try tx.appendChanges(feedID: f, revision: Int64(revision), ids.map { (.update, $0, nil) })
                }
                _ = try tx.bumpRevision(feedID: g)
                try tx.appendChanges(feedID: g, revision: 1, [(.insert, "x", nil)])
            }
            let now = Int64(Date().timeIntervalSince1970)
            try await store.read { tx throws in
                #expect(try tx.changesFrom(feedID: f) == 0)
                #expect(
                    try tx.changes(feedID: f, since: 1, through: 3).map(Self.line) == [
                        "2 update a -", "3 update b -", "3 update c -",
                    ])
                #expect(try tx.lastRevision(feedID: f, committedBefore: now + 60) == 5)
                #expect(try tx.lastRevision(feedID: f, committedBefore: now - 3_600) == nil)
            }

            // When revisions up to 3 are pruned, at most 4 rows a call
            await #expect(try store.write { tx in try tx.pruneChanges(feedID: f, through: 3, limit: 4) } == 4)
            // Then the log starts at 3 already, and keeps every row after 3
            try await store.read { tx throws in
                #expect(try tx.changesFrom(feedID: f) == 3)
                #expect(
                    try tx.changes(feedID: f, since: 0).map(Self.line) == [
                        "3 update b -", "3 update c -", "4 update a -", "5 update c -",
                    ])
            }
            await #expect(try store.write { tx in try tx.pruneChanges(feedID: f, through: 3, limit: 4) } == 2)
            await #expect(try store.write { tx in try tx.pruneChanges(feedID: f, through: 3, limit: 4) } == 0)
            // A prune never moves the start back, and leaves other feeds alone
            await #expect(try store.write { tx in try tx.pruneChanges(feedID: f, through: 2, limit: 4) } == 0)
            try await store.read { tx throws in
                #expect(try tx.changesFrom(feedID: f) == 3)
                #expect(try tx.changes(feedID: f, since: 3).map(Self.line) == ["4 update a -", "5 update c -"])
                #expect(try tx.lastRevision(feedID: f, committedBefore: now + 60) == 5)
                #expect(try tx.changesFrom(feedID: g) == 0)
                #expect(try tx.changes(feedID: g, since: 0).map(Self.line) == ["1 insert x -"])
            }
        }
    }
}
