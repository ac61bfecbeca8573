import Testing
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// The sync rules of DESIGN section 4, one worked example each.
@Suite(.onOwnThreads(lane: .database)) struct ImportRulesTests {
    @Test(arguments: TestEngine.all) func firstImportOrdersDeclaredSectionsThenOthersByFirstImage(engine: TestEngine)
        async throws
    {
        // Given a file declaring s2, with images of s1, the unnamed section and s2
        let catalog = try TestCatalog(engine)
        // When it is imported
        let summary = try await catalog.importFeed(["a@s1", "b", "c@s2", "d@s1", "e"], sections: ["s2"])
        // Then declared s2 comes first, then s1 and the unnamed section in order of first image
        await #expect(try catalog.order() == ["s2/c", "s1/a", "s1/d", "-/b", "-/e"])
        #expect(summary.inserted == 5 && summary.revision == 1)
    }

    @Test(arguments: TestEngine.all) func snapshotRemovesAbsentImagesAndKeepsUserOrder(engine: TestEngine) async throws
    {
        // Given a feed where the user moved c to the top
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b", "c", "d"])
        _ = try await catalog.service.move(feed: "f", id: "c", to: .before("a"))
        // When a snapshot without b is imported
        let summary = try await catalog.importFeed(["a", "c", "d"])
        // Then b is gone and c stays on top
        await #expect(try catalog.order() == ["-/c", "-/a", "-/d"])
        #expect(summary.removed == 1 && summary.unchanged == 3 && summary.revision == 3)
    }

    @Test(arguments: TestEngine.all) func newImageGoesRightAfterItsNearestEarlierExistingImage(engine: TestEngine)
        async throws
    {
        // Given a catalog a b c d, reordered by the user to a c b d
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b", "c", "d"])
        _ = try await catalog.service.move(feed: "f", id: "c", to: .after("a"))
        // When the file adds x after b and y before a
        let summary = try await catalog.importFeed(["y", "a", "b", "x", "c", "d"])
        // Then x sits right after b (not after c, its successor in the file), y is first
        await #expect(try catalog.order() == ["-/y", "-/a", "-/c", "-/b", "-/x", "-/d"])
        #expect(summary.inserted == 2 && summary.unchanged == 4)
    }

    @Test(arguments: TestEngine.all) func aRunOfNewImagesKeepsTheFileOrder(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b"])
        try await catalog.importFeed(["a", "n1", "n2", "n3", "b"])
        await #expect(try catalog.order() == ["-/a", "-/n1", "-/n2", "-/n3", "-/b"])
    }

    @Test(arguments: TestEngine.all) func nearestEarlierImageIsSearchedInTheSameSectionOnly(engine: TestEngine)
        async throws
    {
        // Given s1: a b and s2: c
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s1", "c@s2"])
        _ = try await catalog.service.move(feed: "f", id: "b", to: .index(0))
        // When a new image of s2 comes right after a in the file (a is in s1), and one of s1 after c
        try await catalog.importFeed(["a@s1", "n@s2", "b@s1", "c@s2", "m@s1"])
        // Then n is first in s2 (no earlier s2 image in the file); m goes right after b, the
        // nearest earlier s1 image in the file, which the user had moved to the front
        await #expect(try catalog.order() == ["s1/b", "s1/m", "s1/a", "s2/n", "s2/c"])
    }

    @Test(arguments: TestEngine.all) func newSectionGoesAfterTheNearestEarlierExistingSection(engine: TestEngine)
        async throws
    {
        // Given sections s1, s3 in the catalog
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "c@s3"])
        // When the file has s0 (no earlier section), s1, s2 (after s1), s3
        try await catalog.importFeed(["z@s0", "a@s1", "b@s2", "c@s3"])
        // Then s0 is first and s2 right after s1
        await #expect(try catalog.sections() == ["s0", "s1", "s2", "s3"])
        await #expect(try catalog.order() == ["s0/z", "s1/a", "s2/b", "s3/c"])
    }

    @Test(arguments: TestEngine.all) func imageChangingSectionIsPlacedLikeANewImage(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s1", "c@s2", "d@s2"])
        // b moves to s2 in the file, between c and d
        let summary = try await catalog.importFeed(["a@s1", "c@s2", "b@s2", "d@s2"])
        await #expect(try catalog.order() == ["s1/a", "s2/c", "s2/b", "s2/d"])
        #expect(summary.moved == 1 && summary.unchanged == 3)
    }

    @Test(arguments: TestEngine.all) func userMovesSurviveAReimportThatUpdatesSizes(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b", "c"])
        _ = try await catalog.service.move(feed: "f", id: "a", to: .after("c"))
        let summary = try await catalog.importFeed(["a:600x400", "b", "c"])
        await #expect(try catalog.order() == ["-/b", "-/c", "-/a"])
        #expect(summary.updated == 1 && summary.unchanged == 2)
        let changes = try await catalog.service.changes(feed: "f", since: 2).changes
        #expect(changes.map(\.kind) == ["update"] && changes.map(\.id) == ["a"])
    }

    @Test(arguments: TestEngine.all) func resetOrderAdoptsTheFileOrderSectionsToo(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s1", "c@s2"])
        _ = try await catalog.service.move(feed: "f", id: "b", to: .index(0))
        let summary = try await catalog.importFeed(["c@s2", "a@s1", "b@s1"], resetOrder: true)
        await #expect(try catalog.order() == ["s2/c", "s1/a", "s1/b"])
        await #expect(try catalog.sections() == ["s2", "s1"])
        #expect(summary.moved >= 1)
        // Importing the same file again with --reset-order changes nothing.
        let again = try await catalog.importFeed(["c@s2", "a@s1", "b@s1"], resetOrder: true)
        #expect(again.revision == summary.revision && !again.changedAnything)
    }

    @Test(arguments: TestEngine.all) func appendAddsAtTheEndOfSectionsAndRemovesNothing(engine: TestEngine) async throws
    {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s1", "c@s2"])
        _ = try await catalog.service.move(feed: "f", id: "b", to: .index(0))
        let summary = try await catalog.importFeed(["x@s1", "a@s1:500x500", "y@s3", "z@s2"], mode: .append)
        await #expect(try catalog.order() == ["s1/b", "s1/a", "s1/x", "s2/c", "s2/z", "s3/y"])
        #expect(summary.inserted == 3 && summary.updated == 1 && summary.removed == 0 && summary.unchanged == 0)
    }

    @Test(arguments: TestEngine.all) func importingTheSameFileTwiceChangesNothing(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        let json = TestCatalog.feedJSON("f", sections: ["s1", "empty"], ["a@s1", "b", "c@s2!"])
        let first = try await catalog.importJSON(json)
        let second = try await catalog.importJSON(json)
        #expect(second.revision == first.revision)
        #expect(second.unchanged == 3 && !second.changedAnything)
    }

    @Test(arguments: TestEngine.all) func declaredEmptySectionStaysAndEmptiedUndeclaredOneDisappears(engine: TestEngine)
        async throws
    {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s2"], sections: ["empty"])
        await #expect(try catalog.sections() == ["empty", "s1", "s2"])
        // Removing the only image of s2 removes the section; the declared empty one stays.
        _ = try await catalog.service.remove(feed: "f", ids: ["b"])
        await #expect(try catalog.sections() == ["empty", "s1"])
        // A snapshot that no longer declares it drops it.
        try await catalog.importFeed(["a@s1"])
        await #expect(try catalog.sections() == ["s1"])
    }

    @Test(arguments: TestEngine.all) func sectionEmptiedByAMoveDisappears(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s2"])
        _ = try await catalog.service.move(feed: "f", id: "a", to: .after("b"))
        await #expect(try catalog.sections() == ["s2"])
        await #expect(try catalog.order() == ["s2/b", "s2/a"])
    }

    @Test(arguments: TestEngine.all) func badRecordAtTheEndOfALargeFileChangesNothing(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b"])
        var specs = (0..<20_000).map { "i\($0)" }
        specs.append("bad:0x10")
        await #expect(throws: SyncError.self) { try await catalog.importFeed(specs) }
        await #expect(try catalog.order() == ["-/a", "-/b"])
        await #expect(try catalog.revision() == 1)
    }
}

/// Ids are compared by code points, as SQLite compares them, never by Swift's canonical
/// equivalence: "é" (U+00E9) and "e\u{301}" are two different images.
@Suite(.onOwnThreads(lane: .database)) struct ExactIdTests {
    @Test(arguments: TestEngine.all) func canonicallyEquivalentIdsStayDistinctAcrossReimports(engine: TestEngine)
        async throws
    {
        let catalog = try TestCatalog(engine)
        let json =
            #"{"feed":"f","images":[{"id":"\u00e9","width":10,"height":10,"section":"\u00e9"},{"id":"e\u0301","width":20,"height":10,"section":"e\u0301"}]}"#
        try await catalog.importJSON(json)
        let again = try await catalog.importJSON(json)
        #expect(!again.changedAnything && again.unchanged == 2)
        await #expect(try catalog.order() == ["\u{e9}/\u{e9}", "e\u{301}/e\u{301}"])
        await #expect(try catalog.sections() == ["\u{e9}", "e\u{301}"])
        // Moving one next to the other is not "next to itself".
        _ = try await catalog.service.move(feed: "f", id: "e\u{301}", to: .before("\u{e9}"))
        await #expect(try catalog.order() == ["\u{e9}/e\u{301}", "\u{e9}/\u{e9}"])
    }
}
