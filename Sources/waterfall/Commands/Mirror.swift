import ArgumentParser
import Foundation
import Waterfall
import WaterfallMirror

extension WaterfallCommand {
    /// `waterfall mirror --from URL [--key KEY] [--feed F ...] [--db PATH] [--follow]`.
    struct Mirror: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mirror",
            abstract: "Make or bring up to date a local catalog that follows a Waterfall server.",
            discussion: """
                The first run lists each feed whole (its images with every field, sections, date settings, named \
                layouts and views); later runs apply what changed since the mirror's revision, one transaction a \
                feed, and list a feed again when the server's change log no longer reaches that far or the feed \
                was made anew. Every command, and `waterfall serve --db MIRROR`, then answers as the server did \
                at the mirror's revision; writes to the mirror are refused (exit 73). A mirror killed at any \
                moment keeps each feed at a revision it had, and the next run ends equal to the server. A server \
                that goes away mid-run leaves the feeds synced so far synced, with exit 74. --follow keeps \
                following each feed's event stream until interrupted.
                """)

        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("The server to follow: http://HOST[:PORT] (or https://).", valueName: "url"))
        var from: String
        @Option(help: ArgumentHelp("The API key to read the server with, when it asks for one.", valueName: "key"))
        var key: String?
        @Option(
            name: .customLong("feed"),
            help: ArgumentHelp(
                "A feed to follow (repeat for more); default: every feed the key may read, removing the ones the server no longer has.",
                valueName: "name"))
        var feeds: [String] = []
        @Flag(help: "After bringing the mirror up to date, keep following the server until interrupted.")
        var follow = false
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let mirror = try await WaterfallMirror(
                source: from, key: key ?? getenvString("WATERFALL_KEY"), path: database.resolvedPath, feeds: feeds)
            do {
                let progress = Terminal.standardErrorIsTerminal ? Self.progressLine : nil
                let reports = try await mirror.sync(progress: progress)
                if progress != nil { Terminal.error("\r\u{1B}[K") }
                if output.json {
                    Terminal.printJSON(MirrorSummary(source: mirror.source, feeds: reports))
                } else {
                    let feeds =
                        reports.isEmpty
                        ? "no feeds"
                        : reports.map { "feed \(cell($0.feed)) \(Self.describe($0))" }.joined(separator: ", ")
                    Terminal.print("mirror of \(cell(mirror.source, limit: 200)): \(feeds)")
                }
                if follow { try await mirror.follow() }
            } catch {
                try? await mirror.close()
                throw error
            }
            try await mirror.close()
        }

        private static let progressLine: @Sendable (String, Int, Int) -> Void = { feed, lines, total in
            Terminal.error("\r\u{1B}[Klisting \(cell(feed)): \(lines) of \(total) images")
        }

        static func describe(_ report: WaterfallMirror.FeedReport) -> String {
            switch report.outcome {
            case .listed: "listed at revision \(report.revision) (\(report.images) images)"
            case .caughtUp: "caught up to revision \(report.revision) (\(report.images) images)"
            case .current: "at revision \(report.revision) already"
            case .removed: "removed: the server no longer has it"
            }
        }
    }

    /// `mirror --json`.
    struct MirrorSummary: Encodable {
        var source: String
        var feeds: [WaterfallMirror.FeedReport]
    }
}

private func getenvString(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
}
