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
        @OptionGroup(title: "Which images") var slice: SliceOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let result = try database.open().page(
                feed: feed.feed, layout: try layout.source(), offset: slice.slice.offset, limit: slice.slice.limit)
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
        @Option(parsing: .unconditional, help: "Top of the band in points.")
        var y: Double
        @Option(parsing: .unconditional, help: "Height of the band in points.")
        var height: Double
        @Flag(help: "Float section headers at the top of the band, as a plain-style table view does.")
        var pinHeaders = false
        @Option(parsing: .unconditional, help: "With --pin-headers: pin headers this far below the top of the band (a navigation bar's height).")
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

extension WaterfallCommand.Page: FastLaneCommand {
    static var unset: Self {
        var command = Self()
        command.database = .unset
        command.feed = .unset
        command.layout = .unset
        command.slice = .unset
        command.output = .unset
        return command
    }

    static var fastLaneOptions: [String: FastLaneOption<Self>] {
        FastLaneOption.table(
            DatabaseOptions.fastLaneOptions(within: \Self.database), FeedOptions.fastLaneOptions(within: \Self.feed),
            LayoutOptions.fastLaneOptions(within: \Self.layout), SliceOptions.fastLaneOptions(within: \Self.slice),
            OutputOptions.fastLaneOptions(within: \Self.output))
    }

    mutating func validateAll() throws {
        try layout.validate()
        try slice.validate()
        try validate()
    }
}

extension WaterfallCommand.Viewport: FastLaneCommand {
    static var unset: Self {
        var command = Self()
        command.database = .unset
        command.feed = .unset
        command.layout = .unset
        command.y = 0
        command.height = 0
        command.pinHeaders = false
        command.pinOffset = nil
        command.output = .unset
        return command
    }

    static var fastLaneOptions: [String: FastLaneOption<Self>] {
        FastLaneOption.table(
            DatabaseOptions.fastLaneOptions(within: \Self.database), FeedOptions.fastLaneOptions(within: \Self.feed),
            LayoutOptions.fastLaneOptions(within: \Self.layout), OutputOptions.fastLaneOptions(within: \Self.output),
            [
                "y": .required(\.y, unconditional: true),
                "height": .required(\.height, unconditional: true),
                "pin-headers": .flag(\.pinHeaders),
                "pin-offset": .optional(\.pinOffset, unconditional: true),
            ])
    }

    mutating func validateAll() throws {
        try layout.validate()
        try validate()
    }
}
