import ArgumentParser
import Waterfall

extension WaterfallCommand {
    /// `waterfall feeds`.
    struct Feeds: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "feeds", abstract: "List the feeds with their image, section and layout counts and revisions.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let list = try await database.open().feeds()
            if output.json { return Terminal.printJSON(list) }
            if list.feeds.isEmpty { return Terminal.print("no feeds yet; import one with `waterfall import FILE`") }
            var table = Table("FEED", "IMAGES", "SECTIONS", "LAYOUTS", "REVISION", rightAligned: [1, 2, 3, 4])
            for feed in list.feeds {
                table.add(cell(feed.name), "\(feed.images)", "\(feed.sections)", "\(feed.layouts)", "\(feed.revision)")
            }
            Terminal.print(table.rendered)
        }
    }

    /// `waterfall images`.
    struct Images: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "images", abstract: "List a feed's images in catalog order.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var view: ViewOptions
        @Option(parsing: .unconditional, help: "Index of the first image to list (default 0).")
        var offset: Int?
        @Option(
            help: ArgumentHelp(
                "Go on from a listing's nextCursor, as of its revision, instead of an offset.", valueName: "token"))
        var cursor: String?
        @Option(parsing: .unconditional, help: "How many images to list, at most 100000.")
        var limit = 50
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "List only the images carrying this tag (compared exactly); indexes and the total count those.",
                valueName: "tag"))
        var tag: String?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if cursor != nil && offset != nil {
                throw ValidationError("--cursor and --offset cannot be given together.")
            }
        }

        func run() async throws {
            let service = try database.open().inView(view.view)
            let list =
                if let cursor {
                    try await service.images(feed: feed.feed, cursor: cursor, limit: limit, tag: tag)
                } else {
                    try await service.images(feed: feed.feed, offset: offset ?? 0, limit: limit, tag: tag)
                }
            if output.json { return Terminal.printJSON(list) }
            // A TAGS column when the slice has a tagged image; the table is as it always was otherwise.
            let showsTags = list.images.contains { !$0.tags.isEmpty }
            var table = Table(
                ["INDEX", "ID", "SECTION", "WIDTH", "HEIGHT", "TITLE"] + (showsTags ? ["TAGS"] : []),
                rightAligned: [0, 3, 4])
            for image in list.images {
                let tags = image.tags.isEmpty ? nil : image.tags.joined(separator: ", ")
                table.add(
                    [
                        "\(image.index)", cell(image.id), cell(image.section), "\(image.width)", "\(image.height)",
                        cell(image.title),
                    ] + (showsTags ? [cell(tags)] : []))
            }
            Terminal.print(table.rendered)
            let first = list.images.first?.index ?? 0
            let shown = list.images.isEmpty ? "none" : "\(first)…\(first + list.images.count - 1)"
            let next = list.nextCursor.map { "; next: --cursor \($0)" } ?? ""
            Terminal.print(
                "feed \(cell(list.feed)), revision \(list.revision): images \(shown) of \(list.totalItems)\(next)")
        }
    }

    /// `waterfall sections [--layout NAME | configuration flags]`.
    struct Sections: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sections",
            abstract:
                "List a feed's sections in order, with their titles and image counts; with a layout, its section index.",
            discussion: """
                With --layout NAME (or configuration flags) it prints the layout's section index: every section \
                with the catalog index of its first image, its image count, and where it begins (y) and how \
                tall it is in the layout, header and footer included: what a timeline scrubber needs.
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var view: ViewOptions
        @Option(
            help: ArgumentHelp("Print the section index of this layout saved with `layout add`.", valueName: "name"))
        var layout: String?
        @OptionGroup(title: "Layout configuration (for the section index of an inline layout)")
        var layoutConfiguration: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        /// The layout flags' values.
        var layoutFlags: LayoutFlags {
            LayoutFlags(layout: layout, configuration: layoutConfiguration.flags)
        }

        /// Whether a layout is given: then the command prints its section index.
        var hasLayout: Bool { layout != nil || layoutConfiguration.flags.isGiven }

        func validate() throws {
            if hasLayout { _ = try layoutFlags.source() }
        }

        func run() async throws {
            let service = try database.open().inView(view.view)
            if hasLayout {
                let index = try await service.sectionIndex(feed: feed.feed, layout: try layoutFlags.source())
                if output.json { return Terminal.printJSON(index) }
                return printSectionIndex(index)
            }
            let list = try await service.sections(feed: feed.feed)
            if output.json { return Terminal.printJSON(list) }
            var table = Table("SECTION", "TITLE", "IMAGES", rightAligned: [2])
            for section in list.sections {
                table.add(cell(section.id), cell(section.title), "\(section.images)")
            }
            Terminal.print(table.rendered)
            Terminal.print("feed \(cell(list.feed)), revision \(list.revision): \(list.sections.count) sections")
        }
    }

    /// `waterfall changes --since R`.
    struct Changes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "changes", abstract: "List what changed in a feed since a revision.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var feed: FeedOptions
        @OptionGroup var view: ViewOptions
        @Option(parsing: .unconditional, help: "List the changes after this revision.")
        var since: Int64
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "List whole revisions of at most this many changes (a larger first revision whole), and the revision to go on from.",
                valueName: "count"))
        var limit: Int?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if since < 0 { throw ValidationError("--since must be a revision of 0 or more, got \(since).") }
            if let limit, limit < 1 || limit > WaterfallService.maximumLimit {
                throw ValidationError("--limit must be between 1 and \(WaterfallService.maximumLimit), got \(limit).")
            }
        }

        func run() async throws {
            let list = try await database.open().inView(view.view).changes(feed: feed.feed, since: since, limit: limit)
            if output.json { return Terminal.printJSON(list) }
            var table = Table("REVISION", "KIND", "ID", "SECTION", rightAligned: [0])
            for change in list.changes {
                table.add("\(change.revision)", change.kind, cell(change.id), cell(change.section))
            }
            Terminal.print(table.rendered)
            if let (revision, counts) = list.truncated {
                Terminal.print(
                    "revision \(revision) made \(counts.values.reduce(0, +)) changes, more than a page holds: \(counts[.insert, default: 0]) inserted, \(counts[.update, default: 0]) updated, \(counts[.move, default: 0]) moved, \(counts[.remove, default: 0]) removed; list the feed again"
                )
            }
            Terminal.print(
                "feed \(cell(list.feed)) is at revision \(list.revision); \(list.changes.count) change\(list.changes.count == 1 ? "" : "s") since revision \(since)"
                    + (list.nextSince.map { "; more with --since \($0)" } ?? ""))
        }
    }

    /// `waterfall stats`.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats", abstract: "Show counts, revisions, layout cache coverage and the database's size.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let stats = try await database.open().stats()
            if output.json { return Terminal.printJSON(stats) }
            Terminal.print("database \(cell(stats.path, limit: 200)): \(stats.databaseBytes / 1024) KiB")
            var feeds = Table("FEED", "IMAGES", "SECTIONS", "LAYOUTS", "REVISION", rightAligned: [1, 2, 3, 4])
            for feed in stats.feeds {
                feeds.add(cell(feed.name), "\(feed.images)", "\(feed.sections)", "\(feed.layouts)", "\(feed.revision)")
            }
            Terminal.print(feeds.rendered)
            var caches = Table("FEED", "LAYOUT", "KIND", "SHAPE", "CHECKPOINTS", "CACHED", rightAligned: [4, 5])
            for layout in stats.layouts {
                // A justified layout's checkpoints wait for row starts: their number is not
                // known ahead, so its coverage is whether the end is current.
                let cached =
                    switch layout.expectedCheckpoints {
                    case nil, 0?: layout.complete ? "100%" : "0%"
                    case let expected?:
                        "\(min(100, layout.checkpoints * 100 / expected))%" + (layout.complete ? "" : " (end stale)")
                    }
                caches.add(
                    cell(layout.feed),
                    layout.layouts.isEmpty ? "(inline)" : layout.layouts.map { cell($0) }.joined(separator: ","),
                    layout.kind,
                    layout.configuration?.shape ?? (layout.kind == "coverflow" ? "cover flow queries" : "?"),
                    layout.expectedCheckpoints.map { "\(layout.checkpoints)/\($0)" } ?? "\(layout.checkpoints)", cached)
            }
            Terminal.print(caches.rendered)
        }
    }
}

/// Prints a section index as a table: one row per section (the unnamed section's id and title
/// as "—", as every table shows it), then a line about the whole.
func printSectionIndex(_ index: SectionIndex) {
    var table = Table("SECTION", "TITLE", "INDEX", "IMAGES", "Y", "HEIGHT", rightAligned: [2, 3, 4, 5])
    for section in index.sections {
        table.add(
            cell(section.section), cell(section.title),
            "\(section.index)", "\(section.count)", points(section.y), points(section.height))
    }
    Terminal.print(table.rendered)
    let count = index.sections.count
    Terminal.print(
        "feed \(cell(index.feed)), revision \(index.revision), layout \(cell(index.layout ?? "(inline)")): \(count) section\(count == 1 ? "" : "s"), \(index.totalItems) images, content height \(points(index.contentHeight))"
    )
}
