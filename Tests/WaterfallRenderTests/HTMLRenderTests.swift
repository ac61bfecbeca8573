import Foundation
import Testing
import Waterfall
import WaterfallRender

@Suite("HTML rendering", .enabled(if: ParsedMarkup.isAvailable, "no XML parser on this platform to read the output"))
struct HTMLRenderTests {
    private let hostileTitle = "<script>alert(1)</script>\" onload=\"x"

    @Test("every image is one [data-id] element at exactly its frame")
    func everyImageAtItsFrame() async throws {
        // Given a 4-column page with headers, footers and captions over three sections
        let fixture = try await RenderFixture(images: RenderFixture.images(count: 30), sections: ["s1", "s2", "s3"])
        defer { fixture.directory.remove() }
        let page = try await fixture.page()

        // When it is drawn as HTML
        let root = try ParsedMarkup.parse(PageRenderer().render(page, format: .html))

        // Then the container is as wide as the layout and reaches the lowest element
        let containers = root.elements(with: "data-waterfall")
        try #require(containers.count == 1)
        let container = containers[0]
        #expect(container.style("width") == 800)
        let lowest = (page.items.map(\.frame) + page.headers.map(\.frame) + page.footers.map(\.frame)).map(\.maxY).max()
        #expect(container.style("height") == lowest)
        // and every image appears once, at its frame
        let elements = container.elements(with: "data-id")
        #expect(elements.count == page.items.count)
        #expect(Set(elements.compactMap { $0.attributes["data-id"] }).count == page.items.count)
        for item in page.items {
            let element = try #require(elements.first { $0.attributes["data-id"] == item.id })
            #expect(element.style("left") == item.frame.x, "left of \(item.id)")
            #expect(element.style("top") == item.frame.y, "top of \(item.id)")
            #expect(element.style("width") == item.frame.width, "width of \(item.id)")
            #expect(element.style("height") == item.frame.height, "height of \(item.id)")
        }
        // and so do the headers and footers
        #expect(page.headers.count == 3 && page.footers.count == 3)
        for (supplements, attribute) in [(page.headers, "data-header"), (page.footers, "data-footer")] {
            let drawn = container.elements(with: attribute)
            #expect(drawn.count == supplements.count)
            for supplement in supplements {
                let element = try #require(drawn.first { $0.attributes[attribute] == supplement.section })
                #expect(element.style("top") == supplement.frame.y)
                #expect(element.style("height") == supplement.frame.height)
                #expect(element.style("width") == supplement.frame.width)
                #expect(element.allText.contains(supplement.section ?? "unnamed section"))
            }
        }
    }

    @Test("a later page keeps the frames' own coordinates")
    func laterPage() async throws {
        // Given the second page of a feed
        let fixture = try await RenderFixture(images: RenderFixture.images(count: 30), sections: ["s1", "s2", "s3"])
        defer { fixture.directory.remove() }
        let page = try await fixture.page(offset: 10, limit: 10)

        // When it is drawn
        let root = try ParsedMarkup.parse(PageRenderer().render(page, format: .html))

        // Then each image sits at its frame, the container starting at y 0
        for item in page.items {
            let element = try #require(root.elements(with: "data-id").first { $0.attributes["data-id"] == item.id })
            #expect(element.style("top") == item.frame.y)
        }
        #expect(root.all.first { $0.attributes["class"] == "legend" }?.allText.contains("images 10–19 of 30") == true)
    }

    @Test("hostile titles and odd ids are text, never markup")
    func hostileStrings() async throws {
        // Given ids with quotes, ampersands, markup, accents and emoji, and a title that tries to
        // close the attribute and open a script
        let ids = ["quote\"d", "it's", "a&b", "<b>bold</b>", "déjà-vu", "📷 camera", "👩‍👩‍👧"]
        let images = ids.map { FeedImage(id: $0, width: 1200, height: 800, title: hostileTitle, section: "s&<1>") }
        let fixture = try await RenderFixture(images: images)
        defer { fixture.directory.remove() }
        var page = try await fixture.page()
        page.items[0].url = "https://x.example/a.jpg?a=1&b=\"2\"><script>alert(1)</script>"

        // When it is drawn
        let html = PageRenderer().render(page, format: .html)
        let root = try ParsedMarkup.parse(html)

        // Then no script, handler or stray element appears, and every string reads back as given
        #expect(!html.contains("<script"))
        #expect(!root.all.contains { $0.name == "script" || $0.name == "b" })
        #expect(!root.all.contains { element in element.attributes.keys.contains { $0.hasPrefix("on") } })
        #expect(root.elements(with: "data-id").compactMap { $0.attributes["data-id"] } == ids)
        let captions = root.all.filter { $0.attributes["class"] == "caption" }
        #expect(captions.count == ids.count)
        #expect(captions.allSatisfy { $0.text == hostileTitle })
        let image = try #require(root.all.first { $0.name == "img" })
        #expect(image.attributes["src"] == page.items[0].url)
        #expect(image.attributes["alt"] == hostileTitle)
        #expect(root.elements(with: "data-header").first?.attributes["data-header"] == "s&<1>")
    }

    @Test("control characters are replaced, so the file stays well-formed")
    func controlCharacters() async throws {
        // Given a title holding NUL, escape, DEL and a C1 control
        let fixture = try await RenderFixture(images: [FeedImage(id: "a", width: 100, height: 100, title: "t")])
        defer { fixture.directory.remove() }
        var page = try await fixture.page()
        page.items[0].title = "a\u{0}b\u{1B}c\u{7F}d\u{85}e\tf"

        // When it is drawn as HTML and as SVG
        for format in [RenderFormat.html, .svg] {
            let text = PageRenderer().render(page, format: format)

            // Then it parses, with each control replaced by U+FFFD and the tab kept
            let root = try ParsedMarkup.parse(text)
            #expect(root.allText.contains("a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\tf"), "\(format)")
        }
    }

    @Test(
        "only http(s) and relative urls are drawn as images",
        arguments: [
            ("https://cdn.example.com/a.jpg", true), ("HTTP://cdn.example.com/a.jpg", true),
            ("img/a.jpg", true), ("/photos/a.jpg", true), ("//cdn.example.com/a.jpg", true), ("a.jpg?v=1:2", true),
            ("javascript:alert(1)", false), ("JaVaScRiPt:alert(1)", false), (" javascript:alert(1)", false),
            ("java\tscript:alert(1)", false), ("java\nscript:alert(1)", false), ("\u{1}javascript:alert(1)", false),
            ("data:text/html,<script>alert(1)</script>", false), ("vbscript:msgbox", false),
            ("file:///etc/passwd", false), ("", false),
        ])
    func urlPolicy(url: String, drawn: Bool) async throws {
        // Given an image whose url is `url`
        let fixture = try await RenderFixture(images: [FeedImage(id: "a", width: 1200, height: 800, title: "A")])
        defer { fixture.directory.remove() }
        var page = try await fixture.page()
        page.items[0].url = url

        // When it is drawn as HTML and as SVG
        let html = try ParsedMarkup.parse(PageRenderer().render(page, format: .html))
        let svg = try ParsedMarkup.parse(PageRenderer().render(page, format: .svg))

        // Then the url is used exactly when it is safe; otherwise the placeholder shows
        #expect(html.all.filter { $0.name == "img" }.map { $0.attributes["src"] } == (drawn ? [url] : []))
        #expect(html.all.contains { $0.attributes["class"] == "placeholder" } == !drawn)
        #expect(svg.all.filter { $0.name == "image" }.map { $0.attributes["href"] } == (drawn ? [url] : []))
    }

    @Test("an image without a url is a tinted placeholder showing its id and aspect ratio")
    func placeholders() async throws {
        // Given images without urls, of known proportions
        let images = [
            FeedImage(id: "landscape", width: 1200, height: 800, title: "L"),
            FeedImage(id: "wide", width: 1920, height: 1080, title: "W"),
            FeedImage(id: "odd", width: 1001, height: 1000, title: "O"),
        ]
        let fixture = try await RenderFixture(images: images)
        defer { fixture.directory.remove() }

        // When they are drawn
        let root = try ParsedMarkup.parse(PageRenderer().render(try await fixture.page(), format: .html))

        // Then each shows its id and ratio on a background derived from its id
        let placeholders = root.all.filter { $0.attributes["class"] == "placeholder" }
        #expect(placeholders.count == 3)
        #expect(
            placeholders.map(\.allText) == [
                "landscape3:2 · 1200×800", "wide16:9 · 1920×1080", "odd1.00 · 1001×1000",
            ])
        let tints = Set(placeholders.compactMap { $0.attributes["style"] })
        #expect(tints.count == 3)
        #expect(tints.allSatisfy { $0.hasPrefix("background:#") })
        #expect(!root.all.contains { $0.name == "img" })
    }

    @Test("captions are drawn only when the layout has a caption strip", arguments: [0.0, 24.0])
    func captions(captionHeight: Double) async throws {
        // Given a layout with or without a caption strip
        let fixture = try await RenderFixture(images: RenderFixture.images(count: 8))
        defer { fixture.directory.remove() }
        let page = try await fixture.page(RenderFixture.configuration(captionHeight: captionHeight))

        // When it is drawn
        let root = try ParsedMarkup.parse(PageRenderer().render(page, format: .html))

        // Then every image has a caption with its title exactly when the strip exists
        let captions = root.all.filter { $0.attributes["class"] == "caption" }
        #expect(captions.map(\.text) == (captionHeight > 0 ? page.items.map { $0.title ?? "" } : []))
        #expect(
            root.elements(with: "data-waterfall").first?.attributes["style"]?.contains(
                "--caption:\(Int(captionHeight))px") == true)
    }

    @Test("the output carries a script only when measurement is asked for")
    func measurementScript() async throws {
        // Given a page
        let fixture = try await RenderFixture(images: RenderFixture.images(count: 4))
        defer { fixture.directory.remove() }
        let page = try await fixture.page()

        // When it is drawn with and without the measuring script
        let plain = PageRenderer().render(page, format: .html)
        let measured = PageRenderer(options: RenderOptions(includeMeasurementScript: true)).render(page, format: .html)

        // Then only the second has a script, and both are self-contained
        #expect(!plain.contains("<script"))
        #expect(measured.contains("<script>") && measured.contains("<pre id=\"measure\">"))
        for text in [plain, measured] {
            #expect(!text.contains("<link"))
            #expect(!text.contains("<script src"))
            _ = try ParsedMarkup.parse(text)
        }
    }

    @Test("a viewport is drawn as its band, pinned headers above the images and marked")
    func viewport() async throws {
        // Given a viewport in the middle of a feed, with pinned headers
        let fixture = try await RenderFixture(images: RenderFixture.images(count: 40), sections: ["s1", "s2", "s3"])
        defer { fixture.directory.remove() }
        let viewport = try await fixture.viewport(y: 300, height: 500, pinOffset: 0)
        let pinned = viewport.headers.filter { $0.pinned == true }
        try #require(!pinned.isEmpty && !viewport.items.isEmpty)

        // When it is drawn
        let root = try ParsedMarkup.parse(PageRenderer().render(viewport, format: .html))

        // Then the container is the band and every element sits at its y minus the band's top
        let container = try #require(root.elements(with: "data-waterfall").first)
        #expect(container.style("width") == 800 && container.style("height") == 500)
        let elements = container.elements(with: "data-id")
        #expect(elements.count == viewport.items.count)
        for item in viewport.items {
            let element = try #require(elements.first { $0.attributes["data-id"] == item.id })
            #expect(element.style("top") == item.frame.y - 300)
            #expect(element.style("left") == item.frame.x)
        }
        let headers = container.elements(with: "data-header")
        for header in pinned {
            let element = try #require(headers.first { $0.attributes["data-header"] == header.section })
            #expect(element.style("top") == header.frame.y - 300)
            #expect(element.attributes["class"] == "header pinned")
            #expect(element.allText.contains("pinned"))
        }
        // and the stylesheet stacks pinned headers over images
        #expect(root.allText.contains(".header.pinned { z-index: 4;"))
        #expect(root.allText.contains(".image { z-index: 1;"))
    }

    @Test("the legend sits outside the container")
    func legend() async throws {
        // Given a page
        let fixture = try await RenderFixture(images: RenderFixture.images(count: 4))
        defer { fixture.directory.remove() }

        // When it is drawn
        let root = try ParsedMarkup.parse(PageRenderer().render(try await fixture.page(), format: .html))

        // Then the legend names the feed, revision, layout and what is shown, outside the container
        let legend = try #require(root.all.first { $0.attributes["class"] == "legend" })
        #expect(
            legend.allText
                == "render-test · revision 1 · inline layout (4 columns, 800 pt) · page: images 0–3 of 4 · 800 × \(Int(root.elements(with: "data-waterfall")[0].style("height")!)) pt"
        )
        #expect(root.elements(with: "data-waterfall")[0].all.allSatisfy { $0.attributes["class"] != "legend" })
    }
}
