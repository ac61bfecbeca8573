import ArgumentParser
import Foundation
import Waterfall
import WaterfallRender

extension WaterfallCommand {
    /// `waterfall render`.
    struct Render: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "render",
            abstract: "Draw a page or a viewport of a feed's layout as a self-contained HTML file or an SVG image.",
            discussion: """
                The format follows the extension of --out: .html or .htm for HTML, .svg for SVG. In the \
                HTML file, the element carrying data-waterfall is exactly as wide as the layout, and every \
                image is an element carrying data-id, absolutely positioned at its frame: a page is drawn \
                from y 0, so frames map one to one; a viewport is drawn as its band, each element at its \
                y minus --y. Without --page, --offset or --y, the first page is drawn. The file is written \
                to a temporary file beside --out, then renamed over it, so it is never half-written; when \
                it cannot be written the command exits with status 73.
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var view: ViewOptions
        @OptionGroup var layout: LayoutOptions
        @OptionGroup(title: "Which images") var slice: SliceOptions
        @Option(parsing: .unconditional, help: "Top of the band to draw in points (with --height).")
        var y: Double?
        @Option(parsing: .unconditional, help: "Height of the band to draw in points (with --y).")
        var height: Double?
        @Flag(help: "With --y: float section headers at the top of the band, as a plain-style table view does.")
        var pinHeaders = false
        @Option(
            parsing: .unconditional,
            help: "With --pin-headers: pin headers this far below the top of the band (a navigation bar's height).")
        var pinOffset: Double?
        @Option(help: ArgumentHelp("The file to write: FILE.html, FILE.htm or FILE.svg.", valueName: "file"))
        var out: String
        @Flag(help: .hidden)
        var measure = false

        func validate() throws {
            let band = y != nil || height != nil || pinHeaders || pinOffset != nil
            if band && slice.isGiven {
                throw ValidationError(
                    "give one of --page N [--page-size P], --offset O --limit L, or --y Y --height H, not several.")
            }
            if band && (y == nil || height == nil) {
                throw ValidationError("--y and --height go together (and --pin-headers needs them).")
            }
            if pinOffset != nil && !pinHeaders { throw ValidationError("--pin-offset goes with --pin-headers.") }
            if let y, !y.isFinite { throw ValidationError("--y must be a finite number, got \(y).") }
            if let height, !(height > 0) || !height.isFinite {
                throw ValidationError("--height must be a number above 0, got \(height).")
            }
            if RenderFormat(path: out) == nil {
                throw ValidationError("--out must name a file ending in .html, .htm or .svg, got \"\(out)\".")
            }
        }

        func run() async throws {
            let format = RenderFormat(path: out)!
            let service = try database.open().inView(view.view)
            let source = try layout.source()
            let renderer = PageRenderer(options: RenderOptions(includeMeasurementScript: measure))
            let text: String
            let what: String
            if let y, let height {
                let viewport = try await service.viewport(
                    feed: feed.feed, layout: source, y: y, height: height,
                    pinOffset: pinHeaders ? (pinOffset ?? 0) : nil)
                text = renderer.render(viewport, format: format)
                what =
                    "viewport y \(points(y))…\(points(y + height)) of feed \(cell(viewport.feed)) (\(count(viewport.items.count, "image")), \(count(viewport.headers.count, "header")), \(count(viewport.footers.count, "footer")))"
            } else {
                let result = try await service.page(
                    feed: feed.feed, layout: source, offset: slice.slice.offset, limit: slice.slice.limit)
                text = renderer.render(result, format: format)
                what =
                    "\(slice.name) of feed \(cell(result.feed)) (\(result.items.count) of \(count(result.totalItems, "image")), \(count(result.headers.count, "header")), \(count(result.footers.count, "footer")))"
            }
            let path = try writeAtomically(text, to: out)
            Terminal.print("wrote \(what) as \(format == .html ? "HTML" : "SVG") to \(path)")
        }
    }
}

/// "1 header", "2 headers".
private func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
}

/// Writes `text` to `path` so that `path` never holds a half-written file: the bytes go to a
/// new temporary file beside it, flushed to disk, which is then renamed over it. Returns the
/// absolute path written.
/// - Throws: ``WaterfallError`` of kind `cannotCreate` (exit 73) when the file cannot be written,
///   naming the path and the operating system's reason.
func writeAtomically(_ text: String, to path: String) throws(WaterfallError) -> String {
    let target = URL(fileURLWithPath: path).standardizedFileURL.path
    let folder = (target as NSString).deletingLastPathComponent
    let name = (target as NSString).lastPathComponent
    let temporary = folder + "/.\(name).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
    func failure(_ code: Int32) -> WaterfallError {
        WaterfallError.cannotCreate("cannot write \(target): \(String(cString: strerror(code)).lowercased()).")
    }
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw failure(errno) }
    let bytes = Array(text.utf8)
    var written = 0
    var code: Int32 = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            code = errno
            break
        }
        written += count
    }
    if code == 0 && fsync(descriptor) != 0 { code = errno }
    if close(descriptor) != 0 && code == 0 { code = errno }
    if code == 0 && rename(temporary, target) != 0 { code = errno }
    if code != 0 {
        unlink(temporary)
        throw failure(code)
    }
    return target
}
