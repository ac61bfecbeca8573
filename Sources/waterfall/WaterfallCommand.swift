import ArgumentParser
import Waterfall

/// `waterfall`: the image feed service with persisted waterfall layouts.
struct WaterfallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waterfall",
        abstract: "An image feed service with persisted waterfall (masonry) layouts, on SQLite.",
        discussion: """
            Keeps an image catalog (ids, pixel sizes, order, sections) in SQLite, imports JSON feeds and \
            user reorders, and computes, caches and serves waterfall layouts per column configuration.

            Exit status: 0 success, 64 usage, 65 bad input data, 66 unreadable input file, \
            73 database cannot be created, 74 database cannot be opened or written, 1 other failure.
            """,
        version: "1.0.0",
        subcommands: [
            Demo.self, Import.self, Move.self, Reorder.self, Remove.self, Feeds.self, Images.self, Sections.self,
            Changes.self,
            Layout.self, View.self, Page.self, Viewport.self, Locate.self, CoverFlow.self, Render.self, Stats.self,
            Backup.self, Mirror.self,
            Feed.self, Key.self, Share.self, Serve.self,
            OpenAPI.self,
        ])

    @OptionGroup var database: DatabaseOptions
}
