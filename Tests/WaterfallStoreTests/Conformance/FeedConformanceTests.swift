import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, feeds: creation, revisions, counts, listing and removal. Every test runs
/// on every engine (``TestEngine/all``) against `any CatalogStore`.
@Suite(.onOwnThreads(lane: .database)) struct FeedConformanceTests {
    /// A summary as one line, for readable comparisons.
    private static func line(_ summary: FeedSummary) -> String {
        "\(summary.name): revision \(summary.revision), \(summary.images) images, \(summary.sections) sections, \(summary.layouts) layouts"
    }

    @Test(arguments: TestEngine.all)
    func aNewFeedStartsEmptyAtRevisionZeroAndEachBumpAddsOne(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given a new feed
            let created = try await store.write { tx in try tx.createFeed(named: "travel") }
            #expect(created.name == "travel" && created.revision == 0 && created.imageCount == 0)

            // When its revision is bumped twice, in two transactions
            let bumps = try await store.write { tx in try tx.bumpRevision(feedID: created.id) }
            let second = try await store.write { tx in try tx.bumpRevision(feedID: created.id) }

            // Then each bump returns the new revision, and reads see the last one
            #expect(bumps == 1 && second == 2)
            try await store.read { tx throws in
                var expected = created
                expected.revision = 2
                #expect(try tx.feed(named: "travel") == expected)
                // Names are compared exactly: no case folding, no trimming
                #expect(try tx.feed(named: "Travel") == nil)
                #expect(try tx.feed(named: "travel ") == nil)
                #expect(try tx.feedVersions().mapValues(\.revision) == ["travel": 2])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func feedsAreListedByNameInByteOrderWithTheirCounts(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given feeds whose names sort differently by bytes and by a locale, and one feed with
            // sections, images, a layout and a stored image count
            try await store.write { tx throws in
                for name in ["b", "é", "B", "Z"] { _ = try tx.createFeed(named: name) }
                let feed = try tx.makeFeed("a", [(section: nil, images: ["1", "2"]), (section: "s", images: ["3"])])
                try tx.saveLayout(feedID: feed.id, NamedLayoutRecord(name: "phone", configuration: "{}"))
                try tx.adjustImageCount(feedID: feed.id, by: 5)
                try tx.adjustImageCount(feedID: feed.id, by: -2)
                _ = try tx.bumpRevision(feedID: feed.id)
            }

            // Then feeds and summaries come by name in byte order, with the counts the store keeps
            try await store.read { tx throws in
                #expect(try tx.feeds().map(\.name) == ["B", "Z", "a", "b", "é"])
                #expect(try tx.feed(named: "a")?.imageCount == 3)
                let summaries = try tx.feedSummaries()
                #expect(
                    summaries.map(Self.line) == [
                        "B: revision 0, 0 images, 0 sections, 0 layouts",
                        "Z: revision 0, 0 images, 0 sections, 0 layouts",
                        "a: revision 1, 3 images, 2 sections, 1 layouts",
                        "b: revision 0, 0 images, 0 sections, 0 layouts",
                        "é: revision 0, 0 images, 0 sections, 0 layouts",
                    ])
                #expect(try tx.feedSummary(named: "a") == summaries[2])
                #expect(try tx.feedSummary(named: "missing") == nil)
                #expect(try tx.feedVersions().mapValues(\.revision) == ["B": 0, "Z": 0, "a": 1, "b": 0, "é": 0])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func aFeedNameIsTakenOnce(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in
            let first = try await store.write { tx in try tx.createFeed(named: "f") }

            // When a second feed of the same name is created
            let error = await #expect(throws: StoreError.self) {
                try await store.write { tx in try tx.createFeed(named: "f") }
            }

            // Then the store refuses it as a request against the catalog's rules, and keeps the first
            #expect(error?.kind == .invalidRequest)
            #expect(try await store.read { tx in try tx.feeds() } == [first])
        }
    }

    @Test(arguments: TestEngine.all)
    func deletingAFeedRemovesEverythingOfItAndNothingElse(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let configurations = ["named", "inline"]

            // Given two feeds, each with sections, images, a change log, a named layout and two
            // cache entries (one named, one inline) with checkpoints, section extents and an end
            let gone = try await store.write { tx throws in
                var made: [String: (feed: SmallFeed, caches: [Int64])] = [:]
                for name in ["gone", "kept"] {
                    let feed = try tx.makeFeed(
                        name, [(section: nil, images: ["a", "b", "c"]), (section: "s", images: ["d", "e"])])
                    let revision = try tx.bumpRevision(feedID: feed.id)
                    try tx.appendChanges(
                        feedID: feed.id, revision: revision, [(.insert, "a", nil), (.insert, "d", "s")])
                    try tx.saveLayout(feedID: feed.id, NamedLayoutRecord(name: "phone", configuration: "named"))
                    var caches: [Int64] = []
                    for configuration in configurations {
                        let entry = try tx.makeCacheEntry(feedID: feed.id, configuration: configuration, stride: 2)
                        let stored = try tx.saveLayoutCache(
                            cacheID: entry.id, feedID: feed.id, revision: revision,
                            checkpoints: [
                                checkpointRow(2, key: orderKey(3), section: feed.sections[0]),
                                checkpointRow(4, key: orderKey(5), section: feed.sections[1]),
                            ],
                            sections: [
                                SectionExtentRecord(
                                    sectionID: feed.sections[0], untilKey: orderKey(4), startY: 0, endY: 50),
                                SectionExtentRecord(
                                    sectionID: feed.sections[1], untilKey: OrderKeys.end, startY: 50, endY: 90),
                            ],
                            end: LayoutEndRecord(
                                revision: revision, totalItems: 5, contentHeight: 90, tailTop: 60, tailBottom: 90))
                        #expect(stored)
                        caches.append(entry.id)
                    }
                    made[name] = (feed, caches)
                }
                return made["gone"]!
            }
            let keptBefore = try await store.read { tx in
                try tx.contents(ofFeed: "kept", configurations: configurations)
            }

            // When one is deleted
            try await store.write { tx in try tx.deleteFeed(id: gone.feed.id) }

            // Then nothing of it can be found by its name or by its ids any more
            try await store.read { tx throws in
                #expect(try tx.feed(named: "gone") == nil)
                #expect(try tx.feeds().map(\.name) == ["kept"])
                #expect(try tx.feedVersions().keys.sorted() == ["kept"])
                #expect(try tx.sections(feedID: gone.feed.id).isEmpty)
                #expect(try tx.sections(ids: gone.feed.sections).isEmpty)
                #expect(try tx.imageCount(sectionID: gone.feed.sections[0]) == 0)
                #expect(try tx.allImages(feedID: gone.feed.id).isEmpty)
                #expect(try tx.image(feedID: gone.feed.id, externalID: "a") == nil)
                #expect(try tx.changes(feedID: gone.feed.id, since: 0).isEmpty)
                #expect(try tx.layouts(feedID: gone.feed.id).isEmpty)
                for configuration in configurations {
                    #expect(try tx.cacheEntry(feedID: gone.feed.id, configuration: configuration) == nil)
                }
                for cache in gone.caches {
                    #expect(try tx.checkpoint(cacheID: cache, atOrBelow: .max) == nil)
                    #expect(try tx.checkpointBands(cacheID: cache).isEmpty)
                    #expect(try tx.sectionExtents(cacheID: cache, sectionIDs: gone.feed.sections).isEmpty)
                }
                #expect(try tx.cacheCoverage().map(\.feed) == ["kept", "kept"])
                // And the other feed is exactly as it was
                #expect(try tx.contents(ofFeed: "kept", configurations: configurations) == keptBefore)
            }

            // And a new feed of the same name starts from nothing
            let again = try await store.write { tx in try tx.createFeed(named: "gone") }
            try await store.read { tx throws in
                #expect(again.revision == 0)
                #expect(try tx.sections(feedID: again.id).isEmpty)
                #expect(try tx.changes(feedID: again.id, since: 0).isEmpty)
                #expect(try tx.layouts(feedID: again.id).isEmpty)
                #expect(try tx.cacheEntry(feedID: again.id, configuration: "named") == nil)
            }
        }
    }
}
