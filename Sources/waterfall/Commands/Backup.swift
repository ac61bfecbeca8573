import ArgumentParser
import Waterfall

extension WaterfallCommand {
    /// `waterfall backup --to PATH [--force]`.
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Copy a live SQLite catalog, consistently, into a new file.",
            discussion: """
                Copies the catalog with SQLite's online backup while servers and other commands go on reading \
                and writing it: the copy is one snapshot, and it answers every read as the catalog did at the \
                revisions printed. The copy is written to a temporary file beside PATH and moved into place when \
                complete, so an interrupted backup never leaves a half-written PATH. A PostgreSQL catalog is \
                backed up with pg_dump (the error says what to run).
                """)

        @OptionGroup var database: DatabaseOptions
        @Option(
            help: ArgumentHelp(
                "The file to write the copy to; it must not exist, unless --force is given.", valueName: "path"))
        var to: String
        @Flag(help: "Replace the file at --to if it exists.")
        var force = false
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if to.isEmpty { throw ValidationError("--to must name a file, got an empty path.") }
        }

        func run() async throws {
            let report = try await database.open().backup(to: to, replacing: force)
            if output.json { return Terminal.printJSON(report) }
            let feeds =
                report.feeds.isEmpty
                ? "no feeds"
                : report.feeds.map { "feed \(cell($0.name)) at revision \($0.revision) (\($0.images) images)" }.joined(
                    separator: ", ")
            Terminal.print(
                "copied \(cell(report.from, limit: 200)) to \(cell(report.to, limit: 200)) (\(report.bytes / 1024) KiB): \(feeds)"
            )
        }
    }
}
