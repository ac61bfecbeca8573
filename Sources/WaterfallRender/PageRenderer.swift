import Waterfall

/// Draws a page or a viewport of a laid-out feed as one self-contained HTML file or SVG
/// document: the container (or the SVG canvas) is exactly as wide as the layout, and every
/// image, header and footer sits exactly at its frame.
///
/// Pure: values in, text out; the caller writes the file. Ids, titles, urls and section names
/// are escaped, and an image url is used only when it is `http(s)` or relative.
///
/// HTML: the container carries `data-waterfall`; every image is the one element carrying
/// `data-id="ID"`, absolutely positioned (`left`, `top`, `width`, `height` in px) at its frame
/// relative to the container; headers carry `data-header="SECTION"`, footers
/// `data-footer="SECTION"` (an empty value for the unnamed section). A page is drawn from
/// y 0, so its frames map one to one; a viewport is drawn as its band, each element at
/// `frame.y - y`. The legend line sits outside the container.
public struct PageRenderer: Sendable {
    /// What is written besides the drawing.
    public var options: RenderOptions

    /// Creates a renderer; by default the HTML output carries no script.
    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    /// `page` in `format`: the drawing spans y 0 to the lowest edge of what the page shows.
    /// O(n) in the page's elements.
    public func render(_ page: LayoutPage, format: RenderFormat) -> String {
        render(Scene(page), format: format)
    }

    /// `viewport` in `format`: the drawing is the band `[y, y + height)`, pinned headers drawn
    /// above the images and marked. O(n) in the viewport's elements.
    public func render(_ viewport: ViewportPage, format: RenderFormat) -> String {
        render(Scene(viewport), format: format)
    }

    func render(_ scene: Scene, format: RenderFormat) -> String {
        switch format {
        case .html: HTMLDocument(scene: scene, options: options).text
        case .svg: SVGDocument(scene: scene).text
        }
    }
}
