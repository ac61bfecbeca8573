import ArgumentParser
import Foundation
import Synchronization
import Waterfall

/// `--db PATH`, shared by every command; accepted before or after the command name.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "The catalog: an SQLite file, or a PostgreSQL database as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (default: $WATERFALL_DB, else ./waterfall.sqlite).",
            valueName: "path-or-url"))
    var path: String?

    /// The database path in effect.
    var resolvedPath: String { Self.resolvedPath(path) }

    /// Opens the service over the database.
    func open() throws(WaterfallError) -> WaterfallService {
        try OpenDatabases.open(path: resolvedPath)
    }

    /// `path`, else `$WATERFALL_DB`, else ./waterfall.sqlite.
    static func resolvedPath(_ path: String?) -> String {
        path ?? getenv("WATERFALL_DB").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? "waterfall.sqlite"
    }
}

/// `--feed NAME`.
struct FeedOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The feed to use; may be left out when the database holds one feed.", valueName: "name"))
    var feed: String?
}

/// `--view`: a read (or a move) answered for one view of the feed (DESIGN section 20).
struct ViewOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Answer for this view of the feed (saved with `view add`) instead of the whole feed.", valueName: "name"))
    var view: String?
}

/// `--json`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the stable machine format (JSON) instead of a table.")
    var json = false
}

/// The databases this process opened: closed explicitly when the command ends, and never
/// deinitialised (see ``CatalogStore/close()``; the process exits right after).
enum OpenDatabases {
    private static let services = Mutex<[WaterfallService]>([])

    /// Opens the database at `path` and keeps it until ``closeAll()``.
    static func open(path: String) throws(WaterfallError) -> WaterfallService {
        let service = try WaterfallService.open(path: path)
        services.withLock { $0.append(service) }
        return service
    }

    /// Closes every database opened through ``open(path:)``; they stay referenced.
    static func closeAll() async {
        for service in services.withLock({ $0 }) { await service.database.close() }
    }
}
