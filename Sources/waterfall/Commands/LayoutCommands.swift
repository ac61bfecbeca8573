import ArgumentParser
import Waterfall

extension WaterfallCommand {
    /// `waterfall layout add|list|remove|warm`.
    struct Layout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "layout",
            abstract: "Manage a feed's named layouts.",
            subcommands: [Add.self, List.self, Remove.self, Warm.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add", abstract: "Save a layout configuration under a name (replacing one of that name).")

            @OptionGroup var database: DatabaseOptions
            @Argument(help: ArgumentHelp("The layout's name.", valueName: "name"))
            var name: String
            @OptionGroup var feed: FeedOptions
            @OptionGroup(title: "Layout configuration") var configuration: ConfigurationOptions

            func validate() throws {
                _ = try configuration.configuration()
            }

            func run() async throws {
                let replaced = try await database.open().addLayout(
                    feed: feed.feed, name: name, configuration: try configuration.configuration())
                Terminal.print("\(replaced ? "replaced" : "saved") layout \(cell(name))")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List a feed's named layouts.")

            @OptionGroup var database: DatabaseOptions
            @OptionGroup var feed: FeedOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let layouts = try await database.open().layouts(feed: feed.feed)
                if output.json { return Terminal.printJSON(LayoutList(layouts: layouts)) }
                var table = Table("NAME", "KIND", "SHAPE")
                for layout in layouts {
                    table.add(cell(layout.name), layout.configuration.kind.rawValue, layout.configuration.shape)
                }
                Terminal.print(table.rendered)
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Remove a named layout and its cache.")

            @OptionGroup var database: DatabaseOptions
            @Argument(help: ArgumentHelp("The layout's name.", valueName: "name"))
            var name: String
            @OptionGroup var feed: FeedOptions

            func run() async throws {
                try await database.open().removeLayout(feed: feed.feed, name: name)
                Terminal.print("removed layout \(cell(name))")
            }
        }

        struct Warm: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "warm", abstract: "Compute and store every checkpoint of a layout now.")

            @OptionGroup var database: DatabaseOptions
            @Argument(help: ArgumentHelp("The layout's name.", valueName: "name"))
            var name: String
            @OptionGroup var feed: FeedOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let coverage = try await database.open().warmLayout(feed: feed.feed, layout: .named(name))
                if output.json { return Terminal.printJSON(coverage) }
                Terminal.print(
                    "layout \(cell(name)) of feed \(cell(coverage.feed)): \(coverage.checkpoints) checkpoints, \(coverage.complete ? "complete" : "incomplete")"
                )
            }
        }
    }
}
