import Foundation
import Waterfall
import WaterfallTestSupport

/// One image of a test feed, as the feed file spells it.
struct FeedImage: Encodable {
    var id: String
    var width: Int
    var height: Int
    var url: String?
    var title: String?
    var section: String?
    var span: String?
}

/// A fresh database in a temporary folder holding one imported feed, for one test.
struct RenderFixture {
    let directory: TemporaryDirectory
    let service: WaterfallService

    /// Imports `images` as the feed "render-test", sections in the order of `sections`.
    init(images: [FeedImage], sections: [String] = []) async throws {
        struct Section: Encodable {
            var id: String
            var title: String
        }
        struct Document: Encodable {
            var feed: String
            var sections: [Section]
            var images: [FeedImage]
        }
        directory = try TemporaryDirectory(prefix: "waterfall-render")
        service = try WaterfallService.open(path: directory.path("render.sqlite"))
        let document = Document(
            feed: "render-test", sections: sections.map { Section(id: $0, title: $0) }, images: images)
        let json = String(decoding: try JSONEncoder().encode(document), as: UTF8.self)
        _ = try await service.importFeed(contentsOf: try directory.write(json, to: "feed.json"), options: .init())
    }

    /// A four-column, 800-point layout with 40-point headers, 20-point footers and the given
    /// caption strip.
    static func configuration(captionHeight: Double = 24) -> LayoutConfiguration {
        LayoutConfiguration(columns: 4, width: 800, headerHeight: 40, footerHeight: 20, captionHeight: captionHeight)
    }

    func page(_ configuration: LayoutConfiguration = configuration(), offset: Int = 0, limit: Int = 50) async throws
        -> LayoutPage
    {
        try await service.page(feed: nil, layout: .inline(.waterfall(configuration)), offset: offset, limit: limit)
    }

    func viewport(
        _ configuration: LayoutConfiguration = configuration(), y: Double, height: Double, pinOffset: Double? = nil
    ) async throws -> ViewportPage {
        try await service.viewport(
            feed: nil, layout: .inline(.waterfall(configuration)), y: y, height: height, pinOffset: pinOffset)
    }

    /// `count` images with seeded random sizes in three sections, every fourth with an https url.
    static func images(count: Int, seed: UInt64 = 7) -> [FeedImage] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            FeedImage(
                id: "img-\(index)", width: Int.random(in: 300...2400, using: &random),
                height: Int.random(in: 300...2400, using: &random),
                url: index % 4 == 0 ? "https://images.example.com/\(index).jpg" : nil,
                title: "Photo \(index)", section: ["s1", "s2", "s3"][index * 3 / count])
        }
    }
}
