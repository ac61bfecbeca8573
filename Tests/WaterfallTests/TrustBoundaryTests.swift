import Foundation
import Testing
import WaterfallStore
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// DESIGN section 19 in the service: tokens a client holds are authenticated and bounded, and a
/// feed removed and made anew is another incarnation, which nothing derived from the old one
/// (a cursor, an expected state) is taken for.
@Suite(.onOwnThreads(lane: .database)) struct TrustBoundaryTests {
    /// Issue 50, fault 1: a listing cursor was base64url of `R:I:K`, unauthenticated, and
    /// `1:9223372036854775807:0` trapped `offset + rows.count` (the process exited). Every forged
    /// cursor is now refused with one sentence before an image is read.
    @Test(arguments: TestEngine.all)
    func aForgedCursorIsRefusedAndNeverTraps(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        _ = try await catalog.importFeed((0..<23).map { "i\($0)@s\($0 % 3)" })
        func base64url(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let revision = try await catalog.revision()
        let forged = [
            "\(revision):9223372036854775807:0", "\(revision):9223372036854775806:9223372036854775807",
            "\(revision):1:0", "\(revision):-5:0", "0:1:0",
        ].map(base64url)
        let first = try await catalog.service.images(feed: "f", offset: 0, limit: 5)
        let good = try #require(first.nextCursor)
        // One bit changed anywhere, cut short, lengthened, or the alphabet left.
        var tampered: [String] = []
        for position in [0, 10, good.count / 2, good.count - 1] {
            var characters = Array(good)
            characters[position] = characters[position] == "A" ? "B" : "A"
            tampered.append(String(characters))
        }
        tampered += [
            String(good.dropLast()), good + "A", String(good.dropFirst()),
            good.replacingOccurrences(of: "A", with: "+"),
        ]
        for bad in forged + tampered + ["", String(repeating: "A", count: ListingCursor.tokenLength)] {
            await #expect(throws: WaterfallError.self, "\(bad)") {
                try await catalog.service.images(feed: "f", cursor: bad, limit: 1)
            }
            do {
                _ = try await catalog.service.images(feed: "f", cursor: bad, limit: 1)
            } catch {
                guard case .invalidValue(.cursor, let sentence) = error else {
                    Issue.record("\(bad): \(error)")
                    continue
                }
                #expect(!sentence.contains("\n") && sentence.hasSuffix("."))
            }
        }
        // The good one still lists on.
        #expect(try await catalog.service.images(feed: "f", cursor: good, limit: 5).images.first?.index == 5)
    }

    /// A cursor is signed for its feed's name: another feed's cursor does not verify here.
    @Test(arguments: TestEngine.all)
    func aCursorOfAnotherFeedIsNotOneOfThisFeed(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(TestCatalog.feedJSON("f", (0..<10).map { "i\($0)" }))
        try await catalog.importJSON(TestCatalog.feedJSON("g", (0..<10).map { "i\($0)" }))
        let cursor = try #require(try await catalog.service.images(feed: "f", offset: 0, limit: 3).nextCursor)
        await #expect(throws: WaterfallError.self) {
            try await catalog.service.images(feed: "g", cursor: cursor, limit: 3)
        }
    }

    /// Issue 50, fault 3: a feed removed and made anew got the removed feed's id on SQLite (the
    /// greatest id plus one), with the same revision and image count, so nothing could tell it
    /// from the old one. Its id is now its incarnation, never used twice on either engine; the
    /// old feed's cursor answers 410 and a write expecting the old feed is refused.
    @Test(arguments: TestEngine.all)
    func aFeedMadeAnewIsAnotherIncarnation(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        let specs = (0..<40).map { "i\($0)@s\($0 / 10)" }
        _ = try await catalog.importFeed(specs)
        let old = try await catalog.service.images(feed: "f", offset: 0, limit: 5)
        let cursor = try #require(old.nextCursor)
        try await catalog.service.removeFeed(named: "f")
        _ = try await catalog.importFeed(specs.enumerated().map { $0 < 5 ? "i\($0)@s0" : $0 < 20 ? "i\($0)@s1" : $1 })
        let new = try await catalog.service.images(feed: "f", offset: 0, limit: 5)
        #expect(new.revision == old.revision)
        #expect(new.incarnation != old.incarnation)
        await #expect(throws: WaterfallError.cursorOfRemovedFeed(feed: "f", current: new.revision)) {
            try await catalog.service.images(feed: "f", cursor: cursor, limit: 5)
        }
        await #expect(throws: WaterfallError.feedRemadeSinceRead(feed: "f")) {
            try await catalog.service.expecting(old.version).move(feed: "f", id: "i3", to: .index(0))
        }
        _ = try await catalog.service.expecting(new.version).move(feed: "f", id: "i3", to: .index(0))
        // Ids are never reused, however many feeds come and go.
        var seen: Set<Int64> = [old.incarnation, new.incarnation]
        for _ in 0..<3 {
            try await catalog.service.removeFeed(named: "f")
            _ = try await catalog.importFeed(specs)
            let incarnation = try await catalog.service.images(feed: "f", offset: 0, limit: 1).incarnation
            #expect(seen.insert(incarnation).inserted)
        }
    }

    /// Issue 50, fault 4: an event stream from revision 0 read the whole log and sent a
    /// 200,000-image import as one event (241 MiB for four streams). The log is read a page at a
    /// time, and a revision of more changes than a page holds is given by its counts.
    @Test(arguments: TestEngine.all)
    func eventPagesHoldAtMostAPageAndTruncateALargeRevision(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        _ = try await catalog.importFeed((0..<30).map { "i\($0)@s\($0 % 2)" })
        for index in 0..<5 { _ = try await catalog.service.move(feed: "f", id: "i\(index)", to: .index(3)) }
        let first = try await catalog.service.changeEvents(feed: "f", since: 0, limit: 10)
        #expect(first.more)
        #expect(first.events == [.truncated(revision: 1, counts: [.insert: 30])])
        var since: Int64 = 1
        var revisions: [Int64] = []
        while true {
            let page = try await catalog.service.changeEvents(feed: "f", since: since, limit: 2)
            for event in page.events {
                guard case .whole(let revision, let changes) = event else {
                    Issue.record("a move came truncated")
                    continue
                }
                #expect(changes.count == 1 && changes[0].kind == "move")
                revisions.append(revision)
            }
            #expect(page.events.count <= 2)
            guard page.more, let last = page.events.last else { break }
            since = last.revision
        }
        #expect(revisions == [2, 3, 4, 5, 6])
    }
}

extension TrustBoundaryTests {
    /// Found by an attacker's reading of issue 50's first step: a write expecting a feed since
    /// removed (and not made anew) passed, its revision taken for 0's.
    @Test func aWriteExpectingARemovedFeedIsRefused() async throws {
        let catalog = try TestCatalog(.sqlite)
        _ = try await catalog.importFeed(["a", "b"])
        let read = try await catalog.service.images(feed: "f", offset: 0, limit: 1)
        try await catalog.service.removeFeed(named: "f")
        await #expect(throws: WaterfallError.feedRemadeSinceRead(feed: "f")) {
            let document = try FeedDecoder().decode(
                Array(TestCatalog.feedJSON("f", ["c"]).utf8), format: .json, source: "test.json")
            _ = try await catalog.service.expecting(FeedVersion(incarnation: read.incarnation, revision: 0))
                .importFeed(document, named: "f", options: .init())
        }
    }
}
