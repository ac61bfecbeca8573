import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, named layouts and the layout cache: names replace, removal keeps a cache
/// entry another name uses, unnamed entries are bounded, stale computations are not saved,
/// checkpoints are found at or below an index, invalidation cuts from a key on.
@Suite(.onOwnThreads(lane: .database)) struct LayoutConformanceTests {
    @Test(arguments: TestEngine.all)
    func savingANameReplacesItsConfiguration(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let (f, g) = try await store.write { tx in
                (try tx.createFeed(named: "f").id, try tx.createFeed(named: "g").id)
            }

            try await store.write { tx throws in
                for name in ["tablet", "Phone", "phone"] {
                    try tx.saveLayout(feedID: f, NamedLayoutRecord(name: name, configuration: "{\"columns\":2}"))
                }
                try tx.saveLayout(feedID: g, NamedLayoutRecord(name: "phone", configuration: "{\"columns\":9}"))
            }
            try await store.write { tx in
                try tx.saveLayout(feedID: f, NamedLayoutRecord(name: "phone", configuration: "{\"columns\":3}"))
            }

            try await store.read { tx throws in
                // By name in byte order; the second save of "phone" replaced the first
                #expect(
                    try tx.layouts(feedID: f) == [
                        NamedLayoutRecord(name: "Phone", configuration: "{\"columns\":2}"),
                        NamedLayoutRecord(name: "phone", configuration: "{\"columns\":3}"),
                        NamedLayoutRecord(name: "tablet", configuration: "{\"columns\":2}"),
                    ])
                #expect(try tx.layout(feedID: f, name: "phone")?.configuration == "{\"columns\":3}")
                #expect(try tx.layout(feedID: f, name: "PHONE") == nil)
                #expect(
                    try tx.layouts(feedID: g) == [NamedLayoutRecord(name: "phone", configuration: "{\"columns\":9}")])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func removingALayoutKeepsACacheEntryAnotherNameStillUses(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given two names for one configuration, and its cache entry
            let f = try await store.write { tx throws in
                let f = try tx.createFeed(named: "f").id
                try tx.saveLayout(feedID: f, NamedLayoutRecord(name: "a", configuration: "C"))
                try tx.saveLayout(feedID: f, NamedLayoutRecord(name: "b", configuration: "C"))
                _ = try tx.makeCacheEntry(feedID: f, configuration: "C", stride: 4)
                return f
            }

            // When there is no such layout, nothing is removed
            await #expect(try store.write { tx in try tx.removeLayout(feedID: f, name: "missing") } == false)
            await #expect(try store.write { tx in try tx.removeLayout(feedID: f, name: "A") } == false)

            // When one name goes, the entry stays for the other; when the last goes, the entry goes
            await #expect(try store.write { tx in try tx.removeLayout(feedID: f, name: "a") } == true)
            try await store.read { tx throws in
                #expect(try tx.layouts(feedID: f).map(\.name) == ["b"])
                #expect(try tx.cacheEntry(feedID: f, configuration: "C") != nil)
            }
            await #expect(try store.write { tx in try tx.removeLayout(feedID: f, name: "b") } == true)
            try await store.read { tx throws in
                #expect(try tx.layouts(feedID: f).isEmpty)
                #expect(try tx.cacheEntry(feedID: f, configuration: "C") == nil)
            }
            await #expect(try store.write { tx in try tx.removeLayout(feedID: f, name: "b") } == false)
        }
    }

    @Test(arguments: TestEngine.all)
    func makingAnEntryTwiceReturnsTheFirst(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let (f, first) = try await store.write { tx throws in
                let f = try tx.createFeed(named: "f").id
                return (f, try tx.makeCacheEntry(feedID: f, configuration: "C", stride: 4))
            }
            #expect(first.configuration == "C" && first.stride == 4 && first.end == nil)
            try await store.write { tx throws in
                #expect(try tx.makeCacheEntry(feedID: f, configuration: "C", stride: 64) == first)
                #expect(try tx.cacheEntry(feedID: f, configuration: "C") == first)
                #expect(try tx.cacheEntry(feedID: f, configuration: "c") == nil)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func unnamedEntriesAreBoundedKeepingNamedUpToDateAndNewestOnes(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let unnamed = (0...10).map { "u\($0)" }

            // Given a named layout's entry, u1 computed at revision 0, u0 at revision 1 (the
            // feed's), then u2…u10 made one by one
            let f = try await store.write { tx throws in
                let f = try tx.createFeed(named: "f").id
                try tx.saveLayout(feedID: f, NamedLayoutRecord(name: "phone", configuration: "named"))
                _ = try tx.makeCacheEntry(feedID: f, configuration: "named", stride: 4)
                let (u0, u1) = (
                    try tx.makeCacheEntry(feedID: f, configuration: "u0", stride: 4),
                    try tx.makeCacheEntry(feedID: f, configuration: "u1", stride: 4)
                )
                #expect(
                    try tx.saveLayoutCache(
                        cacheID: u1.id, feedID: f, revision: 0, checkpoints: [], sections: [],
                        end: LayoutEndRecord(revision: 0, totalItems: 0, contentHeight: 0, tailTop: 0, tailBottom: 0)))
                _ = try tx.bumpRevision(feedID: f)
                #expect(
                    try tx.saveLayoutCache(
                        cacheID: u0.id, feedID: f, revision: 1, checkpoints: [], sections: [],
                        end: LayoutEndRecord(revision: 1, totalItems: 0, contentHeight: 0, tailTop: 0, tailBottom: 0)))
                return f
            }
            try await store.write { tx throws in
                for configuration in unnamed.dropFirst(2) {
                    _ = try tx.makeCacheEntry(feedID: f, configuration: configuration, stride: 4)
                }
            }

            // Then 8 unnamed entries remain: the up-to-date u0, then u1 (computed once), then the
            // newest; the named layout's entry is not counted and stays
            let kept = try await store.read { tx throws in
                try unnamed.filter { try tx.cacheEntry(feedID: f, configuration: $0) != nil }
            }
            #expect(LayoutCacheRecord.maximumUnnamedEntries == 8)
            #expect(kept == ["u0", "u1", "u5", "u6", "u7", "u8", "u9", "u10"])
            await #expect(try store.read { tx in try tx.cacheEntry(feedID: f, configuration: "named") } != nil)
        }
    }

    @Test(arguments: TestEngine.all)
    func aComputationOfAnOlderRevisionOrAGoneEntryIsNotSaved(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let (f, entry, gone) = try await store.write { tx throws in
                let f = try tx.makeFeed("f", [(section: nil, images: ["a", "b", "c", "d"])])
                let entry = try tx.makeCacheEntry(feedID: f.id, configuration: "C", stride: 2)
                let gone = try tx.makeCacheEntry(feedID: f.id, configuration: "gone", stride: 2)
                _ = try tx.bumpRevision(feedID: f.id)
                _ = try tx.bumpRevision(feedID: f.id)
                return (f, entry, gone)
            }
            try await store.write { tx throws in
                try tx.saveLayout(feedID: f.id, NamedLayoutRecord(name: "x", configuration: "gone"))
                #expect(try tx.removeLayout(feedID: f.id, name: "x"))
            }
            let end = LayoutEndRecord(revision: 1, totalItems: 4, contentHeight: 100, tailTop: 50, tailBottom: 100)
            let points = [checkpointRow(2, key: orderKey(3), section: f.sections[0])]
            let extents = [SectionExtentRecord(sectionID: f.sections[0], untilKey: OrderKeys.end, startY: 0, endY: 100)]

            // When layouts computed at revision 1 (the feed is at 2), and for a removed entry, are saved
            let stale = try await store.write { tx throws in
                try tx.saveLayoutCache(
                    cacheID: entry.id, feedID: f.id, revision: 1, checkpoints: points, sections: extents, end: end)
            }
            let orphan = try await store.write { tx throws in
                try tx.saveLayoutCache(
                    cacheID: gone.id, feedID: f.id, revision: 2, checkpoints: points, sections: extents, end: nil)
            }

            // Then neither is stored
            #expect(stale == false && orphan == false)
            try await store.read { tx throws in
                #expect(try tx.cacheEntry(feedID: f.id, configuration: "C") == entry)
                #expect(try tx.checkpoint(cacheID: entry.id, atOrBelow: .max) == nil)
                #expect(try tx.sectionExtents(cacheID: entry.id, sectionIDs: f.sections).isEmpty)
                #expect(try tx.checkpoint(cacheID: gone.id, atOrBelow: .max) == nil)
                #expect(try tx.cacheEntry(feedID: f.id, configuration: "gone") == nil)
            }

            // And at the feed's revision it is, end included
            var saved = end
            saved.revision = 2
            let current = saved
            #expect(
                try await store.write { tx throws in
                    try tx.saveLayoutCache(
                        cacheID: entry.id, feedID: f.id, revision: 2, checkpoints: points, sections: extents,
                        end: current)
                })
            try await store.read { tx throws in
                #expect(try tx.cacheEntry(feedID: f.id, configuration: "C")?.end == current)
                #expect(try tx.checkpoint(cacheID: entry.id, atOrBelow: .max) == points[0])
                #expect(try tx.sectionExtents(cacheID: entry.id, sectionIDs: f.sections) == [f.sections[0]: extents[0]])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func checkpointsAreFoundAtOrBelowAnIndexAndReplacedBySavingAgain(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await store.write { tx in
                try tx.makeFeed("f", [(section: nil, images: (1...13).map { "i\($0)" })])
            }
            let section = f.sections[0]
            let entry = try await store.write { tx throws in
                let entry = try tx.makeCacheEntry(feedID: f.id, configuration: "C", stride: 4)
                // Saved out of order, in two saves
                #expect(
                    try tx.saveLayoutCache(
                        cacheID: entry.id, feedID: f.id, revision: 0,
                        checkpoints: [
                            checkpointRow(12, key: orderKey(13), section: section),
                            checkpointRow(4, key: orderKey(5), section: section),
                        ],
                        sections: [], end: nil))
                #expect(
                    try tx.saveLayoutCache(
                        cacheID: entry.id, feedID: f.id, revision: 0,
                        checkpoints: [checkpointRow(8, key: orderKey(9), section: section)], sections: [], end: nil))
                return entry
            }

            try await store.read { tx throws in
                #expect(try tx.checkpoint(cacheID: entry.id, atOrBelow: 3) == nil)
                #expect(
                    try tx.checkpoint(cacheID: entry.id, atOrBelow: 4)
                        == checkpointRow(4, key: orderKey(5), section: section))
                #expect(try tx.checkpoint(cacheID: entry.id, atOrBelow: 11)?.index == 8)
                #expect(
                    try tx.checkpoint(cacheID: entry.id, atOrBelow: 12)
                        == checkpointRow(12, key: orderKey(13), section: section))
                #expect(try tx.checkpoint(cacheID: entry.id, atOrBelow: .max)?.index == 12)
                #expect(
                    try tx.checkpointBands(cacheID: entry.id).map { "\($0.index) \($0.top) \($0.bottom)" }
                        == ["4 40.0 47.5", "8 80.0 87.5", "12 120.0 127.5"])
            }

            // When checkpoint 8 is saved again with another state and band
            let replacement = CheckpointRecord(
                index: 8, key: orderKey(9), sectionID: section, state: Array(repeating: 0xAB, count: 4_096),
                bandTop: -1.25, bandBottom: 1e300)
            try await store.write { tx throws in
                #expect(
                    try tx.saveLayoutCache(
                        cacheID: entry.id, feedID: f.id, revision: 0, checkpoints: [replacement], sections: [], end: nil
                    ))
            }
            await #expect(try store.read { tx in try tx.checkpoint(cacheID: entry.id, atOrBelow: 9) } == replacement)
            await #expect(try store.read { tx in try tx.checkpointBands(cacheID: entry.id).count } == 3)
        }
    }

    @Test(arguments: TestEngine.all)
    func anEmptyCheckpointStateIsAnEmptyStateNotAMissingOne(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await store.write { tx in try tx.makeFeed("f", [(section: nil, images: ["a", "b", "c"])]) }
            let empty = CheckpointRecord(
                index: 2, key: orderKey(3), sectionID: f.sections[0], state: [], bandTop: 0, bandBottom: 0)
            let entry = try await store.write { tx in
                let entry = try tx.makeCacheEntry(feedID: f.id, configuration: "C", stride: 2)
                #expect(
                    try tx.saveLayoutCache(
                        cacheID: entry.id, feedID: f.id, revision: 0, checkpoints: [empty], sections: [], end: nil))
                return entry
            }
            await #expect(try store.read { tx in try tx.checkpoint(cacheID: entry.id, atOrBelow: 2) } == empty)
        }
    }

    @Test(arguments: TestEngine.all)
    func invalidationCutsCheckpointsAndSectionExtentsFromTheKeyOnInThatFeedOnly(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given two cached layouts of feed f and one of feed g, each with checkpoints before
            // images 3, 5, 7 and 9 (indexes 2, 4, 6, 8) and three sections ending before 4, 8 and
            // at the end, and a complete end
            let layout = [
                (section: "s1" as String?, images: ["a", "b", "c"]), (section: "s2", images: ["d", "e", "f", "g"]),
                (section: "s3", images: ["h", "i"]),
            ]
            let (f, entries) = try await store.write { tx throws in
                let f = try tx.makeFeed("f", layout)
                let g = try tx.makeFeed("g", layout)
                var entries: [Int64] = []
                for (feed, configuration) in [(f, "C"), (f, "D"), (g, "C")] {
                    let entry = try tx.makeCacheEntry(feedID: feed.id, configuration: configuration, stride: 2)
                    #expect(
                        try tx.saveLayoutCache(
                            cacheID: entry.id, feedID: feed.id, revision: 0,
                            checkpoints: [2, 4, 6, 8].map {
                                checkpointRow($0, key: orderKey(Int64($0 + 1)), section: feed.sections[$0 / 3])
                            },
                            sections: zip(feed.sections, [orderKey(4), orderKey(8), OrderKeys.end]).map {
                                SectionExtentRecord(sectionID: $0, untilKey: $1, startY: 0, endY: 1)
                            },
                            end: LayoutEndRecord(
                                revision: 0, totalItems: 9, contentHeight: 1, tailTop: 0, tailBottom: 1)))
                    entries.append(entry.id)
                }
                return (f, entries)
            }
            let gBefore = try await store.read { tx in try tx.contents(ofFeed: "g", configurations: ["C"]) }

            // When f's layouts are invalidated from image e's key (the checkpoint at e's key goes;
            // the one before c's stays), then from just below d's key
            try await store.write { tx in try tx.invalidateLayouts(feedID: f.id, fromKey: orderKey(5)) }
            let first = try await store.read { tx throws in
                try entries.prefix(2).map { entry in
                    (
                        try tx.checkpointBands(cacheID: entry).map(\.index),
                        try tx.sectionExtents(cacheID: entry, sectionIDs: f.sections).keys.sorted()
                    )
                }
            }
            try await store.write { tx in try tx.invalidateLayouts(feedID: f.id, fromKey: orderKey(4) - 1) }

            // Then only checkpoints whose key is at or after the key went, with the extents of the
            // sections that end after it; the ends stay (the revision bump of a real change
            // invalidates them); g is untouched
            for (indexes, sections) in first {
                #expect(indexes == [2])
                #expect(sections == [f.sections[0]])
            }
            try await store.read { tx throws in
                for entry in entries.prefix(2) {
                    #expect(try tx.checkpointBands(cacheID: entry).map(\.index) == [2])
                    #expect(try tx.sectionExtents(cacheID: entry, sectionIDs: f.sections).isEmpty)
                }
                #expect(try tx.cacheEntry(feedID: f.id, configuration: "C")?.end?.totalItems == 9)
                #expect(try tx.contents(ofFeed: "g", configurations: ["C"]) == gBefore)
                #expect(try tx.checkpointBands(cacheID: entries[2]).map(\.index) == [2, 4, 6, 8])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func checkpointsMarkedStaleAreNeverReadAndASaveDoesNotBringThemBack(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            // Given a cache of nine images with checkpoints at 2, 4, 6 and 8
            let (feed, entry) = try await store.write { tx throws in
                let feed = try tx.makeFeed(
                    "f", [(section: "s1" as String?, images: ["a", "b", "c", "d", "e", "f", "g", "h", "i"])])
                let entry = try tx.makeCacheEntry(feedID: feed.id, configuration: "C", stride: 2)
                #expect(
                    try tx.saveLayoutCache(
                        cacheID: entry.id, feedID: feed.id, revision: 0,
                        checkpoints: [2, 4, 6, 8].map {
                            checkpointRow($0, key: orderKey(Int64($0 + 1)), section: feed.sections[0])
                        },
                        sections: [], end: nil))
                return (feed, entry.id)
            }

            // When it is invalidated from e's key (checkpoints 4 on), then from h's (8 on, already
            // stale: the earlier mark holds)
            try await store.write { tx in try tx.invalidateLayouts(feedID: feed.id, fromKey: orderKey(5)) }
            try await store.write { tx in try tx.invalidateLayouts(feedID: feed.id, fromKey: orderKey(8)) }

            // Then no read finds a stale checkpoint, whatever it asks for
            try await store.read { tx throws in
                #expect(try tx.checkpointBands(cacheID: entry).map(\.index) == [2])
                #expect(try tx.checkpoint(cacheID: entry, atOrBelow: 8)?.index == 2)
                #expect(try tx.checkpoint(cacheID: entry, atOrBelowKey: orderKey(9))?.index == 2)
                #expect(try tx.cacheCoverage().map(\.checkpoints) == [1])
            }

            // And a save of checkpoints 4 and 6 leaves 8 gone, not valid again
            #expect(
                try await store.write { tx in
                    try tx.saveLayoutCache(
                        cacheID: entry, feedID: feed.id, revision: 0,
                        checkpoints: [4, 6].map {
                            checkpointRow($0, key: orderKey(Int64($0 + 1)), section: feed.sections[0])
                        },
                        sections: [], end: nil)
                })
            try await store.read { tx throws in
                #expect(try tx.checkpointBands(cacheID: entry).map(\.index) == [2, 4, 6])
                #expect(try tx.checkpoint(cacheID: entry, atOrBelow: 8)?.index == 6)
                #expect(try tx.cacheCoverage().map(\.checkpoints) == [3])
            }

            // And a mark after the save starts from the saved checkpoints again
            try await store.write { tx in try tx.invalidateLayouts(feedID: feed.id, fromKey: orderKey(7)) }
            try await store.read { tx throws in
                #expect(try tx.checkpointBands(cacheID: entry).map(\.index) == [2, 4])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func coverageSaysHowMuchOfEveryCachedLayoutIsValid(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            try await store.write { tx throws in
                let f = try tx.makeFeed("f", [(section: nil, images: ["a", "b", "c"])])
                try tx.adjustImageCount(feedID: f.id, by: 3)
                for name in ["tablet", "phone"] {
                    try tx.saveLayout(feedID: f.id, NamedLayoutRecord(name: name, configuration: "C"))
                }
                let named = try tx.makeCacheEntry(feedID: f.id, configuration: "C", stride: 2)
                _ = try tx.makeCacheEntry(feedID: f.id, configuration: "inline", stride: 5)
                #expect(
                    try tx.saveLayoutCache(
                        cacheID: named.id, feedID: f.id, revision: 0,
                        checkpoints: [checkpointRow(2, key: orderKey(3), section: f.sections[0])],
                        sections: [],
                        end: LayoutEndRecord(revision: 0, totalItems: 3, contentHeight: 10, tailTop: 5, tailBottom: 10))
                )
                let e = try tx.createFeed(named: "E")
                _ = try tx.makeCacheEntry(feedID: e.id, configuration: "C", stride: 1)
            }
            // By feed name in byte order, then in the order the entries were made
            let coverage = try await store.read { tx in try tx.cacheCoverage() }.map {
                "\($0.feed) \($0.configuration) \($0.names) stride \($0.stride), \($0.checkpoints) checkpoints, "
                    + "complete \($0.isComplete), \($0.feedImages) images"
            }
            #expect(
                coverage == [
                    "E C [] stride 1, 0 checkpoints, complete false, 0 images",
                    "f C [\"phone\", \"tablet\"] stride 2, 1 checkpoints, complete true, 3 images",
                    "f inline [] stride 5, 0 checkpoints, complete false, 3 images",
                ])
        }
    }
}
