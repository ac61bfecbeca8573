import ArgumentParser
import Waterfall

extension WaterfallCommand {
    /// `waterfall move ID`: one user reorder.
    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract:
                "Move one image before or after another (into that image's section), or to an index in its own section."
        )

        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp("The id of the image to move.", valueName: "id"))
        var id: String
        @Option(help: ArgumentHelp("Put the image right before this image, in its section.", valueName: "id"))
        var before: String?
        @Option(help: ArgumentHelp("Put the image right after this image, in its section.", valueName: "id"))
        var after: String?
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Put the image at this index (from 0) of its own section.", valueName: "n"))
        var to: Int?
        @Flag(help: "Show what would change without writing anything.")
        var dryRun = false
        @OptionGroup var feed: FeedOptions
        @OptionGroup var view: ViewOptions
        @OptionGroup var output: OutputOptions

        /// The plain values the flags give.
        var request: MoveRequest {
            MoveRequest(
                database: database.path, id: id, before: before, after: after, to: to, dryRun: dryRun,
                feed: feed.feed, view: view.view, json: output.json)
        }

        func validate() throws {
            try request.validate()
        }

        func run() async throws {
            try await request.run()
        }
    }

    /// `waterfall reorder FILE`: apply a reorder file.
    struct Reorder: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reorder",
            abstract: "Apply a reorder file (moves and removals, or an order list) in one transaction.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp("The reorder file; - reads standard input.", valueName: "file"))
        var file: String
        @OptionGroup var feed: FeedOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            printSummary(try await database.open().reorder(contentsOf: file, feed: feed.feed), json: output.json)
        }
    }

    /// `waterfall remove ID…`: delete images.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove images by id (all of them, or none when one is unknown).")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp("The ids of the images to remove.", valueName: "id"))
        var ids: [String]
        @OptionGroup var feed: FeedOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if ids.isEmpty { throw ValidationError("give at least one image id to remove.") }
        }

        func run() async throws {
            printSummary(try await database.open().remove(feed: feed.feed, ids: ids), json: output.json)
        }
    }
}

/// What `move` asks for, in plain values: from ArgumentParser's ``WaterfallCommand/Move`` or
/// from the fast lane (a drag and drop is one process; ArgumentParser's reflection was a third
/// of its instructions).
struct MoveRequest: FastLaneRequest {
    var database: String?
    /// The image to move (the positional argument).
    var id: String?
    var before: String?
    var after: String?
    var to: Int?
    var dryRun = false
    var feed: String?
    var view: String?
    var json = false

    static func kind(of name: Substring) -> FastLaneOptionKind? {
        switch name {
        case "db", "feed", "view", "before", "after": .value(unconditional: false)
        case "to": .value(unconditional: true)
        case "dry-run", "json": .flag
        default: nil
        }
    }

    mutating func set(_ name: Substring, _ value: String?) -> Bool {
        switch name {
        case "db": assign(value, to: &database)
        case "feed": assign(value, to: &feed)
        case "view": assign(value, to: &view)
        case "before": assign(value, to: &before)
        case "after": assign(value, to: &after)
        case "to": assign(value, to: &to)
        case "dry-run": raise(&dryRun)
        case "json": raise(&json)
        default: false
        }
    }

    mutating func setArgument(_ value: String) -> Bool {
        guard id == nil else { return false }
        id = value
        return true
    }

    /// What ArgumentParser checks after parsing.
    func validate() throws {
        guard let id else { throw ValidationError("missing the id of the image to move.") }
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

    func run() async throws {
        try validate()
        guard let id,
            let target: MoveTarget = before.map({ .before($0) }) ?? after.map({ .after($0) }) ?? to.map({ .index($0) })
        else {
            preconditionFailure("validate() guarantees an id and exactly one target")
        }
        let summary = try await OpenDatabases.open(path: DatabaseOptions.resolvedPath(database)).inView(view)
            .move(feed: feed, id: id, to: target, dryRun: dryRun)
        printSummary(summary, json: json, dryRun: dryRun)
    }
}
