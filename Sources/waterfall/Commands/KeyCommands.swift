import ArgumentParser
import Foundation
import Waterfall

extension WaterfallCommand {
    /// `waterfall key add|list|remove`.
    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key",
            abstract: "Manage the API keys `waterfall serve` asks for.",
            discussion: """
                A database without keys is served to anyone who can reach the server. Once a key exists, every \
                request needs one (Authorization: Bearer SECRET), reads excepted with `serve --public-read`. \
                Only a key's SHA-256 is stored: its secret is printed once, by `key add`. A key made with \
                --expires is refused from then on (401, saying it expired and when).
                """,
            subcommands: [Add.self, List.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add", abstract: "Create an API key and print its secret (shown this once).")

            @OptionGroup var database: DatabaseOptions
            @Argument(help: "The key's name (who holds it), 1 to 128 bytes.")
            var name: String
            @Option(
                name: .customLong("feed"),
                help: ArgumentHelp(
                    "A feed the key covers; repeat for more. Without one, every feed.", valueName: "name"))
            var feeds: [String] = []
            @Flag(help: "Let the key write (import, reorder, remove, save layouts), not only read.")
            var write = false
            @Option(
                help: ArgumentHelp(
                    "When the key stops working: a duration (45s, 30m, 12h, 90d) or an ISO 8601 time (2027-01-31T18:00:00Z). Without it, never.",
                    valueName: "when"))
            var expires: String?

            func run() async throws {
                let now = Date()
                let expiry = try expires.map { text throws(WaterfallError) in try KeyExpiry.date(from: text, now: now) }
                Terminal.print(
                    try await database.open().addKey(name: name, feeds: feeds, canWrite: write, expires: expiry))
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List the API keys (never their secrets).")

            @OptionGroup var database: DatabaseOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let list = try await database.open().keys()
                if output.json { return Terminal.printJSON(list) }
                if list.keys.isEmpty {
                    return Terminal.print("no API keys: `waterfall serve` answers anyone who reaches it")
                }
                let now = Date()
                var table = Table("KEY", "ACCESS", "FEEDS", "EXPIRES", "LAST USED")
                for key in list.keys {
                    let expires =
                        key.expires.map { KeyExpiry.format($0) + (key.isExpired(at: now) ? " (expired)" : "") }
                        ?? "never"
                    table.add(
                        cell(key.name), key.write ? "read, write" : "read",
                        key.feeds.isEmpty ? "(all)" : key.feeds.map { cell($0) }.joined(separator: ", "),
                        expires, key.lastUsed.map(KeyExpiry.format) ?? "never")
                }
                Terminal.print(table.rendered)
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Remove an API key: its holder is refused from then on.")

            @OptionGroup var database: DatabaseOptions
            @Argument(help: "The key's name.")
            var name: String

            func run() async throws {
                try await database.open().removeKey(named: name)
                Terminal.print("removed key \(cell(name))")
            }
        }
    }
}
