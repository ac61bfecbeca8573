import Foundation
import Testing
import Waterfall
import WaterfallTestSupport

@testable import WaterfallJSON

/// An answer's member table both writes it and gives the schema the OpenAPI document
/// publishes: what real answers write must be what their schemas say.
@Suite struct AnswerSchemaTests {
    /// Every schema of the answers, by name.
    static let schemas: [String: AnswerSchema] = {
        let answers: [any JSONAnswer.Type] = [
            PlacedImage.self, PlacedSupplement.self, LayoutPage.self, ViewportPage.self, SectionIndex.Section.self,
            SectionIndex.self, CoverFlowImage.self, CoverFlowPage.self, ImageList.Image.self, ImageList.self,
            SectionList.Section.self, SectionList.self, NamedLayout.self, LayoutList.self, ChangeList.Change.self,
            ChangeList.self, ChangeSummary.self, FeedList.Feed.self, FeedList.self, KeptFeedReport.self,
            LayoutCoverage.self, DatabaseStats.self, LocatedImage.self, ImageStreamHead.self,
        ]
        return Dictionary(uniqueKeysWithValues: answers.flatMap { $0.schemas }.map { ($0.name, $0) })
    }()

    @Test func pagesViewportsAndSectionIndexesWriteWhatTheirSchemasSay() async throws {
        // Given a feed with unnamed and unicode sections, images without a URL, and
        // placeholders, colours, dates and renditions on some images only.
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var images: [String] = []
        var random = SeededGenerator(seed: 8)
        for index in 0..<300 {
            let section = ["\"2024\"", "\"é 📷\"", "\"a\\\"b\\\\c\"", "null"].randomElement(using: &random)!
            let url = Bool.random(using: &random) ? "\"https://example.com/\(index).jpg\"" : "null"
            let dress = [
                "", ##", "color": "#0a0b0c""##, ##", "placeholder": "L\"x\\y~", "color": "#FFFFFF""##,
                #", "placeholder": "1QcSHQRnh493V4dIh4eXh1h4kJUI", "renditions": [{"width": 100, "url": "https://example.com/\#(index)-100.jpg"}, {"width": 900, "url": "https://example.com/\#(index)-900.jpg"}]"#,
                #", "urlTemplate": "https://example.com/\#(index)/{width}.jpg""#,
                #", "takenAt": "2017-11-14T15:28:13.5Z""#,
            ].randomElement(using: &random)!
            images.append(
                #"{"id": "i\#(index)\u2028", "width": \#(Int.random(in: 1...4000, using: &random)), "height": \#(Int.random(in: 1...4000, using: &random)), "section": \#(section), "url": \#(url)\#(dress)}"#
            )
        }
        let feed = try folder.write(#"{"feed": "f", "images": [\#(images.joined(separator: ","))]}"#, to: "feed.json")
        let service = try WaterfallService.open(path: folder.path("db.sqlite"))
        let summary = try await service.importFeed(contentsOf: feed, options: .init())
        let configurations: [AnyLayoutConfiguration] = [
            .waterfall(LayoutConfiguration(columns: 3, width: 375.5, headerHeight: 44, footerHeight: 12.25, scale: 3)),
            .waterfall(LayoutConfiguration(columns: 1, width: 320, order: .rightToLeft)),
            .justified(
                JustifiedConfiguration(width: 375.5, rowHeight: 77.25, lastRow: .center, headerHeight: 44, scale: 3)),
        ]
        // When each answer is written, then it is what its schema describes.
        var checked = Coverage()
        for configuration in configurations {
            for offset in [0, 17, 250, 299] {
                let page = try await service.page(feed: nil, layout: .inline(configuration), offset: offset, limit: 60)
                try expect(page, matches: "Page", &checked)
            }
            for y in [0.0, 1234.5, 40_000] {
                try expect(
                    try await service.viewport(feed: "f", layout: .inline(configuration), y: y, height: 900),
                    matches: "Viewport", &checked)
                try expect(
                    try await service.viewport(
                        feed: "f", layout: .inline(configuration), y: y, height: 900, pinOffset: 20),
                    matches: "Viewport", &checked)
            }
            try expect(
                try await service.sectionIndex(feed: "f", layout: .inline(configuration)), matches: "SectionIndex",
                &checked)
        }
        // And so is what lists the feed, its changes and its cover flow.
        try expect(summary, matches: "ChangeSummary", &checked)
        for offset in [0, 290] {
            try expect(try await service.images(feed: "f", offset: offset, limit: 20), matches: "ImageList", &checked)
        }
        try expect(try await service.sections(feed: "f"), matches: "SectionList", &checked)
        try await service.addLayout(feed: "f", name: "three", configuration: configurations[0])
        try await service.addLayout(feed: "f", name: "rows", configuration: configurations[2])
        try expect(LayoutList(layouts: try await service.layouts(feed: "f")), matches: "LayoutList", &checked)
        // A second revision, so that a page of the change log stops before the end.
        try expect(try await service.remove(feed: "f", ids: ["i7\u{2028}"]), matches: "ChangeSummary", &checked)
        try expect(try await service.changes(feed: "f", since: 0, limit: 10), matches: "ChangeList", &checked)
        try expect(try await service.changes(feed: "f", since: 0), matches: "ChangeList", &checked)
        for x in [0.0, 5_000] {
            try expect(
                try await service.coverFlow(
                    feed: "f", configuration: CoverFlowConfiguration(itemHeight: 200), x: x, viewportWidth: 375),
                matches: "CoverFlow", &checked)
        }
        for (id, layout) in [("i5\u{2028}", LayoutSource.named("three")), ("i9\u{2028}", .inline(configurations[2]))] {
            try expect(
                try await service.locate(feed: "f", layout: layout, .id(id), limit: 7), matches: "Location", &checked)
        }
        try expect(ImageStreamHead(feed: "f", revision: 2, totalItems: 299), matches: "ImageStreamHead", &checked)
        try expect(try await service.feeds(), matches: "FeedList", &checked)
        try expect(try await service.stats(), matches: "Stats", &checked)
        #expect(checked.present.isSuperset(of: ["LayoutCoverage.configuration", "LayoutCoverage.expectedCheckpoints"]))
        #expect(
            checked.present.isSuperset(of: [
                "CatalogImage.renditions", "CatalogImage.urlTemplate", "ChangeList.nextSince",
            ]))
        #expect(
            checked.absent.isSuperset(of: ["CatalogImage.renditions", "ImageList.nextCursor", "ChangeList.nextSince"]))
        // The awkward cases were among them: a null layout, URL and section, the last page, and
        // members left out on some images and written on others.
        #expect(
            checked.nulls.isSuperset(of: [
                "Page.layout", "Page.nextOffset", "PlacedImage.url", "IndexedSection.section",
            ]))
        #expect(
            checked.present.isSuperset(of: ["PlacedImage.takenAt", "PlacedImage.placeholder", "PlacedImage.color"]))
        #expect(checked.absent.isSuperset(of: ["PlacedImage.takenAt", "PlacedImage.placeholder", "PlacedImage.color"]))
        #expect(checked.present.contains("Header.pinned"))
        #expect(checked.present.isSuperset(of: ["Location.frame", "frame.width"]))
        #expect(checked.nulls.contains("Location.layout"))
        let page = String(
            decoding: try StableJSON.bytes(
                of: try await service.page(feed: nil, layout: .inline(configurations[0]), offset: 0, limit: 100)),
            as: UTF8.self)
        #expect(page.contains(##""placeholder":"L\"x\\y~","color":"#ffffff"}"##))
        #expect(page.contains(##""color":"#0a0b0c"}"##))
        #expect(page.contains(#""id":"i0\u2028","#))
    }

    @Test func aHeaderRequiresPinnedAndAFooterHasNone() {
        let header = Self.schemas["Header"]!
        let footer = Self.schemas["Footer"]!
        #expect(header.required == ["section", "x", "y", "width", "height", "pinned"])
        #expect(footer.members.map(\.name) == ["section", "x", "y", "width", "height"])
    }

    /// Which members were seen null, present and absent, as `Schema.member`.
    struct Coverage {
        var nulls: Set<String> = []
        var present: Set<String> = []
        var absent: Set<String> = []
    }

    /// Checks the JSON `answer` writes against the schema `name`, and the schemas of what it holds.
    private func expect(_ answer: some JSONWritable, matches name: String, _ coverage: inout Coverage) throws {
        var json = JSONWriter()
        try answer.write(to: &json)
        let value = try JSONDecoder().decode(JSON.self, from: Data(json.bytes))
        check(value, against: name, at: name, &coverage)
    }

    private func check(_ value: JSON, against name: String, at path: String, _ coverage: inout Coverage) {
        guard let schema = Self.schemas[name] else {
            Issue.record("\(path): no schema \(name)")
            return
        }
        check(value, against: schema, at: path, &coverage)
    }

    private func check(_ value: JSON, against schema: AnswerSchema, at path: String, _ coverage: inout Coverage) {
        let name = schema.name
        guard case .object(let members) = value else {
            Issue.record("\(path): not an object")
            return
        }
        for key in members.keys where !schema.members.contains(where: { $0.name == key }) {
            Issue.record("\(path).\(key) is written but not in the schema \(name)")
        }
        for required in schema.required where members[required] == nil {
            Issue.record("\(path): the required member \(required) is not written")
        }
        for member in schema.members {
            let place = "\(name).\(member.name)"
            guard let written = members[member.name] else {
                coverage.absent.insert(place)
                continue
            }
            coverage.present.insert(place)
            if case .null = written {
                coverage.nulls.insert(place)
                #expect(member.presence == .nullable, "\(path).\(member.name) is null")
                continue
            }
            switch (member.value, written) {
            case (.string, .string), (.number, .number), (.number, .integer), (.integer, .integer),
                (.boolean, .boolean):
                break
            case (.array(let element), .array(let elements)):
                for (index, item) in elements.enumerated() {
                    check(item, against: element, at: "\(path).\(member.name)[\(index)]", &coverage)
                }
            case (.objects(let element), .array(let elements)):
                for (index, item) in elements.enumerated() {
                    check(item, against: element, at: "\(path).\(member.name)[\(index)]", &coverage)
                }
            case (.strings, .array(let elements)):
                for element in elements {
                    if case .string = element { continue }
                    Issue.record("\(path).\(member.name): \(element) is not a string")
                }
            case (.object(let object), .object):
                check(written, against: object, at: "\(path).\(member.name)", &coverage)
            case (.reference(let target), .object):
                // A configuration's schema is its field table's, checked by the server's tests.
                if Self.schemas[target] != nil {
                    check(written, against: target, at: "\(path).\(member.name)", &coverage)
                }
            default:
                Issue.record("\(path).\(member.name): \(written) is not \(member.value)")
            }
        }
    }
}

/// A JSON value as read back, with integers told from other numbers.
private enum JSON: Decodable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .boolean(flag)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let number = try? container.decode(Int64.self) {
            self = .integer(number)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let elements = try? container.decode([JSON].self) {
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }
}
