import ArgumentParser
import Waterfall

extension WaterfallCommand {
    /// `waterfall page`.
    struct Page: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "page",
            abstract: "Print a page of a feed's layout: images with their frames, and the page's headers and footers.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var view: ViewOptions
        @OptionGroup var layout: LayoutOptions
        @OptionGroup(title: "Which images") var slice: SliceOptions
        @Option(parsing: .unconditional, help: .query(.dpr))
        var dpr: Double?
        @OptionGroup var output: OutputOptions

        /// The plain values the flags give.
        var request: PageRequest {
            PageRequest(
                database: database.path, feed: feed.feed, view: view.view, layout: layout.flags, slice: slice.flags,
                dpr: dpr,
                json: output.json)
        }

        func validate() throws {
            try checkDPR(dpr)
        }

        func run() async throws {
            try await request.run()
        }
    }

    /// `waterfall viewport`.
    struct Viewport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "viewport",
            abstract: "Print every header, image and footer that meets the band [y, y + height) of a feed's layout.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var view: ViewOptions
        @OptionGroup var layout: LayoutOptions
        @Option(parsing: .unconditional, help: .query(.y))
        var y: Double
        @Option(parsing: .unconditional, help: .query(.height))
        var height: Double
        @Flag(help: .query(.pinHeaders))
        var pinHeaders = false
        @Option(parsing: .unconditional, help: .query(.pinOffset))
        var pinOffset: Double?
        @Option(parsing: .unconditional, help: .query(.dpr))
        var dpr: Double?
        @OptionGroup var output: OutputOptions

        /// The plain values the flags give.
        var request: ViewportRequest {
            ViewportRequest(
                database: database.path, feed: feed.feed, view: view.view, layout: layout.flags, y: y, height: height,
                pinHeaders: pinHeaders, pinOffset: pinOffset, dpr: dpr, json: output.json)
        }

        func validate() throws {
            try request.validate()
        }

        func run() async throws {
            try await request.run()
        }
    }
}

/// What `page` asks for, in plain values: from ArgumentParser's ``WaterfallCommand/Page`` or
/// from the fast lane.
struct PageRequest: FastLaneRequest {
    var database: String?
    var feed: String?
    var view: String?
    var layout = LayoutFlags()
    var slice = SliceFlags()
    var dpr: Double?
    var json = false

    /// What ArgumentParser checks: the layout and slice flags (their option groups' validations)
    /// and `--dpr`.
    func validate() throws {
        _ = try layout.source()
        try slice.validate()
        try checkDPR(dpr)
    }

    func run() async throws {
        var result = try await OpenDatabases.open(path: DatabaseOptions.resolvedPath(database)).inView(view).page(
            feed: feed, layout: try layout.source(), offset: slice.slice.range.offset, limit: slice.slice.range.limit)
        if let dpr { result = result.choosingRenditions(dpr: dpr) }
        if json { return Terminal.printJSON(result) }
        printFrames(items: result.items, headers: result.headers, footers: result.footers)
        let next = result.nextOffset.map { "next offset \($0)" } ?? "last page"
        Terminal.print(
            "feed \(cell(result.feed)), revision \(result.revision), layout \(cell(result.layout ?? "(inline)")): \(result.items.count) of \(result.totalItems) images, content height \(points(result.contentHeight)), \(next)"
        )
    }

    static func kind(of name: Substring) -> FastLaneOptionKind? {
        switch name {
        case "db", "feed", "view": .value(unconditional: false)
        case "dpr": .value(unconditional: true)
        case "json": .flag
        // The slice's names first: the configuration flags' table is built on first use.
        default: SliceFlags.kind(of: name) ?? LayoutFlags.kind(of: name)
        }
    }

    mutating func set(_ name: Substring, _ value: String?) -> Bool {
        switch name {
        case "db": assign(value, to: &database)
        case "feed": assign(value, to: &feed)
        case "view": assign(value, to: &view)
        case "dpr": assign(value, to: &dpr)
        case "json": raise(&json)
        default: SliceFlags.kind(of: name) != nil ? slice.set(name, value) : layout.set(name, value)
        }
    }
}

/// What `viewport` asks for, in plain values: from ArgumentParser's ``WaterfallCommand/Viewport``
/// or from the fast lane.
struct ViewportRequest: FastLaneRequest {
    var database: String?
    var feed: String?
    var view: String?
    var layout = LayoutFlags()
    var y = 0.0
    var height = 0.0
    var pinHeaders = false
    var pinOffset: Double?
    var dpr: Double?
    var json = false

    func validate() throws {
        _ = try layout.source()
        if pinOffset != nil && !pinHeaders { throw ValidationError("--pin-offset goes with --pin-headers.") }
        try checkDPR(dpr)
        if !y.isFinite { throw ValidationError("--y must be a finite number, got \(y).") }
        if !(height > 0) || !height.isFinite {
            throw ValidationError("--height must be a number above 0, got \(height).")
        }
    }

    func run() async throws {
        var result = try await OpenDatabases.open(path: DatabaseOptions.resolvedPath(database)).inView(view).viewport(
            feed: feed, layout: try layout.source(), y: y, height: height,
            pinOffset: pinHeaders ? (pinOffset ?? 0) : nil)
        if let dpr { result = result.choosingRenditions(dpr: dpr) }
        if json { return Terminal.printJSON(result) }
        printFrames(items: result.items, headers: result.headers, footers: result.footers)
        Terminal.print(
            "feed \(cell(result.feed)), revision \(result.revision): \(result.items.count) images meet y \(points(y))…\(points(y + height)) of content height \(points(result.contentHeight))"
        )
    }

    static var requiredOptions: [Substring] { ["y", "height"] }

    static func kind(of name: Substring) -> FastLaneOptionKind? {
        switch name {
        case "db", "feed", "view": .value(unconditional: false)
        case "y", "height", "pin-offset", "dpr": .value(unconditional: true)
        case "json", "pin-headers": .flag
        default: LayoutFlags.kind(of: name)
        }
    }

    mutating func set(_ name: Substring, _ value: String?) -> Bool {
        switch name {
        case "db": assign(value, to: &database)
        case "feed": assign(value, to: &feed)
        case "view": assign(value, to: &view)
        case "y": assign(value, to: &y)
        case "height": assign(value, to: &height)
        case "pin-offset": assign(value, to: &pinOffset)
        case "dpr": assign(value, to: &dpr)
        case "json": raise(&json)
        case "pin-headers": raise(&pinHeaders)
        default: layout.set(name, value)
        }
    }
}

/// Checks `--dpr` (``DevicePixelRatio``), as ArgumentParser's validation does the other flags.
func checkDPR(_ dpr: Double?) throws {
    guard let dpr else { return }
    do throws(WaterfallError) {
        try DevicePixelRatio.validate(dpr)
    } catch {
        throw ValidationError(error.commandLineMessage)
    }
}

/// Prints frames as one table: headers, images and footers.
func printFrames(items: [PlacedImage], headers: [PlacedSupplement], footers: [PlacedSupplement]) {
    var table = Table("KIND", "INDEX", "ID", "SECTION", "X", "Y", "WIDTH", "HEIGHT", rightAligned: [1, 4, 5, 6, 7])
    for header in headers {
        table.add(
            header.pinned == true ? "header (pinned)" : "header", "", "", cell(header.label),
            points(header.frame.x), points(header.frame.y), points(header.frame.width), points(header.frame.height))
    }
    for item in items {
        table.add(
            "image", "\(item.index)", cell(item.id), cell(item.section),
            points(item.frame.x), points(item.frame.y), points(item.frame.width), points(item.frame.height))
    }
    for footer in footers {
        table.add(
            "footer", "", "", cell(footer.label),
            points(footer.frame.x), points(footer.frame.y), points(footer.frame.width), points(footer.frame.height))
    }
    Terminal.print(table.rendered)
}
