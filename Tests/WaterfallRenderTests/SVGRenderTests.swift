import Foundation
import Testing
import Waterfall
import WaterfallRender

@Suite("SVG rendering", .enabled(if: ParsedMarkup.isAvailable, "no XML parser on this platform to read the output"))
struct SVGRenderTests {
    @Test("the SVG is well-formed XML with every image at its frame")
    func imagesAtTheirFrames() async throws {
        // Given a 4-column page with headers, footers and captions
        let fixture = try await RenderFixture(images: RenderFixture.images(count: 30), sections: ["s1", "s2", "s3"])
        defer { fixture.directory.remove() }
        let page = try await fixture.page()

        // When it is drawn as SVG
        let text = PageRenderer().render(page, format: .svg)
        let root = try ParsedMarkup.parse(text)

        // Then it is an SVG document as wide as the layout
        let height = (page.items.map(\.frame) + page.headers.map(\.frame) + page.footers.map(\.frame)).map(\.maxY)
            .max()!
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "))
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.number("width") == 800 && root.number("height") == height)
        #expect(root.attributes["viewBox"] == "0 0 800 \(Int(height))")
        // with every image once, at its frame, as a picture or a labelled placeholder
        let elements = root.elements(with: "data-id")
        #expect(elements.count == page.items.count)
        for item in page.items {
            let element = try #require(elements.first { $0.attributes["data-id"] == item.id })
            #expect(element.number("x") == item.frame.x && element.number("y") == item.frame.y)
            #expect(element.number("width") == item.frame.width && element.number("height") == item.frame.height)
            let pictures = element.all.filter { $0.name == "image" }
            if let url = item.url {
                #expect(pictures.map { $0.attributes["href"] } == [url])
            } else {
                #expect(pictures.isEmpty)
                #expect(element.all.contains { $0.name == "text" && $0.text == item.id })
            }
            #expect(element.all.contains { $0.name == "text" && $0.text == item.title })
        }
        #expect(root.elements(with: "data-header").count == page.headers.count)
        #expect(root.elements(with: "data-footer").count == page.footers.count)
    }

    @Test("hostile strings are escaped for XML")
    func hostileStrings() async throws {
        // Given odd ids, a section and a title that try to break out of attributes and text
        let title = "<script>alert(1)</script>\" onload=\"x' & ]]>"
        let ids = ["quote\"d", "it's", "a&b", "<g>", "📷"]
        let fixture = try await RenderFixture(
            images: ids.map { FeedImage(id: $0, width: 800, height: 600, title: title, section: "<s>&") })
        defer { fixture.directory.remove() }
        var page = try await fixture.page()
        page.items[0].url = "https://x.example/a.jpg?a=1&b=<2>"

        // When it is drawn as SVG
        let root = try ParsedMarkup.parse(PageRenderer().render(page, format: .svg))

        // Then it parses, with the strings intact as data and no injected element or handler
        #expect(root.elements(with: "data-id").compactMap { $0.attributes["data-id"] } == ids)
        #expect(!root.all.contains { $0.name == "script" || $0.name == "g" })
        #expect(!root.all.contains { element in element.attributes.keys.contains { $0.hasPrefix("on") } })
        #expect(root.all.filter { $0.name == "text" && $0.text == title }.count == ids.count)
        #expect(root.all.first { $0.name == "image" }?.attributes["href"] == page.items[0].url)
        #expect(root.elements(with: "data-header").first?.attributes["data-header"] == "<s>&")
    }

    @Test("a viewport's SVG keeps layout coordinates under a viewBox that starts at the band")
    func viewport() async throws {
        // Given a viewport with pinned headers
        let fixture = try await RenderFixture(images: RenderFixture.images(count: 40), sections: ["s1", "s2", "s3"])
        defer { fixture.directory.remove() }
        let viewport = try await fixture.viewport(y: 300, height: 500, pinOffset: 0)

        // When it is drawn as SVG
        let root = try ParsedMarkup.parse(PageRenderer().render(viewport, format: .svg))

        // Then the canvas is the band and the elements keep their frames
        #expect(root.attributes["viewBox"] == "0 300 800 500")
        #expect(root.number("height") == 500)
        for item in viewport.items {
            let element = try #require(root.elements(with: "data-id").first { $0.attributes["data-id"] == item.id })
            #expect(element.number("y") == item.frame.y)
        }
        // and pinned headers come last, so they are drawn over the images, with a marker
        let pinned = viewport.headers.filter { $0.pinned == true }
        try #require(!pinned.isEmpty)
        let drawn = root.children.filter { $0.attributes["data-id"] != nil || $0.attributes["data-header"] != nil }
        #expect(
            drawn.suffix(pinned.count).allSatisfy {
                $0.attributes["class"] == "header pinned" && $0.allText.contains("PINNED")
            })
    }
}
