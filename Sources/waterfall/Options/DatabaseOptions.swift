import ArgumentParser
import Foundation
import Waterfall

/// `--db PATH`, shared by every command; accepted before or after the command name.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp(
        "The database file (default: $WATERFALL_DB, else ./waterfall.sqlite).", valueName: "path"))
    var path: String?

    /// The database path in effect.
    var resolvedPath: String {
        path ?? ProcessInfo.processInfo.environment["WATERFALL_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? "waterfall.sqlite"
    }

    /// Opens the service over the database.
    func open() throws(WaterfallError) -> WaterfallService {
        try WaterfallService.open(path: resolvedPath)
    }
}

/// `--feed NAME`.
struct FeedOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The feed to use; may be left out when the database holds one feed.", valueName: "name"))
    var feed: String?
}

/// `--json`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the stable machine format (JSON) instead of a table.")
    var json = false
}

extension DatabaseOptions: FastLaneGroup {
    static var unset: Self {
        var options = Self()
        options.path = nil
        return options
    }

    static var fastLaneOptions: [String: FastLaneOption<Self>] { ["db": .optional(\.path)] }
}

extension FeedOptions: FastLaneGroup {
    static var unset: Self {
        var options = Self()
        options.feed = nil
        return options
    }

    static var fastLaneOptions: [String: FastLaneOption<Self>] { ["feed": .optional(\.feed)] }
}

extension OutputOptions: FastLaneGroup {
    static var unset: Self {
        var options = Self()
        options.json = false
        return options
    }

    static var fastLaneOptions: [String: FastLaneOption<Self>] { ["json": .flag(\.json)] }
}
