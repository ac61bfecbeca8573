import ArgumentParser
import Foundation
import Waterfall
import WaterfallRender

extension WaterfallCommand {
    /// `waterfall demo`: the README's first command.
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Import the sample feeds, define a phone layout and print its first page.",
            discussion: """
                Imports SampleData/coco-val2017.json (5,000 real COCO photos with their capture dates, in twelve sections by capture day) and \
                SampleData/travel.json into the database, saves the layout "phone" (2 columns, 375 points \
                wide, 44-point section headers) for the COCO feed, prints page 0 and writes it as \
                demo.html (or --html PATH). Running it again changes nothing. The sample feeds are looked for in \
                --samples, ./SampleData, PREFIX/share/waterfall/SampleData beside an installed executable \
                (PREFIX/bin/waterfall, from `make install`), then in the package a `swift build` product is in.
                """)

        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("The folder holding the sample feeds.", valueName: "dir"))
        var samples: String?
        @Option(parsing: .unconditional, help: "Images on the printed page.")
        var pageSize = 12
        @Option(help: ArgumentHelp("Where to write the first page as HTML.", valueName: "path"))
        var html = "demo.html"
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if pageSize < 1 || pageSize > 1000 {
                throw ValidationError("--page-size must be between 1 and 1000, got \(pageSize).")
            }
        }

        func run() async throws {
            let folder = try sampleFolder()
            let service = try database.open()
            for file in ["coco-val2017.json", "travel.json"] {
                let summary = try await service.importFeed(contentsOf: folder + "/" + file, options: .init())
                if !output.json { printSummary(summary, json: false) }
            }
            let phone = AnyLayoutConfiguration.waterfall(LayoutConfiguration(columns: 2, width: 375, headerHeight: 44))
            try await service.addLayout(feed: "coco-val2017", name: "phone", configuration: phone)
            // Justified rows too, for the gallery's kind switch and `page --layout rows`.
            let rows = AnyLayoutConfiguration.justified(
                JustifiedConfiguration(width: 1024, rowHeight: 180, headerHeight: 44))
            try await service.addLayout(feed: "coco-val2017", name: "rows", configuration: rows)
            let page = try await service.page(feed: "coco-val2017", layout: .named("phone"), offset: 0, limit: pageSize)
            let written = try writeAtomically(PageRenderer().render(page, format: .html), to: html)
            if output.json { return Terminal.printJSON(page) }
            Terminal.print("")
            printFrames(items: page.items, headers: page.headers, footers: page.footers)
            Terminal.print(
                "feed coco-val2017, layout phone (2 columns, 375 points): \(page.items.count) of \(page.totalItems) images, content height \(points(page.contentHeight)); database \(service.database.location ?? database.resolvedPath)"
            )
            Terminal.print("wrote the page as HTML to \(written): open it in a browser")
            Terminal.print("next: waterfall page --layout phone --feed coco-val2017 --page 1 --page-size \(pageSize)")
        }

        private func sampleFolder() throws -> String {
            var candidates: [String] = []
            if let samples { candidates.append(samples) }
            candidates.append(FileManager.default.currentDirectoryPath + "/SampleData")
            if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
                // Installed by `make install`: PREFIX/bin/waterfall and PREFIX/share/waterfall/SampleData.
                let prefix = URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
                candidates.append(prefix.appending(path: "share/waterfall/SampleData").path)
                // Beside the package of a `swift build` product: <package>/.build/<config>/waterfall.
                var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
                for _ in 0..<5 {
                    candidates.append(url.appending(path: "SampleData").path)
                    url = url.deletingLastPathComponent()
                }
            }
            for candidate in candidates where FileManager.default.fileExists(atPath: candidate + "/coco-val2017.json") {
                return candidate
            }
            throw WaterfallError.fileUnreadable(
                "cannot find the sample feeds (coco-val2017.json) in \(candidates.prefix(3).joined(separator: ", ")) or the package folders above the executable; install with `make install` or give --samples DIR."
            )
        }
    }
}
