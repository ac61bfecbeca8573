import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallJSON
import WaterfallMirror
import WaterfallServer
import WaterfallSync
import WaterfallTestSupport

/// `waterfall mirror` (DESIGN section 21) against a live server on both engines: after every
/// step of a random sequence of writes at the source, a sync brings the mirror to answers equal
/// to the source's, byte for byte (listings, sections, pages, viewports, section indexes of a
/// waterfall and a justified layout, and views), through catch-ups, a pruned log, a feed made
/// anew and a feed removed; and the mirror refuses writes.
@Suite(.onOwnThreads(lane: .database)) struct MirrorTests {
    @Test(arguments: TestEngine.all)
    func aMirrorAnswersAsItsSourceAfterEveryKindOfChange(engine: TestEngine) async throws {
        let schema = engine == .postgres ? try PostgresScratchSchema() : nil
        defer { withExtendedLifetime(schema) {} }
        let fixture = try await TestServer(database: schema?.url, limits: ClientTests.patientLimits)
        let source = fixture.service
        _ = try await source.importFeed(
            contentsOf: TestServer.sampleData("coco-sample.ndjson"),
            options: .init(feedName: "coco", sectionBy: .month))
        try await source.addLayout(
            feed: "coco", name: "rows",
            configuration: .justified(JustifiedConfiguration(width: 400, rowHeight: 80, headerHeight: 20)))
        _ = try await source.addView(
            feed: "travel", name: "wide",
            rule: try ViewRule(json: Array(#"{"where": {"aspect": {"min": 1.2}}}"#.utf8), source: "rule"))
        try await fixture.server.application().test(.live) { client in
            let port = try #require(client.port)
            let mirror = try await WaterfallMirror(
                source: "http://127.0.0.1:\(port)", path: fixture.folder.path("mirror.sqlite"))
            do {
                var generator = SeededGenerator(seed: 53)
                #expect(try await mirror.sync().map(\.outcome) == [.listed, .listed])
                try await Self.expectEqual(mirror.service, source, "first listing")
                for step in 0..<40 {
                    let change = try await Self.change(source, step: step, &generator)
                    let outcomes = try await mirror.sync().map(\.outcome)
                    #expect(!outcomes.contains(.listed) || change.relists, "step \(step) (\(change.name)): \(outcomes)")
                    try await Self.expectEqual(mirror.service, source, "step \(step) (\(change.name))")
                }
                // A mirror ahead of its source (restored from a backup since) is told to list again.
                try await client.execute(uri: "/v1/feeds/travel/mirror?since=9999", method: .get) { response in
                    response.expectProblem(.gone, "list it again")
                }
                // A write to the mirror is refused, naming its source.
                await #expect(throws: WaterfallError.mirrorIsReadOnly(source: "http://127.0.0.1:\(port)")) {
                    _ = try await mirror.service.move(feed: "travel", id: "gion", to: .index(0))
                }
                // A feed removed at the source goes from the mirror: gone from the source's list
                // of feeds, or (a list the server kept, not yet told of the removal) answering 404.
                try await source.removeFeed(named: "coco")
                let outcomes = try await mirror.sync().map(\.outcome)
                #expect(outcomes == [.current] || outcomes == [.removed, .current], "\(outcomes)")
                #expect(try await mirror.service.feeds().feeds.map(\.name) == ["travel"])
            } catch {
                try? await mirror.close()
                throw error
            }
            try await mirror.close()
        }
    }

    /// `follow()` brings a move at the source to the mirror by the feed's event stream (how
    /// soon is `Benchmarks/mirror.sh`'s to measure; this bounds a hang only), and a server over
    /// the mirror (an edge) answers as the source and refuses writes with 403.
    @Test func aFollowingMirrorTakesEachChangeAndItsServerRefusesWrites() async throws {
        let fixture = try await TestServer(limits: ClientTests.patientLimits)
        let source = fixture.service
        try await fixture.server.application().test(.live) { client in
            let port = try #require(client.port)
            let path = fixture.folder.path("edge.sqlite")
            let mirror = try await WaterfallMirror(source: "http://127.0.0.1:\(port)", path: path, feeds: ["travel"])
            var following: Task<Void, any Error>?
            do {
                try await mirror.sync()
                following = Task { try await mirror.follow() }
                for step in 1...3 {
                    let moved = try await source.move(
                        feed: "travel", id: step % 2 == 0 ? "gion" : "belem", to: .index(0))
                    var waited = 0
                    while try await mirror.service.feed(named: "travel").revision != moved.revision, waited < 6_000 {
                        try await Task.sleep(for: .milliseconds(10))
                        waited += 1
                    }
                    try await Self.expectEqual(mirror.service, source, "followed move \(step)")
                }
                following?.cancel()
                _ = await following?.result
                let edge = try await WaterfallServer(
                    service: try WaterfallService.openForServing(path: path), configuration: ServerConfiguration())
                try await edge.application().test(.router) { edgeClient in
                    try await edgeClient.execute(
                        uri: "/v1/feeds/travel/reorder", method: .post,
                        body: ByteBuffer(string: #"{"moves": [{"id": "gion", "to": 0}]}"#)
                    ) { response in
                        response.expectProblem(.forbidden, "this catalog is a mirror of http://127.0.0.1:\(port)")
                    }
                    let expected = String(
                        decoding: try StableJSON.document(
                            of: try await source.page(feed: "travel", layout: .named("phone"), offset: 0, limit: 5)),
                        as: UTF8.self)
                    try await edgeClient.execute(uri: "/v1/feeds/travel/layouts/phone/page?limit=5", method: .get) {
                        response in
                        #expect(response.status == .ok && response.text == expected)
                    }
                }
            } catch {
                following?.cancel()
                try? await mirror.close()
                throw error
            }
            try await mirror.close()
        }
    }

    /// A source that cannot be reached leaves the mirror as it was, with one sentence (exit 74).
    @Test func anUnreachableSourceLeavesTheMirrorAsItWas() async throws {
        let folder = try TemporaryDirectory()
        let mirror = try await WaterfallMirror(source: "http://127.0.0.1:1", path: folder.path("m.sqlite"))
        do {
            await #expect {
                try await mirror.sync()
            } throws: { error in
                guard case .unavailable(let sentence) = error as? WaterfallError else { return false }
                return sentence.hasPrefix("http://127.0.0.1:1 did not answer the list of feeds")
                    && !sentence.contains("\n")
            }
            #expect(try await mirror.service.feeds().feeds.isEmpty)
        } catch {
            try? await mirror.close()
            throw error
        }
        try await mirror.close()
    }

    /// One random write at the source, and whether the mirror must list again after it.
    static func change(_ source: WaterfallService, step: Int, _ generator: inout SeededGenerator) async throws
        -> (name: String, relists: Bool)
    {
        let feed = Bool.random(using: &generator) ? "travel" : "coco"
        let ids = try await source.images(feed: feed, offset: 0, limit: 10_000).images.map(\.id)
        switch step % 10 {
        case 0, 1, 2, 3:
            let moved = ids.randomElement(using: &generator)!
            let others = ids.filter { $0 != moved }
            let target: MoveTarget =
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: .before(others.randomElement(using: &generator)!)
                case 1: .after(others.randomElement(using: &generator)!)
                default: .index(0)
                }
            for _ in 0..<Int.random(in: 1...5, using: &generator) {
                _ = try? await source.move(feed: feed, id: moved, to: target)
            }
            return ("moves in \(feed)", false)
        case 4:
            let images = (0..<Int.random(in: 1...30, using: &generator)).map { index in
                FeedImage(
                    id: "new-\(step)-\(index)", width: Int32.random(in: 1...4000, using: &generator),
                    height: Int32.random(in: 1...4000, using: &generator), url: nil, title: "new ✨ \(index)",
                    takenAt: feed == "coco" ? 1_500_000_000_000 + Int64(index) * 86_400_000 : nil)
            }
            _ = try await source.importFeed(
                FeedDocument(images: images), named: feed, options: .init(feedName: feed, mode: .append))
            return ("append to \(feed)", false)
        case 5:
            let removed = Array(ids.shuffled(using: &generator).prefix(Int.random(in: 1...3, using: &generator)))
            _ = try await source.remove(feed: feed, ids: removed)
            return ("removals from \(feed)", false)
        case 6:
            // A re-import, half the time with a section's title changed: a revision that may
            // name no image (the views of a catch-up over it are built anew).
            var json = try String(contentsOfFile: TestServer.sampleData("travel.json"), encoding: .utf8)
            if Bool.random(using: &generator) {
                json = json.replacingOccurrences(of: "May 2024 — Lisbon", with: "Lisbon, step \(step)")
            }
            let document = try FeedDecoder().decode(Array(json.utf8), format: .json, source: "travel.json")
            _ = try await source.importFeed(document, named: "travel", options: .init())
            return ("re-import of travel", false)
        case 7:
            if step % 20 == 7 {
                try await source.addLayout(
                    feed: "travel", name: "three",
                    configuration: .waterfall(LayoutConfiguration(columns: 3, width: 600, headerHeight: 30)))
            } else {
                try? await source.removeLayout(feed: "travel", name: "three")
            }
            return ("layouts", false)
        case 8:
            _ = try await source.move(feed: "travel", id: "gion", to: .index(0))
            _ = try await source.pruneChanges(keeping: .revisions(0))
            return ("a log pruned past the mirror", true)
        default:
            try await source.removeFeed(named: "travel")
            _ = try await source.importFeed(contentsOf: TestServer.sampleData("travel.json"), options: .init())
            try await source.addLayout(
                feed: "travel", name: "phone",
                configuration: .waterfall(LayoutConfiguration(columns: 2, width: 375, headerHeight: 44)))
            return ("travel made anew", true)
        }
    }

    /// Every answer compared: the feeds, and of each its listing, sections, views, and for each
    /// named layout (and each view) a page, a deep page, a viewport and the section index.
    static func expectEqual(_ mirror: WaterfallService, _ source: WaterfallService, _ step: String) async throws {
        func same(_ a: some JSONWritable, _ b: some JSONWritable, _ what: String) throws {
            let (left, right) = (try StableJSON.document(of: a), try StableJSON.document(of: b))
            #expect(
                left == right,
                "\(step): \(what) differs:\n\(String(decoding: left, as: UTF8.self))\n\(String(decoding: right, as: UTF8.self))"
            )
        }
        try same(try await mirror.feeds(), try await source.feeds(), "feeds")
        for feed in try await source.feeds().feeds.map(\.name) {
            try same(
                try await mirror.images(feed: feed, offset: 0, limit: 100_000),
                try await source.images(feed: feed, offset: 0, limit: 100_000), "\(feed) listing")
            try same(try await mirror.sections(feed: feed), try await source.sections(feed: feed), "\(feed) sections")
            try same(try await mirror.views(feed: feed), try await source.views(feed: feed), "\(feed) views")
            let views = [nil] + (try await source.views(feed: feed).views.map(\.name))
            for layout in try await source.layouts(feed: feed) {
                for view in views {
                    let (m, s) = (mirror.inView(view), source.inView(view))
                    let named = LayoutSource.named(layout.name)
                    let what = "\(feed) \(layout.name) \(view ?? "")"
                    try same(
                        try await m.page(feed: feed, layout: named, offset: 0, limit: 10),
                        try await s.page(feed: feed, layout: named, offset: 0, limit: 10), "\(what) page")
                    try same(
                        try await m.page(feed: feed, layout: named, offset: 7, limit: 50),
                        try await s.page(feed: feed, layout: named, offset: 7, limit: 50), "\(what) deep page")
                    try same(
                        try await m.viewport(feed: feed, layout: named, y: 300, height: 800),
                        try await s.viewport(feed: feed, layout: named, y: 300, height: 800), "\(what) viewport")
                    try same(
                        try await m.sectionIndex(feed: feed, layout: named),
                        try await s.sectionIndex(feed: feed, layout: named), "\(what) section index")
                }
            }
        }
    }
}
