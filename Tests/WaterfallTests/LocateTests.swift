import Foundation
import Testing
import WaterfallStore
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// `locate` and the anchored viewport (DESIGN section 16), and `locate` by date (section 17):
/// every answer equals what a page of the whole feed says of the image, from the layout cache
/// and from a server's kept feed, after moves and appends.
@Suite(.onOwnThreads(lane: .database)) struct LocateTests {
    static let layouts: [AnyLayoutConfiguration] = [
        .waterfall(LayoutConfiguration(columns: 3, width: 400, headerHeight: 30, footerHeight: 8)),
        .waterfall(LayoutConfiguration(columns: 1, width: 320)),
        .justified(JustifiedConfiguration(width: 500, rowHeight: 90, headerHeight: 20)),
    ]

    /// Every image of every layout located by id, by a service reading the layout cache and by
    /// one keeping the feed in memory, against the whole feed's page.
    private func expectEveryImageLocated(_ catalog: TestCatalog, _ hot: WaterfallService, _ context: String)
        async throws
    {
        for layout in Self.layouts {
            let whole = try await catalog.service.page(feed: "f", layout: .inline(layout), offset: 0, limit: 10_000)
            for (position, item) in whole.items.enumerated() {
                for service in [catalog.service, hot] {
                    let located = try await service.locate(feed: "f", layout: .inline(layout), .id(item.id), limit: 7)
                    #expect(
                        located.index == position && located.index == item.index, "\(context): \(item.id) in \(layout)")
                    #expect(
                        located.frame == item.frame && located.section == item.section,
                        "\(context): \(item.id) in \(layout)")
                    #expect(
                        located.offset == position / 7 * 7 && located.revision == whole.revision,
                        "\(context): \(item.id)")
                }
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func everyImageIsWhereAPageOfTheWholeFeedPutsIt(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine, stride: 4)
        // Three sections, one of them empty, full-span images, sizes huge and tiny, unicode ids.
        try await catalog.importJSON(
            TestCatalog.feedJSON(
                sections: ["a", "empty", "b", "c"],
                (0..<45).map { index in
                    let section = ["a", "b", "c"][index / 15]
                    let size =
                        index % 11 == 0
                        ? "40000x30" : index % 7 == 0 ? "1x1" : "\(100 + index * 13)x\(90 + index * 7 % 200)"
                    return "é\(index)ü@\(section):\(size)\(index % 9 == 4 ? "!" : "")"
                }))
        let hot = WaterfallService(database: catalog.service.database, stride: 4).keepingFeeds(
            KeptFeeds(budget: 1 << 20))
        try await expectEveryImageLocated(catalog, hot, "imported")
        // A move across sections and an append: the kept feed's copy follows, the cache is redone.
        _ = try await catalog.service.move(feed: "f", id: "é3ü", to: .after("é40ü"))
        try await catalog.importJSON(TestCatalog.feedJSON("f", ["new1@a:500x100", "new2@c:100x500"]), mode: .append)
        try await expectEveryImageLocated(catalog, hot, "after a move and an append")
    }

    /// The kept feed's copy's own search: every image's index by its key, `nil` for a key it lacks.
    @Test(arguments: TestEngine.all)
    func theKeptCopyFindsEveryImagesIndexByItsKey(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine, stride: 4)
        try await catalog.importJSON(
            TestCatalog.feedJSON(sections: ["a", "empty", "b"], (0..<40).map { "i\($0)@\($0 % 3 == 0 ? "a" : "b")" }))
        _ = try await catalog.service.move(feed: "f", id: "i9", to: .index(0))
        let (geometry, images) = try await catalog.service.database.read { tx in
            let feed = try #require(try tx.feed(named: "f"))
            return (try KeptGeometry(feed: feed, tx), try tx.allImages(feedID: feed.id))
        }
        for (index, image) in images.enumerated() {
            #expect(geometry.index(ofKey: image.key, inSection: image.sectionID) == index, "\(image.externalID)")
            #expect(geometry.index(ofKey: image.key + 1, inSection: image.sectionID) == nil)
        }
        #expect(geometry.index(ofKey: images[0].key, inSection: -1) == nil)
    }

    @Test(arguments: TestEngine.all)
    func anUnknownIdOrABadLimitIsRefused(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a", "b"])
        let layout = LayoutSource.inline(Self.layouts[0])
        await #expect(throws: WaterfallError.unknownImage(feed: "f", id: "zz", place: "")) {
            try await catalog.service.locate(feed: "f", layout: layout, .id("zz"))
        }
        await #expect(throws: WaterfallError.self) {
            try await catalog.service.locate(feed: "f", layout: layout, .id("a"), limit: 0)
        }
        await #expect(throws: WaterfallError.unknownLayout(feed: "f", layout: "nope")) {
            try await catalog.service.locate(feed: "f", layout: .named("nope"), .id("a"))
        }
        await #expect(try catalog.service.locate(feed: "f", layout: layout, .id("b")).offset == 0)
    }

    @Test(arguments: TestEngine.all)
    func anAnchoredViewportPutsTheImageAtAnchorY(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine, stride: 4)
        try await catalog.importFeed((0..<60).map { "i\($0)@s\($0 / 20):\(100 + $0 * 7)x\(300 - $0 * 3)" })
        for layout in Self.layouts {
            for id in ["i0", "i27", "i59"] {
                let located = try await catalog.service.locate(feed: "f", layout: .inline(layout), .id(id))
                let anchored = try await catalog.service.viewport(
                    feed: "f", layout: .inline(layout), anchor: id, anchorY: 120, height: 500, pinOffset: 0)
                let plain = try await catalog.service.viewport(
                    feed: "f", layout: .inline(layout), y: located.frame.y - 120, height: 500, pinOffset: 0)
                #expect(anchored == plain)
                #expect(anchored.items.contains { $0.id == id && $0.frame.y - anchored.y == 120 })
            }
        }
        await #expect(throws: WaterfallError.self) {
            try await catalog.service.viewport(
                feed: "f", layout: .inline(Self.layouts[0]), anchor: "i1", anchorY: .nan, height: 500)
        }
    }

    /// `locate?date=` against a reference: the first image of the feed's order whose date is at
    /// or before the moment, the moment read with Foundation's calendar in the feed's zone.
    @Test(arguments: TestEngine.all, ["UTC", "America/New_York", "Pacific/Kiritimati"])
    func aDateLocatesTheFirstImageTakenAtOrBeforeIt(engine: TestEngine, zone: String) async throws {
        let catalog = try TestCatalog(engine, stride: 4)
        let photos = DateSectionTests.randomLibrary(seed: 7, count: 120)
        try await catalog.importJSON(DateSectionTests.feedJSON(photos, sectionBy: "month", timeZone: zone))
        let layout = LayoutSource.inline(Self.layouts[0])
        let whole = try await catalog.service.page(feed: "f", layout: layout, offset: 0, limit: 10_000)
        let taken = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0.seconds) })
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        // The DST days of New York, midnights, a +14:00 day, minutes, before and after everything.
        let asked = [
            "2017-03-12", "2017-03-12T02:30", "2017-11-05T01:30", "2017-11-05", "2017-06-01", "2017-12-31T23:59",
            "2016-01-01", "2018-12-31", "2019-01-01T00:00", "2016-07-04T12:00",
        ]
        for text in asked {
            let parts = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).map { Int($0)! }
            let components = DateComponents(
                year: parts[0], month: parts[1], day: parts[2], hour: parts.count > 3 ? parts[3] : 0,
                minute: parts.count > 4 ? parts[4] : 0)
            let moment = Int64(calendar.date(from: components)!.timeIntervalSince1970)
            let expected = whole.items.first { item in taken[item.id]!.map { $0 <= moment } ?? false }
            if let expected {
                let located = try await catalog.service.locate(feed: "f", layout: layout, .date(text))
                #expect(
                    located.id == expected.id && located.index == expected.index && located.frame == expected.frame,
                    "\(text) in \(zone)")
            } else {
                await #expect(throws: WaterfallError.nothingTakenBy(feed: "f", date: text), "\(text) in \(zone)") {
                    try await catalog.service.locate(feed: "f", layout: layout, .date(text))
                }
            }
        }
        await #expect(throws: WaterfallError.nothingTakenBy(feed: "f", date: "1600-01-01")) {
            try await catalog.service.locate(feed: "f", layout: layout, .date("1600-01-01"))
        }
        for bad in [
            "2017-02-29", "2017-1-01", "2017-01-01T24:00", "2017-01-01 10:00", "yesterday", "", "2017-01-01T10:00:00",
        ] {
            await #expect(throws: WaterfallError.self, "\(bad.debugDescription)") {
                try await catalog.service.locate(feed: "f", layout: layout, .date(bad))
            }
        }
    }
}

/// A listing paged by its cursor (DESIGN section 16): the same images as by offset, as of one
/// revision; refused once the feed changed, and for a token the server did not write.
@Suite(.onOwnThreads(lane: .database)) struct ListingCursorTests {
    @Test(arguments: TestEngine.all)
    func aCursorListsOnAsOfItsRevisionAndExpiresWithTheNextCommit(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed((0..<23).map { "i\($0)@s\($0 % 3)" })
        let whole = try await catalog.service.images(feed: "f", offset: 0, limit: 100)
        #expect(whole.nextCursor == nil)
        var listed: [ImageList.Image] = []
        var page = try await catalog.service.images(feed: "f", offset: 0, limit: 5)
        listed += page.images
        while let cursor = page.nextCursor {
            page = try await catalog.service.images(feed: "f", cursor: cursor, limit: 5)
            listed += page.images
        }
        #expect(listed == whole.images)
        let first = try await catalog.service.images(feed: "f", offset: 0, limit: 10)
        let cursor = try #require(first.nextCursor)
        _ = try await catalog.service.move(feed: "f", id: "i20", to: .index(0))
        await #expect(
            throws: WaterfallError.cursorExpired(feed: "f", revision: first.revision, current: first.revision + 1)
        ) {
            try await catalog.service.images(feed: "f", cursor: cursor, limit: 10)
        }
        for bad in ["", "x", "MTox", cursor + "A", String(cursor.dropLast())] {
            await #expect(throws: WaterfallError.self, "\(bad)") {
                try await catalog.service.images(feed: "f", cursor: bad, limit: 10)
            }
        }
    }
}
