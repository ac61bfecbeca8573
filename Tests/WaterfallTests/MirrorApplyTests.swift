import Foundation
import Testing
import WaterfallStore
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// What a mirror writes (DESIGN section 21) from what a source sent, read as hostile input: a
/// head or lines out of their bounds are refused in one sentence with nothing written, and a
/// catalog that is not a mirror of that source is never made one.
@Suite struct MirrorApplyTests {
    static let source = "http://source.example"

    /// A head of a feed `f` at revision 3 listing `count` images in the unnamed section.
    static func head(_ count: Int, feed: String = "f") -> MirrorHead {
        MirrorHead(
            catalog: "c0ffee", feed: feed, incarnation: 7, revision: 3, since: nil, totalItems: count, sectionBy: nil,
            timeZone: nil, sections: [.init(id: nil, title: nil, declared: false)], layouts: [], views: [])
    }

    /// Image lines, as a file the mirror spooled.
    static func lines(_ folder: TemporaryDirectory, _ text: String) throws -> String {
        let path = folder.path("lines.ndjson")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func line(_ id: String) -> String { #"{"id": "\#(id)", "width": 30, "height": 20}"# + "\n" }

    @Test func aListingIsWrittenWholeAtTheSourcesRevisionOrNotAtAll() async throws {
        let catalog = try TestCatalog()
        let folder = try TemporaryDirectory()
        // Given fewer lines than the head gives, more, a line too long, a feed name no feed may
        // have (a view's membership's), and a change row outside the listing: each is refused.
        let cases: [(MirrorHead, String, String)] = [
            (Self.head(3), Self.line("a") + Self.line("b"), "listed 2 images of feed \"f\", not the 3"),
            (Self.head(1), Self.line("a") + Self.line("b"), "more images of feed \"f\" than the 1"),
            (
                Self.head(1),
                #"{"id": "a", "width": 30, "height": 20, "title": ""# + String(repeating: "x", count: 1 << 21)
                    + "\"}\n", "over 1048576 bytes"
            ),
            (Self.head(1, feed: "\u{1F}view 1 v"), Self.line("a"), "contains a control character"),
        ]
        for (head, text, fragment) in cases {
            await #expect {
                try await catalog.service.writeMirrorListing(
                    source: Self.source, head: head, linesAt: try Self.lines(folder, text))
            } throws: { error in
                "\(error)".contains(fragment)
            }
        }
        var changed = Self.head(1)
        changed.changes = [ChangeList.Change(revision: 9, kind: "move", id: "a", section: nil)]
        await #expect(throws: WaterfallError.self) {
            try await catalog.service.writeMirrorListing(
                source: Self.source, head: changed, linesAt: try Self.lines(folder, Self.line("a")))
        }
        // Then nothing was written: no feed, and the catalog is no mirror.
        #expect(try await catalog.service.feeds().feeds.isEmpty)
        // And when it is right: the feed at the source's revision, and no other write allowed.
        let mirror = try TestCatalog()
        try await mirror.service.writeMirrorListing(
            source: Self.source, head: Self.head(2), linesAt: try Self.lines(folder, Self.line("a") + Self.line("b")))
        #expect(try await mirror.service.feed(named: "f").revision == 3)
        await #expect(throws: WaterfallError.mirrorIsReadOnly(source: Self.source)) {
            _ = try await mirror.service.remove(feed: "f", ids: ["a"])
        }
    }

    @Test func aCatalogOfItsOwnOrAMirrorOfAnotherSourceIsNeverMadeAMirror() async throws {
        let folder = try TemporaryDirectory()
        // Given a catalog with a feed of its own
        let own = try TestCatalog()
        _ = try await own.importFeed(["x"])
        // When a source's listing of a feed of the same name comes, then it is refused untouched.
        await #expect(
            throws: WaterfallError.cannotCreate(
                "this catalog holds feeds of its own, so it cannot become a mirror of \(Self.source); mirror into a new file."
            )
        ) {
            try await own.service.writeMirrorListing(
                source: Self.source, head: Self.head(1), linesAt: try Self.lines(folder, Self.line("a")))
        }
        #expect(try await own.order() == ["-/x"])
        // Given a mirror of one source, when another source's listing comes, then refused.
        let mirror = try TestCatalog()
        try await mirror.service.writeMirrorListing(
            source: Self.source, head: Self.head(1), linesAt: try Self.lines(folder, Self.line("a")))
        await #expect(throws: WaterfallError.self) {
            try await mirror.service.writeMirrorListing(
                source: "http://other.example", head: Self.head(1, feed: "g"),
                linesAt: try Self.lines(folder, Self.line("b")))
        }
        await #expect(throws: WaterfallError.self) {
            try await mirror.service.checkMirrorTarget(source: "http://other.example")
        }
        #expect(try await mirror.service.feeds().feeds.map(\.name) == ["f"])
    }

    @Test func aCatchUpOfAnotherCatalogOrIncarnationIsListedAgainNotApplied() async throws {
        let folder = try TemporaryDirectory()
        let mirror = try TestCatalog()
        try await mirror.service.writeMirrorListing(
            source: Self.source, head: Self.head(2), linesAt: try Self.lines(folder, Self.line("a") + Self.line("b")))
        // A catch-up from revision 3 moving b first, from another catalog, then another
        // incarnation: neither fits (the mirror lists again); from the right one, it applies.
        var catchUp = Self.head(2)
        catchUp.since = 3
        catchUp.revision = 4
        catchUp.changes = [ChangeList.Change(revision: 4, kind: "move", id: "b", section: nil)]
        catchUp.after = [nil]
        let lines = try Self.lines(folder, Self.line("b"))
        var otherCatalog = catchUp
        otherCatalog.catalog = "beef"
        var otherIncarnation = catchUp
        otherIncarnation.incarnation = 8
        #expect(try await !mirror.service.writeMirrorCatchUp(source: Self.source, head: otherCatalog, linesAt: lines))
        #expect(
            try await !mirror.service.writeMirrorCatchUp(source: Self.source, head: otherIncarnation, linesAt: lines))
        #expect(try await mirror.service.images(feed: "f", offset: 0, limit: 10).images.map(\.id) == ["a", "b"])
        #expect(try await mirror.service.writeMirrorCatchUp(source: Self.source, head: catchUp, linesAt: lines))
        #expect(try await mirror.service.images(feed: "f", offset: 0, limit: 10).images.map(\.id) == ["b", "a"])
        #expect(try await mirror.service.changes(feed: "f", since: 3).changes.map(\.id) == ["b"])
    }
}
