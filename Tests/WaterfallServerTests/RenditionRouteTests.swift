import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallJSON
import WaterfallTestSupport

/// Placeholders and right-sized images over HTTP (DESIGN section 16): frames carry their colour
/// and placeholder, `dpr` picks each frame's rendition, listings give the feed's values.
@Suite struct RenditionRouteTests {
    /// The travel fixture with a feed "dressed": a has three renditions, b a template, c neither.
    private static func fixture() async throws -> TestServer {
        let fixture = try await TestServer()
        let file = try fixture.folder.write(
            ##"""
            {"feed": "dressed", "images": [
              {"id": "a", "width": 1600, "height": 1200, "url": "https://x/a.jpg", "placeholder": "1QcSHQRnh493V4dIh4eXh1h4kJUI", "color": "#A0B1C2",
               "renditions": [{"width": 320, "url": "https://x/a-320.jpg"}, {"width": 640, "url": "https://x/a-640.jpg"},
                              {"width": 1280, "url": "https://x/a-1280.jpg"}]},
              {"id": "b", "width": 1000, "height": 750, "url": "https://x/b.jpg", "color": "#102030", "urlTemplate": "https://x/b/{width}.jpg"},
              {"id": "c", "width": 400, "height": 300, "url": "https://x/c.jpg"}]}
            """##, to: "dressed.json")
        _ = try await fixture.service.importFeed(contentsOf: file, options: .init())
        return fixture
    }

    @Test func framesCarryColourPlaceholderAndTheRenditionForDPR() async throws {
        let fixture = try await Self.fixture()
        let layout = LayoutSource.inline(.waterfall(LayoutConfiguration(columns: 2, width: 375)))
        let page = try await fixture.service.page(feed: "dressed", layout: layout, offset: 0, limit: 10)
        let viewport = try await fixture.service.viewport(feed: "dressed", layout: layout, y: 0, height: 900)
        let cover = try await fixture.service.coverFlow(
            feed: "dressed", configuration: CoverFlowConfiguration(itemHeight: 300), x: 0, viewportWidth: 2000)
        let expected = (
            page: try document(page), page4: try document(page.choosingRenditions(dpr: 4)),
            viewport3: try document(viewport.choosingRenditions(dpr: 3)),
            cover2: try document(cover.choosingRenditions(dpr: 2))
        )
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/dressed/page?columns=2&width=375&offset=0&limit=10", method: .get)
            { response in
                #expect(response.status == .ok)
                #expect(response.text == expected.page)
                let items = response.object["items"] as? [[String: Any]] ?? []
                #expect(
                    items.map { $0["url"] as? String } == [
                        "https://x/a-320.jpg", "https://x/b/172.jpg", "https://x/c.jpg",
                    ])
                #expect(items.map { $0["color"] as? String } == ["#a0b1c2", "#102030", nil])
                #expect(items.map { $0["placeholder"] as? String } == ["1QcSHQRnh493V4dIh4eXh1h4kJUI", nil, nil])
                #expect(items[2].keys.sorted() == ["height", "id", "index", "section", "url", "width", "x", "y"])
            }
            try await client.execute(
                uri: "/v1/feeds/dressed/page?columns=2&width=375&offset=0&limit=10&dpr=4", method: .get
            ) { response in
                #expect(response.text == expected.page4)
                let items = response.object["items"] as? [[String: Any]] ?? []
                #expect(
                    items.map { $0["url"] as? String } == [
                        "https://x/a-1280.jpg", "https://x/b/688.jpg", "https://x/c.jpg",
                    ])
            }
            try await client.execute(
                uri: "/v1/feeds/dressed/viewport?columns=2&width=375&y=0&height=900&dpr=3", method: .get
            ) { response in
                #expect(response.text == expected.viewport3)
                let items = response.object["items"] as? [[String: Any]] ?? []
                #expect(items.first?["url"] as? String == "https://x/a-640.jpg")
            }
            try await client.execute(
                uri: "/v1/feeds/dressed/coverflow?itemHeight=300&x=0&viewportWidth=2000&dpr=2", method: .get
            ) { response in
                #expect(response.text == expected.cover2)
                let items = response.object["items"] as? [[String: Any]] ?? []
                #expect(
                    items.map { $0["url"] as? String } == [
                        "https://x/a-1280.jpg", "https://x/b/800.jpg", "https://x/c.jpg",
                    ])
                #expect(items.map { $0["color"] as? String } == ["#a0b1c2", "#102030", nil])
            }
        }
    }

    @Test func listingsGiveTheFeedsRenditionsAndAFeedWithoutThemIsAsBefore() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/dressed/images?limit=10", method: .get) { response in
                let images = response.object["images"] as? [[String: Any]] ?? []
                #expect(images.map { $0["color"] as? String } == ["#a0b1c2", "#102030", nil])
                let renditions = images.first?["renditions"] as? [[String: Any]] ?? []
                #expect(renditions.map { $0["width"] as? Int } == [320, 640, 1280])
                #expect(renditions.first?["url"] as? String == "https://x/a-320.jpg")
                #expect(images.map { $0["urlTemplate"] as? String } == [nil, "https://x/b/{width}.jpg", nil])
                #expect(images.first?["url"] as? String == "https://x/a.jpg")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/page?limit=50&dpr=3", method: .get) {
                response in
                #expect(response.status == .ok)
                #expect(!response.text.contains("\"color\"") && !response.text.contains("\"placeholder\""))
            }
        }
    }

    @Test func theStreamAndACursorsSliceListTheImagesAsTheListingDoes() async throws {
        let fixture = try await Self.fixture()
        let listing = try await fixture.service.images(feed: "dressed", offset: 0, limit: 10)
        let entries = try listing.images.map { String(decoding: try StableJSON.document(of: $0), as: UTF8.self) }
        try await fixture.test { client in
            try await client.execute(
                uri: "/v1/feeds/dressed/images", method: .get, headers: [.accept: "application/x-ndjson"]
            ) { response in
                #expect(response.status == .ok)
                let lines = response.text.split(separator: "\n").dropFirst().map { String($0) + "\n" }
                #expect(lines == entries)
                #expect(lines.first?.contains(#""renditions":[{"width":320,"url":"https://x/a-320.jpg"}"#) == true)
                #expect(
                    lines.dropFirst().first?.contains(##""color":"#102030","urlTemplate":"https://x/b/{width}.jpg""##)
                        == true)
            }
            let cursor = try await client.execute(uri: "/v1/feeds/dressed/images?limit=1", method: .get) { response in
                try #require(response.object["nextCursor"] as? String)
            }
            try await client.execute(uri: "/v1/feeds/dressed/images?limit=1&cursor=\(cursor)", method: .get) {
                response in
                let images = response.object["images"] as? [[String: Any]] ?? []
                #expect(images.map { $0["id"] as? String } == ["b"])
                #expect(images.first?["color"] as? String == "#102030")
                #expect(images.first?["urlTemplate"] as? String == "https://x/b/{width}.jpg")
            }
        }
    }

    @Test func aBadDPRIsRefusedWithOneSentence() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            for uri in [
                "/v1/feeds/dressed/page?columns=2&width=375&dpr=0", "/v1/feeds/dressed/page?columns=2&width=375&dpr=9",
                "/v1/feeds/travel/layouts/phone/viewport?y=0&height=100&dpr=-1",
                "/v1/feeds/dressed/coverflow?itemHeight=300&x=0&viewportWidth=2000&dpr=100",
            ] {
                try await client.execute(uri: uri, method: .get) {
                    $0.expectProblem(.badRequest, "dpr must be a number of device pixels a point above 0 and at most 8")
                }
            }
            try await client.execute(uri: "/v1/feeds/dressed/page?columns=2&width=375&dpr=retina", method: .get) {
                $0.expectProblem(.badRequest, "dpr")
            }
        }
    }
}
