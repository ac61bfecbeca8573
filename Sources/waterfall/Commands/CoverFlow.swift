import ArgumentParser
import Waterfall

extension WaterfallCommand {
    /// `waterfall coverflow`.
    struct CoverFlow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "coverflow",
            abstract:
                "Lay a feed out as a cover flow: the images visible at an offset, their scale, and the snapped offset.",
            discussion: """
                Images sit in one row, --item-height tall and as wide as their aspect ratio makes them, --spacing \
                apart after the left inset. Visible images carry scale = 1 / (1 + |centerX - (x + V/2)| * factor); \
                snapOffset puts the image centre nearest to the viewport centre exactly at the centre.
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var view: ViewOptions
        @OptionGroup(title: "Cover flow configuration") var cover: CoverFlowOptions
        @Option(parsing: .unconditional, help: .query(.viewportWidth))
        var viewportWidth: Double
        @Option(parsing: .unconditional, help: .query(.x))
        var x: Double
        @Option(parsing: .unconditional, help: .query(.dpr))
        var dpr: Double?
        @OptionGroup var output: OutputOptions

        /// The configuration the flags describe (through its own `Codable`, as the HTTP API's
        /// parameters are), validated.
        func configuration() throws -> CoverFlowConfiguration {
            let configuration: CoverFlowConfiguration
            do {
                configuration = try FieldDecoder(flagValues(of: cover), naming: ConfigurationFlags.flag(for:))
                    .decode(CoverFlowConfiguration.self)
            } catch {
                throw ValidationError(error.message)
            }
            do throws(LayoutConfigurationError) {
                try configuration.validate()
            } catch {
                throw ValidationError(error.message)
            }
            return configuration
        }

        func validate() throws {
            _ = try configuration()
            if !x.isFinite { throw ValidationError("--x must be a finite number, got \(x).") }
            if !(viewportWidth > 0) || !viewportWidth.isFinite {
                throw ValidationError("--viewport-width must be a number above 0, got \(viewportWidth).")
            }
            try checkDPR(dpr)
        }

        func run() async throws {
            var page = try await database.open().inView(view.view).coverFlow(
                feed: feed.feed, configuration: try configuration(), x: x, viewportWidth: viewportWidth)
            if let dpr { page = page.choosingRenditions(dpr: dpr) }
            if output.json { return Terminal.printJSON(page) }
            var table = Table("INDEX", "ID", "X", "Y", "WIDTH", "HEIGHT", "SCALE", rightAligned: [0, 2, 3, 4, 5, 6])
            for item in page.items {
                table.add(
                    "\(item.index)", cell(item.id), points(item.frame.x), points(item.frame.y),
                    points(item.frame.width), points(item.frame.height), String(format4(item.scale)))
            }
            Terminal.print(table.rendered)
            Terminal.print(
                "feed \(cell(page.feed)): \(page.items.count) of \(page.totalItems) images visible at x \(points(x)); content width \(points(page.contentWidth)); snap offset \(points(page.snapOffset))"
            )
        }
    }
}

private func format4(_ value: Double) -> String {
    "\((value * 10_000).rounded() / 10_000)"
}

/// The cover flow's configuration flags, each named like its JSON key and taken as text, with
/// the help of its row of ``CoverFlowConfiguration/fields`` (see ``ConfigurationOptions``).
struct CoverFlowOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: .coverFlowField("itemHeight"))
    var itemHeight: String?
    @Option(parsing: .unconditional, help: .coverFlowField("spacing"))
    var spacing: String?
    @Option(name: .customLong("inset"), parsing: .unconditional, help: .coverFlowField("sectionInset"))
    var sectionInset: String?
    @Option(parsing: .unconditional, help: .coverFlowField("factor"))
    var factor: String?
    @Option(parsing: .unconditional, help: .coverFlowField("scale"))
    var scale: String?
}

extension ArgumentHelp {
    /// The help of the cover-flow flag of `key`, from its field table.
    static func coverFlowField(_ key: String) -> ArgumentHelp {
        guard let field = CoverFlowConfiguration.field(key) else { preconditionFailure("no cover flow field \(key)") }
        return .field(field)
    }
}
