import ArgumentParser
import Waterfall

extension WaterfallCommand {
    /// `waterfall page`.
    struct Page: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "page",
            abstract: "Print a page of a feed's layout: images with their frames, and the page's headers and footers.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var layout: LayoutOptions
        @Option(help: "The page number, from 0.")
        var page: Int?
        @Option(help: "Images per page with --page (default 50).")
        var pageSize: Int?
        @Option(help: "Index of the first image (with --limit).")
        var offset: Int?
        @Option(help: "How many images (with --offset).")
        var limit: Int?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if page != nil && (offset != nil || limit != nil) {
                throw ValidationError("give either --page N [--page-size P] or --offset O --limit L, not both.")
            }
            if pageSize != nil && page == nil {
                throw ValidationError("--page-size goes with --page N.")
            }
            if (offset == nil) != (limit == nil) && page == nil {
                throw ValidationError("--offset and --limit go together.")
            }
            if let page, page < 0 { throw ValidationError("--page must be 0 or more, got \(page).") }
            if let pageSize, pageSize < 1 || pageSize > WaterfallService.maximumLimit {
                throw ValidationError("--page-size must be between 1 and \(WaterfallService.maximumLimit), got \(pageSize).")
            }
            if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more, got \(offset).") }
            if let limit, limit < 1 || limit > WaterfallService.maximumLimit {
                throw ValidationError("--limit must be between 1 and \(WaterfallService.maximumLimit), got \(limit).")
            }
            if let page, page > Int(Int32.max) { throw ValidationError("--page is too large: \(page).") }
        }

        /// The slice the flags ask for.
        var slice: (offset: Int, limit: Int) {
            if let offset, let limit { return (offset, limit) }
            let size = pageSize ?? 50
            return ((page ?? 0) * size, size)
        }

        func run() throws {
            let result = try database.open().page(
                feed: feed.feed, layout: try layout.source(), offset: slice.offset, limit: slice.limit)
            if output.json { return Terminal.printJSON(result) }
            printFrames(items: result.items, headers: result.headers, footers: result.footers)
            let next = result.nextOffset.map { "next offset \($0)" } ?? "last page"
            Terminal.print("feed \(cell(result.feed)), revision \(result.revision), layout \(cell(result.layout ?? "(inline)")): \(result.items.count) of \(result.totalItems) images, content height \(points(result.contentHeight)), \(next)")
        }
    }

    /// `waterfall viewport`.
    struct Viewport: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "viewport",
            abstract: "Print every header, image and footer that meets the band [y, y + height) of a feed's layout.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var layout: LayoutOptions
        @Option(help: "Top of the band in points.")
        var y: Double
        @Option(help: "Height of the band in points.")
        var height: Double
        @Flag(help: "Float section headers at the top of the band, as a plain-style table view does.")
        var pinHeaders = false
        @Option(help: "With --pin-headers: pin headers this far below the top of the band (a navigation bar's height).")
        var pinOffset: Double?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if pinOffset != nil && !pinHeaders { throw ValidationError("--pin-offset goes with --pin-headers.") }
            if !y.isFinite { throw ValidationError("--y must be a finite number, got \(y).") }
            if !(height > 0) || !height.isFinite { throw ValidationError("--height must be a number above 0, got \(height).") }
        }

        func run() throws {
            let result = try database.open().viewport(
                feed: feed.feed, layout: try layout.source(), y: y, height: height,
                pinOffset: pinHeaders ? (pinOffset ?? 0) : nil)
            if output.json { return Terminal.printJSON(result) }
            printFrames(items: result.items, headers: result.headers, footers: result.footers)
            Terminal.print("feed \(cell(result.feed)), revision \(result.revision): \(result.items.count) images meet y \(points(y))…\(points(y + height)) of content height \(points(result.contentHeight))")
        }
    }
}

/// Prints frames as one table: headers, images and footers.
func printFrames(items: [PlacedImage], headers: [PlacedSupplement], footers: [PlacedSupplement]) {
    var table = Table("KIND", "INDEX", "ID", "SECTION", "X", "Y", "WIDTH", "HEIGHT", rightAligned: [1, 4, 5, 6, 7])
    for header in headers {
        table.add(header.pinned == true ? "header (pinned)" : "header", "", "", cell(header.section),
                  points(header.frame.x), points(header.frame.y), points(header.frame.width), points(header.frame.height))
    }
    for item in items {
        table.add("image", "\(item.index)", cell(item.id), cell(item.section),
                  points(item.frame.x), points(item.frame.y), points(item.frame.width), points(item.frame.height))
    }
    for footer in footers {
        table.add("footer", "", "", cell(footer.section),
                  points(footer.frame.x), points(footer.frame.y), points(footer.frame.width), points(footer.frame.height))
    }
    Terminal.print(table.rendered)
}
