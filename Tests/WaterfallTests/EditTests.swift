import Testing
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// Moves, order lists and removals (DESIGN section 3 and the reorder file of section 4).
@Suite(.onOwnThreads(lane: .database)) struct EditTests {
    @Test(arguments: TestEngine.all) func moveIsRemoveThenInsertNeverASwap(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b", "c", "d", "e"])
        // Dragging a onto d's place puts it after d's predecessor chain, not in a swap with d.
        _ = try await catalog.service.move(feed: "f", id: "a", to: .before("d"))
        #expect(try await catalog.order() == ["-/b", "-/c", "-/a", "-/d", "-/e"])
        _ = try await catalog.service.move(feed: "f", id: "e", to: .index(1))
        #expect(try await catalog.order() == ["-/b", "-/e", "-/c", "-/a", "-/d"])
        _ = try await catalog.service.move(feed: "f", id: "b", to: .index(4))
        #expect(try await catalog.order() == ["-/e", "-/c", "-/a", "-/d", "-/b"])
    }

    @Test(arguments: TestEngine.all) func beforeAndAfterMoveIntoTheOtherImagesSection(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s1", "c@s2", "d@s2"])
        let summary = try await catalog.service.move(feed: "f", id: "a", to: .after("c"))
        #expect(try await catalog.order() == ["s1/b", "s2/c", "s2/a", "s2/d"])
        _ = try await catalog.service.move(feed: "f", id: "d", to: .before("b"))
        #expect(try await catalog.order() == ["s1/d", "s1/b", "s2/c", "s2/a"])
        let changes = try await catalog.service.changes(feed: "f", since: summary.revision - 1).changes
        #expect(changes.map { "\($0.kind) \($0.id) \($0.section ?? "-")" } == ["move a s2", "move d s1"])
    }

    @Test(arguments: TestEngine.all) func moveToWhereItAlreadyIsChangesNothing(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b", "c"])
        let summary = try await catalog.service.move(feed: "f", id: "b", to: .after("a"))
        #expect(!summary.changedAnything && summary.unchanged == 1 && summary.revision == 1)
        #expect(try await catalog.service.move(feed: "f", id: "a", to: .index(0)).revision == 1)
    }

    @Test(arguments: TestEngine.all) func dryRunWritesNothing(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b", "c"])
        let summary = try await catalog.service.move(feed: "f", id: "c", to: .index(0), dryRun: true)
        #expect(summary.moved == 1 && summary.revision == 2)
        #expect(try await catalog.order() == ["-/a", "-/b", "-/c"])
        #expect(try await catalog.revision() == 1)
    }

    @Test(arguments: TestEngine.all) func badMovesAreRefusedAndChangeNothing(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s1", "c@s2"])
        await #expect(throws: WaterfallError.unknownImage(feed: "f", id: "zz", place: "")) {
            try await catalog.service.move(feed: "f", id: "zz", to: .index(0))
        }
        await #expect(throws: WaterfallError.indexOutsideSection(index: 2, section: "s1", count: 2, place: "")) {
            try await catalog.service.move(feed: "f", id: "a", to: .index(2))
        }
        await #expect(throws: WaterfallError.moveOntoItself("cannot move \"a\" next to itself.")) {
            try await catalog.service.move(feed: "f", id: "a", to: .before("a"))
        }
        #expect(try await catalog.order() == ["s1/a", "s1/b", "s2/c"])
        #expect(try await catalog.revision() == 1)
    }

    @Test(arguments: TestEngine.all) func orderListTakesThePlacesOfTheSameImagesAcrossSections(engine: TestEngine)
        async throws
    {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s1", "c@s1", "d@s2", "e@s2"])
        // The client showed b, c, d and the user dragged d to the front.
        let document = ReorderDocumentBuilder.order(["d", "b", "c"])
        let summary = try await catalog.service.reorder(document, feed: "f")
        #expect(try await catalog.order() == ["s1/a", "s1/d", "s1/b", "s2/c", "s2/e"])
        #expect(summary.moved == 3 && summary.unchanged == 0)
    }

    @Test(arguments: TestEngine.all) func reorderFileIsAllOrNothing(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b", "c"])
        let document = ReorderDocumentBuilder.edits(moves: [("c", .index(0)), ("a", .after("nope"))], removals: [])
        await #expect(throws: WaterfallError.self) { try await catalog.service.reorder(document, feed: "f") }
        #expect(try await catalog.order() == ["-/a", "-/b", "-/c"])
        #expect(try await catalog.revision() == 1)
    }

    @Test(arguments: TestEngine.all) func removeIsAllOrNothing(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b", "c"])
        await #expect(throws: WaterfallError.self) { try await catalog.service.remove(feed: "f", ids: ["a", "zz"]) }
        #expect(try await catalog.order().count == 3)
        let summary = try await catalog.service.remove(feed: "f", ids: ["a", "c"])
        #expect(summary.removed == 2)
        #expect(try await catalog.order() == ["-/b"])
        #expect(try await catalog.service.changes(feed: "f", since: 1).changes.map(\.kind) == ["remove", "remove"])
    }

    @Test(arguments: TestEngine.all) func manyMovesToTheSameGapRenumberLocallyAndKeepOrder(engine: TestEngine)
        async throws
    {
        // 40 moves into the same gap exhaust 2^32 of key space and force a window renumbering.
        let catalog = try TestCatalog(engine)
        let ids = (0..<100).map { "i\($0)" }
        try await catalog.importFeed(ids)
        var expected = ids
        for step in 0..<40 {
            let id = "i\(99 - step)"
            _ = try await catalog.service.move(feed: "f", id: id, to: .after("i0"))
            expected.removeAll { $0 == id }
            expected.insert(id, at: 1)
        }
        #expect(try await catalog.order() == expected.map { "-/\($0)" })
    }

    @Test(arguments: TestEngine.all) func sqlLookingAndUnicodeIdsAreStoredLiterally(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        let json =
            #"{"feed":"f","images":[{"id":"x'); DROP TABLE image;--","width":10,"height":10},{"id":"鳥居","width":10,"height":10},{"id":"e\u0301","width":10,"height":10},{"id":"é","width":10,"height":10}]}"#
        try await catalog.importJSON(json)
        #expect(try await catalog.order() == ["-/x'); DROP TABLE image;--", "-/鳥居", "-/e\u{301}", "-/é"])
        _ = try await catalog.service.move(feed: "f", id: "é", to: .before("鳥居"))
        #expect(try await catalog.order()[1] == "-/é")
    }
}

/// Builds reorder documents in code.
enum ReorderDocumentBuilder {
    static func order(_ ids: [String]) -> ReorderDocument {
        ReorderDocument(feed: "f", operations: .order(ids))
    }

    static func edits(moves: [(String, MoveTarget)], removals: [String]) -> ReorderDocument {
        ReorderDocument(
            feed: "f",
            operations: .edits(
                moves: moves.enumerated().map {
                    ReorderMove(id: $0.element.0, target: $0.element.1, path: "moves[\($0.offset)]")
                },
                removals: removals))
    }
}
