import ArgumentParser
import Foundation
import Waterfall

extension WaterfallCommand {
    /// `waterfall view add|list|remove` (DESIGN section 20).
    struct View: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "view",
            abstract: "Manage a feed's views: saved rules that choose some of its images, kept current.",
            discussion: """
                A view holds the feed's images that match its rule, in the feed's order and sections, and \
                answers every query a feed does: give --view NAME to images, sections, changes, page, viewport, \
                locate, coverflow, render and move.
                """,
            subcommands: [Add.self, List.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Save a view under a name (replacing one of that name), by flags or by its JSON rule.",
                discussion: """
                    The flags make the rule {"where": {"tags": {"all", "any", "none"}, "takenAt": {"from", "to"}, \
                    "sections", "aspect": {"min", "max"}}}; --rule gives it whole. Dates are YYYY-MM-DD or \
                    YYYY-MM-DDTHH:MM in the feed's time zone, or RFC 3339 with an offset; from is included, to is \
                    not. The aspect is width / height, both bounds included.
                    """)

            @OptionGroup var database: DatabaseOptions
            @Argument(help: ArgumentHelp("The view's name.", valueName: "name"))
            var name: String
            @OptionGroup var feed: FeedOptions
            @Option(help: ArgumentHelp("Images carrying this tag (repeat for all of several).", valueName: "tag"))
            var tag: [String] = []
            @Option(help: ArgumentHelp("Images carrying at least one of these tags (repeat).", valueName: "tag"))
            var anyTag: [String] = []
            @Option(help: ArgumentHelp("Images carrying none of these tags (repeat).", valueName: "tag"))
            var withoutTag: [String] = []
            @Option(help: ArgumentHelp("Images taken at or after this date.", valueName: "date"))
            var from: String?
            @Option(help: ArgumentHelp("Images taken before this date.", valueName: "date"))
            var to: String?
            @Option(help: ArgumentHelp("Images of this section (repeat for several).", valueName: "id"))
            var section: [String] = []
            @Flag(help: "Images of the unnamed section too (with --section), or alone.")
            var unnamedSection = false
            @Option(parsing: .unconditional, help: ArgumentHelp("The least width / height.", valueName: "ratio"))
            var minAspect: Double?
            @Option(parsing: .unconditional, help: ArgumentHelp("The greatest width / height.", valueName: "ratio"))
            var maxAspect: Double?
            @Option(help: ArgumentHelp("The whole rule as JSON, instead of the flags.", valueName: "json"))
            var rule: String?
            @OptionGroup var output: OutputOptions

            var hasFlags: Bool {
                !tag.isEmpty || !anyTag.isEmpty || !withoutTag.isEmpty || from != nil || to != nil || !section.isEmpty
                    || unnamedSection || minAspect != nil || maxAspect != nil
            }

            func validate() throws {
                if rule != nil && hasFlags { throw ValidationError("give --rule or the rule's flags, not both.") }
            }

            /// The rule's JSON: `--rule`, or what the flags say.
            func ruleJSON() throws -> [UInt8] {
                if let rule { return Array(rule.utf8) }
                var parts: [String: Any] = [:]
                var tags: [String: Any] = [:]
                if !tag.isEmpty { tags["all"] = tag }
                if !anyTag.isEmpty { tags["any"] = anyTag }
                if !withoutTag.isEmpty { tags["none"] = withoutTag }
                if !tags.isEmpty { parts["tags"] = tags }
                if from != nil || to != nil { parts["takenAt"] = ["from": from as Any, "to": to as Any] }
                if !section.isEmpty || unnamedSection {
                    parts["sections"] = section.map { $0 as Any } + (unnamedSection ? [NSNull()] : [])
                }
                if minAspect != nil || maxAspect != nil {
                    parts["aspect"] = ["min": minAspect as Any, "max": maxAspect as Any]
                }
                return Array(try JSONSerialization.data(withJSONObject: ["where": parts.mapValues(Self.nulled)]))
            }

            /// JSON's `null` for the absent values of optional flags.
            private static func nulled(_ value: Any) -> Any {
                if let object = value as? [String: Any] { return object.mapValues(nulled) }
                if case Optional<Any>.none = value { return NSNull() }
                return value
            }

            func run() async throws {
                let source = rule != nil ? "--rule" : "the view's flags"
                let parsed = try WaterfallService.viewRule(json: try ruleJSON(), source: source)
                let view = try await database.open().addView(feed: feed.feed, name: name, rule: parsed)
                if output.json { return Terminal.printJSON(view) }
                Terminal.print(
                    "saved view \(cell(name)): \(view.images) image\(view.images == 1 ? "" : "s") in \(view.sections) section\(view.sections == 1 ? "" : "s")"
                )
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List a feed's views with their rules and counts.")

            @OptionGroup var database: DatabaseOptions
            @OptionGroup var feed: FeedOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let list = try await database.open().views(feed: feed.feed)
                if output.json { return Terminal.printJSON(list) }
                if list.views.isEmpty {
                    return Terminal.print("feed \(cell(list.feed)) has no views; save one with `waterfall view add`")
                }
                var table = Table("NAME", "IMAGES", "SECTIONS", "RULE", rightAligned: [1, 2])
                for view in list.views {
                    table.add(cell(view.name), "\(view.images)", "\(view.sections)", view.rule.canonicalJSON)
                }
                Terminal.print(table.rendered)
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Remove a view (its feed's images stay).")

            @OptionGroup var database: DatabaseOptions
            @Argument(help: ArgumentHelp("The view's name.", valueName: "name"))
            var name: String
            @OptionGroup var feed: FeedOptions

            func run() async throws {
                try await database.open().removeView(feed: feed.feed, name: name)
                Terminal.print("removed view \(cell(name))")
            }
        }
    }
}
