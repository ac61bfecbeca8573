import ArgumentParser
import Waterfall

extension WaterfallCommand {
    /// `waterfall locate`: where an image is in a layout (DESIGN sections 16 and 17).
    struct Locate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "locate",
            abstract:
                "Print where an image is in a feed's layout: its index, section, frame and the page offset that holds it.",
            discussion: """
                Give the image's id, or --date for the first image, in catalog order, taken at or before a moment \
                (YYYY-MM-DD, its midnight, or YYYY-MM-DDTHH:MM, in the feed's time zone). The page offset counts in \
                pages of --limit images (default \(WaterfallService.defaultLocateLimit)). The same JSON as \
                GET …/locate.
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var view: ViewOptions
        @OptionGroup var layout: LayoutOptions
        @Argument(help: ArgumentHelp("The image's id.", valueName: "id"))
        var id: String?
        @Option(
            help: ArgumentHelp(
                "Locate the first image taken at or before this moment instead of an id.",
                valueName: "YYYY-MM-DD[THH:MM]"))
        var date: String?
        @Option(help: ArgumentHelp("The page size the page offset counts in.", valueName: "n"))
        var limit: Int = WaterfallService.defaultLocateLimit
        @OptionGroup var output: OutputOptions

        /// What the arguments ask for.
        func target() throws -> LocateTarget {
            switch (id, date) {
            case (let id?, nil): return .id(id)
            case (nil, let date?): return .date(date)
            case (nil, nil): throw ValidationError("give an image id, or --date.")
            case (_?, _?): throw ValidationError("give an image id or --date, not both.")
            }
        }

        func validate() throws {
            _ = try target()
        }

        func run() async throws {
            let located = try await database.open().inView(view.view).locate(
                feed: feed.feed, layout: try layout.source(), try target(), limit: limit)
            if output.json { return Terminal.printJSON(located) }
            var table = Table(
                "INDEX", "ID", "SECTION", "X", "Y", "WIDTH", "HEIGHT", "PAGE OFFSET", rightAligned: [0, 3, 4, 5, 6, 7])
            table.add(
                "\(located.index)", cell(located.id), cell(located.section ?? "-"), points(located.frame.x),
                points(located.frame.y),
                points(located.frame.width), points(located.frame.height), "\(located.offset)")
            Terminal.print(table.rendered)
            Terminal.print(
                "feed \(cell(located.feed)), revision \(located.revision), layout \(cell(located.layout ?? "(inline)")): pages of \(located.limit)"
            )
        }
    }
}
