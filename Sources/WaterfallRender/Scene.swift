import Waterfall

/// What a renderer draws, whatever query produced it: the elements, and the band of the
/// layout's coordinate space the drawing covers.
///
/// The drawing is `width` wide and spans layout y `top ..< top + height`; an element is drawn
/// at `frame.y - top`, so a page drawn from `top = 0` maps frames one to one.
struct Scene {
    var items: [PlacedImage]
    var headers: [PlacedSupplement]
    var footers: [PlacedSupplement]
    /// The layout's width, in points.
    var width: Double
    /// The layout y drawn at the top edge, in points.
    var top: Double
    /// The drawing's height, in points.
    var height: Double
    /// The caption strip at the bottom of every image frame, in points (0: none).
    var captionHeight: Double
    /// The line shown above the drawing.
    var legend: Legend

    /// The line shown above the drawing (outside it, so the drawing's box stays exact).
    struct Legend {
        var feed: String
        var revision: Int64
        /// A saved layout's name, or a short description of an inline configuration.
        var layout: String
        /// What the drawing shows, e.g. "page: images 0–49 of 120".
        var shown: String
    }

    /// A page, drawn from y 0 down to the lowest edge of anything it shows.
    init(_ page: LayoutPage) {
        items = page.items
        headers = page.headers
        footers = page.footers
        width = page.configuration.width
        top = 0
        let frames = page.items.map(\.frame) + page.headers.map(\.frame) + page.footers.map(\.frame)
        height = frames.map(\.maxY).max() ?? 0
        captionHeight = page.configuration.captionHeight
        let shown: String
        if let first = page.items.first, let last = page.items.last {
            shown = "page: images \(first.index)–\(last.index) of \(page.totalItems)"
        } else {
            shown = "page: no images (\(page.totalItems) in the feed)"
        }
        legend = Legend(
            feed: page.feed, revision: page.revision,
            layout: Self.describe(page.layout, page.configuration), shown: shown)
    }

    /// A viewport, drawn as its band `[y, y + height)`.
    init(_ viewport: ViewportPage) {
        items = viewport.items
        headers = viewport.headers
        footers = viewport.footers
        width = viewport.configuration.width
        top = viewport.y
        height = viewport.height
        captionHeight = viewport.configuration.captionHeight
        let band = "y \(Number.text(viewport.y))–\(Number.text(viewport.y + viewport.height))"
        let pinned = viewport.headers.contains { $0.pinned == true } ? ", pinned headers" : ""
        legend = Legend(
            feed: viewport.feed, revision: viewport.revision,
            layout: Self.describe(viewport.layout, viewport.configuration),
            shown: "viewport \(band)\(pinned): \(viewport.items.count) of \(viewport.totalItems) images")
    }

    /// The legend's words for a layout.
    static func describe(_ name: String?, _ configuration: AnyLayoutConfiguration) -> String {
        let shape = configuration.shape
        if let name { return "layout \(name) (\(shape))" }
        return "inline layout (\(shape))"
    }

    /// The legend as one line of plain text.
    var legendText: String {
        "\(legend.feed) · revision \(legend.revision) · \(legend.layout) · \(legend.shown) · \(Number.text(width)) × \(Number.text(height)) pt"
    }
}
