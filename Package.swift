// swift-tools-version:6.1
import PackageDescription

/// Waterfall: an image feed service with persisted waterfall layouts.
///
/// Layers, top to bottom (arrows point down only):
/// `waterfall` (CLI) → `Waterfall` (service) → `WaterfallStore`, `WaterfallSync`, `WaterfallLayout`.
let package = Package(
    name: "Waterfall",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "waterfall", targets: ["waterfall"]),
        .library(name: "Waterfall", targets: ["Waterfall"]),
        .library(name: "WaterfallLayout", targets: ["WaterfallLayout"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        // Pure layout engine: configuration in, frames out. Imports nothing of ours, does no IO.
        .target(name: "WaterfallLayout"),
        // Decodes and validates feed and reorder files: bytes in, commands out. Pure.
        .target(name: "WaterfallSync"),
        // SQLite through GRDB: the only module that speaks SQL (besides Migrations/).
        .target(
            name: "WaterfallStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            plugins: ["EmbedMigrations"]),
        // The service: import, move, remove, page, viewport. Composes the three above.
        .target(name: "Waterfall", dependencies: ["WaterfallLayout", "WaterfallSync", "WaterfallStore"]),
        // Draws a page or a viewport as self-contained HTML or SVG (pure: answers in, text out).
        .target(name: "WaterfallRender", dependencies: ["Waterfall"]),
        // The thin command-line front end.
        .executableTarget(
            name: "waterfall",
            dependencies: [
                "Waterfall", "WaterfallRender",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [
                // Release builds on Linux start faster (issue 5 times whole processes): a
                // position-dependent executable, which the loader need not relocate (about 84,000
                // relocations with the Swift runtime linked in, 1 ms a run), exporting no symbols
                // (the static Swift runtime asks for -export-dynamic, and every symbol the shared
                // libraries bind then searches 8,000 more names). Benchmarks/compare.sh goes
                // further and links a fully static executable.
                .unsafeFlags(
                    ["-Xclang-linker", "-no-pie", "-Xlinker", "--no-export-dynamic"],
                    .when(platforms: [.linux], configuration: .release)),
            ]),

        // Build-time tool: turns Migrations/*.sql into Swift string literals compiled into the store.
        .executableTarget(name: "MigrationEmbedder"),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["MigrationEmbedder"]),

        .target(name: "WaterfallTestSupport", path: "Tests/WaterfallTestSupport"),
        .testTarget(name: "WaterfallLayoutTests", dependencies: ["WaterfallLayout", "WaterfallTestSupport"]),
        .testTarget(name: "WaterfallSyncTests", dependencies: ["WaterfallSync", "WaterfallTestSupport"]),
        .testTarget(name: "WaterfallStoreTests", dependencies: ["WaterfallStore", "WaterfallTestSupport"]),
        .testTarget(name: "WaterfallTests", dependencies: ["Waterfall", "WaterfallStore", "WaterfallSync", "WaterfallTestSupport"]),
        .testTarget(name: "WaterfallRenderTests", dependencies: ["WaterfallRender", "WaterfallTestSupport"]),
        .testTarget(name: "WaterfallCLITests", dependencies: ["waterfall", "WaterfallTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
