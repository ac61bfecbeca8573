import Testing
import WaterfallRender

@Suite("RenderFormat")
struct RenderFormatTests {
    @Test(
        "the format follows the file's extension, in any letter case",
        arguments: [
            ("page.html", RenderFormat.html), ("out/Page.HTM", .html), ("/tmp/a.b/page.svg", .svg), ("x.SVG", .svg),
        ])
    func known(path: String, format: RenderFormat) {
        #expect(RenderFormat(path: path) == format)
    }

    @Test(
        "any other name has no format",
        arguments: ["page.png", "page", "svg", "html.", "dir.html/page", "/tmp/.svg", ""])
    func unknown(path: String) {
        #expect(RenderFormat(path: path) == nil)
    }
}
