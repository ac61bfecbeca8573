import Synchronization
import Testing
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// Tags (DESIGN section 20) through the service on both engines: what an import keeps, what a
/// re-import counts as changed, and what listings by tag answer (offset, cursor, the stream).
@Suite(.onOwnThreads(lane: .database)) struct TagServiceTests {
    /// Ten images; the even ones tagged "even", every third "three", image 0 both spellings of
    /// "café", and image 7 a tag that holds "even" inside it.
    static let feed: String = {
        let images = (0..<10).map { index -> String in
            var tags: [String] = []
            if index % 2 == 0 { tags.append("even") }
            if index % 3 == 0 { tags.append("three") }
            if index == 0 { tags += ["caf\\u00e9", "cafe\\u0301", "🏖"] }
            if index == 7 { tags.append("uneven") }
            let list = tags.map { "\"\($0)\"" }.joined(separator: ", ")
            return #"{"id": "i\#(index)", "width": 100, "height": \#(100 + index), "tags": [\#(list)]}"#
        }
        return #"{"feed": "f", "images": [\#(images.joined(separator: ",\n"))]}"#
    }()

    @Test(arguments: TestEngine.all)
    func listingsCarryTheTagsAndATagSelectsItsImagesExactly(engine: TestEngine) async throws {
        // Given the feed imported
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feed)

        // Then the listing carries each image's tags in the feed's order
        let all = try await catalog.service.images(feed: "f", offset: 0, limit: 100)
        #expect(all.images[0].tags == ["even", "three", "caf\u{e9}", "cafe\u{301}", "🏖"])
        #expect(all.images[1].tags.isEmpty)
        #expect(all.images[7].tags == ["uneven"])

        // And a tag lists its images alone, counted among themselves, never a tag that holds it
        let even = try await catalog.service.images(feed: "f", offset: 1, limit: 2, tag: "even")
        #expect(even.totalItems == 5)
        #expect(even.images.map(\.id) == ["i2", "i4"])
        #expect(even.images.map(\.index) == [1, 2])
        #expect(even.nextOffset == 3)

        // And the two spellings of "café" are two tags
        #expect(try await catalog.service.images(feed: "f", offset: 0, limit: 10, tag: "cafe\u{301}").totalItems == 1)
        #expect(try await catalog.service.images(feed: "f", offset: 0, limit: 10, tag: "caf").totalItems == 0)
        #expect(try await catalog.service.images(feed: "f", offset: 0, limit: 10, tag: "🏖").images.map(\.id) == ["i0"])
        let none = try await catalog.service.images(feed: "f", offset: 0, limit: 10, tag: "nobody")
        #expect(none.totalItems == 0 && none.images.isEmpty && none.nextOffset == nil && none.nextCursor == nil)
    }

    @Test(arguments: TestEngine.all)
    func aCursorGoesOnWithItsTagAloneAndTheStreamListsThemToo(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feed)

        // When the images tagged "three" are paged two at a time by cursor
        var ids: [String] = []
        var indexes: [Int] = []
        var page = try await catalog.service.images(feed: "f", offset: 0, limit: 2, tag: "three")
        ids += page.images.map(\.id)
        indexes += page.images.map(\.index)
        let first = try #require(page.nextCursor)
        while let cursor = page.nextCursor {
            page = try await catalog.service.images(feed: "f", cursor: cursor, limit: 2, tag: "three")
            ids += page.images.map(\.id)
            indexes += page.images.map(\.index)
        }
        // Then they are all listed once, in order
        #expect(ids == ["i0", "i3", "i6", "i9"])
        #expect(indexes == [0, 1, 2, 3])

        // And the cursor is refused without its tag, with another, and a plain one with a tag
        for tag in [nil, "even"] as [String?] {
            await #expect(throws: WaterfallError.self) {
                try await catalog.service.images(feed: "f", cursor: first, limit: 2, tag: tag)
            }
        }
        let plain = try #require(try await catalog.service.images(feed: "f", offset: 0, limit: 2).nextCursor)
        await #expect(throws: WaterfallError.self) {
            try await catalog.service.images(feed: "f", cursor: plain, limit: 2, tag: "three")
        }

        // And the stream with a tag gives the same images, its head counting them
        let lines = LockedLines()
        try await catalog.service.streamImages(
            feed: "f", tag: "even", head: { lines.add("head \($0.totalItems)") },
            images: { images in for image in images { lines.add("\(image.index) \(image.id)") } })
        #expect(lines.all == ["head 5", "0 i0", "1 i2", "2 i4", "3 i6", "4 i8"])
    }

    @Test(arguments: TestEngine.all)
    func aChangeOfTagsAloneIsAnUpdateAndAnImportWithoutThemRemovesThem(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feed)

        // When the feed is imported again with image 1 tagged and image 0 without tags
        let changed = Self.feed.replacing(
            #""id": "i1", "width": 100, "height": 101, "tags": []"#,
            with: #""id": "i1", "width": 100, "height": 101, "tags": ["new"]"#
        )
        .replacing(#""tags": ["even", "three", "caf\u00e9", "cafe\u0301", "🏖"]"#, with: #""tags": null"#)
        #expect(changed != Self.feed)
        let summary = try await catalog.importJSON(changed)

        // Then both are updates, and the listing shows the tags as they are now
        #expect(summary.updated == 2 && summary.inserted == 0 && summary.moved == 0)
        let changes = try await catalog.service.changes(feed: "f", since: summary.revision - 1)
        #expect(changes.changes.map(\.kind) == ["update", "update"])
        let all = try await catalog.service.images(feed: "f", offset: 0, limit: 2)
        #expect(all.images.map(\.tags) == [[], ["new"]])
        #expect(try await catalog.service.images(feed: "f", offset: 0, limit: 10, tag: "even").totalItems == 4)

        // And an import that gives the same tags again changes nothing
        #expect(try await catalog.importJSON(changed).updated == 0)
    }

    @Test func aTagNoImageCouldCarryIsRefusedInOneSentence() async throws {
        let catalog = try TestCatalog()
        try await catalog.importJSON(Self.feed)
        for tag in ["", "a\u{0}b", String(repeating: "x", count: 65)] {
            await #expect(throws: WaterfallError.self) {
                try await catalog.service.images(feed: "f", offset: 0, limit: 2, tag: tag)
            }
        }
        do {
            _ = try await catalog.service.images(feed: "f", offset: 0, limit: 2, tag: "a\tb")
            Issue.record("a tag with a tab was taken")
        } catch {
            #expect(
                error.sentence(naming: \.rawValue)
                    == #"tag must be 1 to 64 bytes without control characters, got "a\tb"."#)
        }
    }
}

/// Lines a stream's callbacks add from the store's thread.
private final class LockedLines: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
