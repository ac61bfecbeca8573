import ArgumentParser
import Waterfall


extension WaterfallCommand {
    /// `waterfall move ID`: one user reorder.
    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Move one image before or after another (into that image's section), or to an index in its own section.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp("The id of the image to move.", valueName: "id"))
        var id: String
        @Option(help: ArgumentHelp("Put the image right before this image, in its section.", valueName: "id"))
        var before: String?
        @Option(help: ArgumentHelp("Put the image right after this image, in its section.", valueName: "id"))
        var after: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Put the image at this index (from 0) of its own section.", valueName: "n"))
        var to: Int?
        @Flag(help: "Show what would change without writing anything.")
        var dryRun = false
        @OptionGroup var feed: FeedOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            let targets = [before != nil, after != nil, to != nil].filter { $0 }.count
            if targets != 1 {
                throw ValidationError("give exactly one of --before ID, --after ID or --to N.")
            }
            if let to, to < 0 {
                throw ValidationError("--to must be an index of 0 or more, got \(to).")
            }
            if [before, after].contains(where: { $0.map { Array($0.utf8) == Array(id.utf8) } ?? false }) {
                throw ValidationError("cannot move \"\(cell(id))\" next to itself.")
            }
        }

        func run() throws {
            let target: MoveTarget = before.map { .before($0) } ?? after.map { .after($0) } ?? .index(to!)
            let summary = try database.open().move(feed: feed.feed, id: id, to: target, dryRun: dryRun)
            printSummary(summary, json: output.json, dryRun: dryRun)
        }
    }

    /// `waterfall reorder FILE`: apply a reorder file.
    struct Reorder: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reorder",
            abstract: "Apply a reorder file (moves and removals, or an order list) in one transaction.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp("The reorder file; - reads standard input.", valueName: "file"))
        var file: String
        @OptionGroup var feed: FeedOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            printSummary(try database.open().reorder(contentsOf: file, feed: feed.feed), json: output.json)
        }
    }

    /// `waterfall remove ID…`: delete images.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove images by id (all of them, or none when one is unknown).")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp("The ids of the images to remove.", valueName: "id"))
        var ids: [String]
        @OptionGroup var feed: FeedOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if ids.isEmpty { throw ValidationError("give at least one image id to remove.") }
        }

        func run() throws {
            printSummary(try database.open().remove(feed: feed.feed, ids: ids), json: output.json)
        }
    }
}
