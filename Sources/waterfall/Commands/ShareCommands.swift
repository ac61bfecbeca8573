import ArgumentParser
import Foundation
import Waterfall

extension WaterfallCommand {
    /// `waterfall share add|list|remove` (DESIGN section 20).
    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "share",
            abstract: "Manage share links: paths that hand a feed or a view to anyone, read-only, without a key.",
            subcommands: [Add.self, List.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Make a share link and print its path, /s/TOKEN (shown this once).",
                discussion: """
                    `waterfall serve` answers the link's read routes under the path without a key: GET /s/TOKEN as \
                    the feed (or the view), /s/TOKEN/page, /viewport, /images, /sections, /changes, \
                    /layouts/NAME/…; nothing else of the catalog. With --layout, only that named layout.
                    """)

            @OptionGroup var database: DatabaseOptions
            @OptionGroup var feed: FeedOptions
            @Option(help: ArgumentHelp("Hand out this view of the feed only.", valueName: "name"))
            var view: String?
            @Option(help: ArgumentHelp("Allow this named layout only.", valueName: "name"))
            var layout: String?
            @Option(
                help: ArgumentHelp(
                    "When the link stops working: a duration (45s, 30m, 12h, 7d) or an ISO 8601 time. Without it, never.",
                    valueName: "when"))
            var expires: String?
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let now = Date()
                let expiry = try expires.map { text throws(WaterfallError) in try KeyExpiry.date(from: text, now: now) }
                let share = try await database.open().addShare(
                    feed: feed.feed, view: view, layout: layout, expires: expiry, now: now)
                if output.json { return Terminal.printJSON(share) }
                Terminal.print(share.path)
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List the share links (their tokens are never kept).")

            @OptionGroup var database: DatabaseOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let list = try await database.open().shares()
                if output.json { return Terminal.printJSON(list) }
                if list.shares.isEmpty { return Terminal.print("no share links; make one with `waterfall share add`") }
                var table = Table("ID", "FEED", "VIEW", "LAYOUT", "EXPIRES", "CREATED", rightAligned: [0])
                for share in list.shares {
                    table.add(
                        "\(share.id)", cell(share.feed), cell(share.view), cell(share.layout),
                        share.expires ?? "never", share.created)
                }
                Terminal.print(table.rendered)
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Remove a share link: its path answers 404 from then on.")

            @OptionGroup var database: DatabaseOptions
            @Argument(help: ArgumentHelp("The share's id, as `share list` shows it.", valueName: "id"))
            var id: Int64

            func run() async throws {
                try await database.open().removeShare(id: id)
                Terminal.print("removed share link \(id)")
            }
        }
    }
}
