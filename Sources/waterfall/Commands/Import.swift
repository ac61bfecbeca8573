import ArgumentParser
import Foundation
import Waterfall

extension WaterfallCommand {
    /// `waterfall import FILE`: sync a feed file into the catalog.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a feed file (JSON, or NDJSON with one image per line) and print what changed.",
            discussion: """
                A snapshot import (the default) makes the file the whole truth for membership but keeps
                user reorders; --append only adds and updates; --reset-order adopts the file's order.
                The feed's name is the file's "feed" field, else --feed, else the file's name.
                --section-by makes the sections from each image's "takenAt" (newest first, then
                "undated"), in the zone --time-zone; the feed remembers both for later imports and moves.
                """)

        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp("The feed file; - reads standard input (JSON).", valueName: "file"))
        var file: String
        @OptionGroup var feed: FeedOptions
        @Flag(help: "Add new images at the end of their sections and update existing ones; remove nothing.")
        var append = false
        @Flag(help: "Drop user reorders and adopt the file's order, sections included.")
        var resetOrder = false
        @Option(
            help: ArgumentHelp(
                "Make sections from each image's takenAt by day, month or year (none: the file's own sections); overrides the file's sectionBy.",
                valueName: "day|month|year|none"))
        var sectionBy: SectionBy?
        @Option(
            help: ArgumentHelp(
                "The IANA time zone of date sections, such as Europe/Paris (default: the file's timeZone, else the feed's, else UTC).",
                valueName: "zone"))
        var timeZone: String?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if append && resetOrder {
                throw ValidationError(
                    "--reset-order adopts the whole file's order and cannot be combined with --append.")
            }
        }

        func run() async throws {
            let service = try database.open()
            let progress = Terminal.standardErrorIsTerminal ? Self.progressLine(for: file) : nil
            let summary = try await service.importFeed(
                contentsOf: file,
                options: .init(
                    feedName: feed.feed, mode: append ? .append : .snapshot, resetOrder: resetOrder,
                    sectionBy: sectionBy, timeZone: timeZone),
                progress: progress)
            if progress != nil { Terminal.error("\r\u{1B}[K") }
            printSummary(summary, json: output.json)
        }

        private static func progressLine(for file: String) -> @Sendable (ImportProgress) -> Void {
            let name = cell(file == "-" ? "standard input" : String(file.split(separator: "/").last ?? Substring(file)))
            return { stage in
                Terminal.error("\r\u{1B}[Kimporting \(name): \(Self.describe(stage))")
            }
        }

        /// The stage and how far along it is: "reading 42% (47 of 112 MB)…".
        static func describe(_ stage: ImportProgress) -> String {
            func percent(_ part: Int, _ whole: Int) -> Int { whole > 0 ? min(100, part * 100 / whole) : 100 }
            switch stage {
            case .reading(let bytes, let total?):
                return "reading \(percent(bytes, total))% (\(bytes / 1_000_000) of \(total / 1_000_000) MB)…"
            case .reading(let bytes, nil):
                return "reading (\(bytes / 1_000_000) MB)…"
            case .writing(let rows, let total):
                return "writing \(percent(rows, total))% (\(rows) of \(total) images)…"
            case .indexing:
                return "indexing…"
            }
        }
    }
}

/// Prints a change summary as JSON or as one readable line.
func printSummary(_ summary: ChangeSummary, json: Bool, dryRun: Bool = false) {
    if json {
        Terminal.printJSON(summary)
        return
    }
    var counts =
        "\(summary.inserted) inserted, \(summary.updated) updated, \(summary.moved) moved, \(summary.removed) removed, \(summary.unchanged) unchanged"
    if let ignored = summary.sectionFieldsIgnored {
        counts += "; sections by date, \(ignored) section field\(ignored == 1 ? "" : "s") ignored"
    }
    if dryRun {
        Terminal.print(
            "dry run, nothing written: feed \(cell(summary.feed)) would be at revision \(summary.revision): \(counts)")
    } else {
        Terminal.print("feed \(cell(summary.feed)) at revision \(summary.revision): \(counts)")
    }
}

/// `--section-by day|month|year|none`.
extension SectionBy: ExpressibleByArgument {}
