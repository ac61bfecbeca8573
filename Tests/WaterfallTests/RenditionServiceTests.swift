import Testing
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// Placeholders and right-sized images (DESIGN section 16) through the service: what an import
/// keeps, what a re-import counts as changed, and what pages, viewports, the cover flow and
/// listings answer, from the layout cache and from a kept feed.
@Suite(.onOwnThreads(lane: .database)) struct RenditionServiceTests {
    /// Image a (1600 px wide) has three renditions, b a template, c neither.
    static let feed = #"""
        {"feed": "f", "images": [
          {"id": "a", "width": 1600, "height": 1200, "url": "https://x/a.jpg", "placeholder": "1QcSHQRnh493V4dIh4eXh1h4kJUI", "color": "#A0B1C2",
           "renditions": [{"width": 320, "url": "https://x/a-320.jpg"}, {"width": 640, "url": "https://x/a-640.jpg"},
                          {"width": 1280, "url": "https://x/a-1280.jpg"}]},
          {"id": "b", "width": 1000, "height": 750, "url": "https://x/b.jpg", "color": "#102030", "urlTemplate": "https://x/b/{width}.jpg"},
          {"id": "c", "width": 400, "height": 300, "url": "https://x/c.jpg"}]}
        """#
    /// Two columns 172 points wide (375 less the default insets and spacing).
    static func layout(scale: Int = 1) -> LayoutSource {
        .inline(.waterfall(LayoutConfiguration(columns: 2, width: 375, scale: scale)))
    }

    @Test(arguments: TestEngine.all)
    func framesCarryColourPlaceholderAndTheRenditionForTheScale(engine: TestEngine) async throws {
        // Given the feed imported
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feed)

        // When a page is asked at scale 1, scale 2, and at scale 1 for a dpr of 4
        let one = try await catalog.service.page(feed: "f", layout: Self.layout(), offset: 0, limit: 10)
        let two = try await catalog.service.page(feed: "f", layout: Self.layout(scale: 2), offset: 0, limit: 10)
        let four = one.choosingRenditions(dpr: 4)

        // Then each frame has its colour and placeholder, and the smallest rendition covering its
        // width × dpr (else the largest; a template filled in; else the image's own url)
        let width = one.items[0].frame.width
        #expect(width > 160 && width <= 320)
        #expect(one.items.map(\.color) == ["#a0b1c2", "#102030", nil])
        #expect(one.items.map(\.placeholder) == ["1QcSHQRnh493V4dIh4eXh1h4kJUI", nil, nil])
        #expect(
            one.items.map(\.url) == [
                "https://x/a-320.jpg", "https://x/b/\(Int((one.items[1].frame.width).rounded(.up))).jpg",
                "https://x/c.jpg",
            ])
        #expect(
            two.items.map(\.url) == [
                "https://x/a-640.jpg", "https://x/b/\(Int((two.items[1].frame.width * 2).rounded(.up))).jpg",
                "https://x/c.jpg",
            ])
        #expect(
            four.items.map(\.url) == [
                "https://x/a-1280.jpg", "https://x/b/\(Int((one.items[1].frame.width * 4).rounded(.up))).jpg",
                "https://x/c.jpg",
            ])
        #expect(one.choosingRenditions(dpr: 8).items[0].url == "https://x/a-1280.jpg")

        // And the viewport and the cover flow answer the same way
        let viewport = try await catalog.service.viewport(feed: "f", layout: Self.layout(), y: 0, height: 2000)
            .choosingRenditions(dpr: 3)
        #expect(
            viewport.items.map(\.url) == [
                "https://x/a-640.jpg", "https://x/b/\(Int((viewport.items[1].frame.width * 3).rounded(.up))).jpg",
                "https://x/c.jpg",
            ])
        #expect(viewport.items.map(\.color) == ["#a0b1c2", "#102030", nil])
        let cover = try await catalog.service.coverFlow(
            feed: "f", configuration: CoverFlowConfiguration(itemHeight: 300), x: 0, viewportWidth: 2000)
        #expect(cover.items[0].frame.width == 400)
        #expect(cover.items.map(\.url) == ["https://x/a-640.jpg", "https://x/b/400.jpg", "https://x/c.jpg"])
        #expect(
            cover.choosingRenditions(dpr: 2).items.map(\.url) == [
                "https://x/a-1280.jpg", "https://x/b/800.jpg", "https://x/c.jpg",
            ])
        #expect(cover.items.map(\.color) == ["#a0b1c2", "#102030", nil])
    }

    @Test func aHotCopyAnswersTheSame() async throws {
        // Given the feed, read by a service that keeps a kept feed (kept by its first read) and
        // by one that does not
        let catalog = try TestCatalog()
        try await catalog.importJSON(Self.feed)
        let geometry = KeptFeeds(budget: 1 << 20)
        let hot = WaterfallService(database: catalog.service.database, stride: 4).keepingFeeds(geometry)
        _ = try await hot.page(feed: "f", layout: Self.layout(scale: 2), offset: 0, limit: 1)

        // When both answer a page and a viewport
        let kept = try await hot.page(feed: "f", layout: Self.layout(scale: 2), offset: 0, limit: 10)
        let keptBand = try await hot.viewport(feed: "f", layout: Self.layout(scale: 2), y: 0, height: 900)

        // Then the copy is kept, and its answers carry the same colours and urls
        #expect(geometry.report.map(\.feed) == ["f"])
        await #expect(
            kept == (try catalog.service.page(feed: "f", layout: Self.layout(scale: 2), offset: 0, limit: 10)))
        await #expect(
            keptBand == (try catalog.service.viewport(feed: "f", layout: Self.layout(scale: 2), y: 0, height: 900)))
        #expect(kept.items[0].color == "#a0b1c2")
    }

    @Test(arguments: TestEngine.all)
    func aChangedColourPlaceholderOrRenditionIsAnUpdate(engine: TestEngine) async throws {
        // Given the feed imported
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feed)
        await #expect(try catalog.importJSON(Self.feed).unchanged == 3)
        // A colour given in upper case is the same colour
        await #expect(
            try catalog.importJSON(Self.feed.replacingOccurrences(of: "#102030", with: "#102030".uppercased()))
                .unchanged == 3)

        // When a's colour, b's template and c's placeholder change
        let changed = Self.feed
            .replacingOccurrences(of: "#A0B1C2", with: "#000000")
            .replacingOccurrences(of: "https://x/b/{width}.jpg", with: "https://y/b/{width}.jpg")
            .replacingOccurrences(
                of: #""url": "https://x/c.jpg""#, with: #""url": "https://x/c.jpg", "placeholder": "abc""#)
        let summary = try await catalog.importJSON(changed)

        // Then all three are updated, in the change log too, and the page shows the new values
        #expect(summary.updated == 3 && summary.unchanged == 0)
        await #expect(
            try catalog.service.changes(feed: "f", since: summary.revision - 1).changes.map(\.kind) == [
                "update", "update", "update",
            ])
        let page = try await catalog.service.page(feed: "f", layout: Self.layout(), offset: 0, limit: 10)
        #expect(page.items.map(\.color) == ["#000000", "#102030", nil])
        #expect(page.items[1].url?.hasPrefix("https://y/b/") == true)
        #expect(page.items[2].placeholder == "abc")

        // When the renditions are dropped again
        let bare = try await catalog.importJSON(
            changed.replacingOccurrences(of: #""urlTemplate": "https://y/b/{width}.jpg""#, with: #""note": 1"#))
        #expect(bare.updated == 1)
        await #expect(
            try catalog.service.page(feed: "f", layout: Self.layout(), offset: 0, limit: 10).items[1].url
                == "https://x/b.jpg")
    }

    @Test(arguments: TestEngine.all)
    func listingsGiveTheFeedsValues(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feed)
        let images = try await catalog.service.images(feed: "f", offset: 0, limit: 10).images
        #expect(images.map(\.color) == ["#a0b1c2", "#102030", nil])
        #expect(images.map(\.placeholder) == ["1QcSHQRnh493V4dIh4eXh1h4kJUI", nil, nil])
        #expect(
            images[0].renditions
                == .list([
                    Rendition(width: 320, url: "https://x/a-320.jpg"),
                    Rendition(width: 640, url: "https://x/a-640.jpg"),
                    Rendition(width: 1280, url: "https://x/a-1280.jpg"),
                ]))
        #expect(images[1].renditions == .template("https://x/b/{width}.jpg"))
        #expect(images[2].renditions == nil)
        #expect(images.map(\.url) == ["https://x/a.jpg", "https://x/b.jpg", "https://x/c.jpg"])
    }

    @Test(arguments: [0.0, -1, 8.5, .infinity, .nan])
    func aDevicePixelRatioOutOfRangeIsRefused(dpr: Double) {
        #expect(throws: WaterfallError.self) { try DevicePixelRatio.validate(dpr) }
    }

    @Test func aDevicePixelRatioInRangeIsAccepted() throws {
        for dpr in [0.5, 1, 2.75, 8] { try DevicePixelRatio.validate(dpr) }
    }
}
