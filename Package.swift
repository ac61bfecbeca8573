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
        // The catalog's engines behind the service's door, for `Benchmarks/`' store benchmarks.
        .library(name: "WaterfallStore", targets: ["WaterfallStore"]),
        // The typed Swift client of the HTTP API (DESIGN section 13).
        .library(name: "WaterfallClient", targets: ["WaterfallClient"]),
        // A local catalog that follows a server, for apps offline and edges (DESIGN section 21).
        .library(name: "WaterfallMirror", targets: ["WaterfallMirror"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        // `waterfall serve`: the HTTP front end (HTTP/1.1 on SwiftNIO), with graceful shutdown.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        // Hummingbird's own networking: the thread pool the server runs SQLite calls on.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // SHA-256 of API key secrets: only the hash is stored.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // PostgreSQL as the scale-out store (`--db postgres://…`): the maintained Swift driver,
        // pure Swift on SwiftNIO, so the release binary stays fully static (libpq would not).
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // `GET /metrics` of `waterfall serve`: swift-metrics instruments, Prometheus' text format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // gzip of the server's JSON answers (DESIGN section 16): zlib through a ByteBuffer API,
        // the library Hummingbird's own compression middleware is built on. Kept answers keep
        // their compressed bytes, which a middleware compressing every response cannot.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // WaterfallClient (issue 26): Swift apps get a typed client generated at build time from
        // the API's one description (openapi.json) by swift-openapi-generator, so
        // the document and the client cannot drift; the runtime the generated code calls; and a
        // transport for each side: URLSession on Apple platforms, AsyncHTTPClient on servers.
        // Only WaterfallClient and its tests use them: the server and the CLI do not.
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", exact: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", exact: "1.5.0"),
        // WaterfallMirror (`waterfall mirror`): the server's lines streamed to a file as they come,
        // with connect and read timeouts; the HTTP client the typed client's transport is built on.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // Pure layout engine: configuration in, frames out. Imports nothing of ours, does no IO.
        .target(name: "WaterfallLayout"),
        // Decodes and validates feed and reorder files: bytes in, commands out. Pure.
        .target(name: "WaterfallSync"),
        // `sqlite3_db_config`, which Swift cannot call (it is variadic), for WaterfallStore.
        .target(name: "CSQLiteSwitches", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The catalog's storage engines, SQLite through GRDB and PostgreSQL through PostgresNIO,
        // behind one interface: the only module that speaks SQL (besides Migrations/).
        .target(
            name: "WaterfallStore",
            dependencies: [
                "CSQLiteSwitches",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            plugins: ["EmbedMigrations"]),
        // The service: import, move, remove, page, viewport. Composes the three above.
        .target(
            name: "Waterfall",
            dependencies: [
                "WaterfallLayout", "WaterfallSync", "WaterfallStore",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Draws a page or a viewport as self-contained HTML or SVG (pure: answers in, text out).
        .target(name: "WaterfallRender", dependencies: ["Waterfall"]),
        // The stable JSON formats of the answers, written once for every front end.
        .target(name: "WaterfallJSON", dependencies: ["Waterfall"]),
        // The HTTP front end (`waterfall serve`): routes, parameters, problem answers.
        .target(
            name: "WaterfallServer",
            dependencies: [
                "Waterfall", "WaterfallJSON",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            exclude: ["Assets"],
            plugins: ["EmbedAssets"]),
        // The typed client of the HTTP API: types and client generated at build time by
        // swift-openapi-generator (the GenerateClient plugin) from the server's own openapi.json
        // (a symlink to Sources/WaterfallServer/Assets/openapi.json), and a thin hand-written
        // layer (bearer key, problems as typed errors, entity tags and If-Match, events).
        .target(
            name: "WaterfallClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // URLSession for Apple platforms only: swift-openapi-urlsession 1.4.0 does build on
                // Linux (checked), but servers use AsyncHTTPClient and Linux builds skip it.
                .product(
                    name: "OpenAPIURLSession", package: "swift-openapi-urlsession",
                    condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            plugins: ["GenerateClient"]),
        // A mirror: the local catalog that follows a server (DESIGN section 21).
        .target(
            name: "WaterfallMirror",
            dependencies: [
                "Waterfall", "WaterfallSync",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The thin command-line front end.
        .executableTarget(
            name: "waterfall",
            dependencies: [
                "Waterfall", "WaterfallRender", "WaterfallJSON", "WaterfallServer", "WaterfallMirror",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
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
                    .when(platforms: [.linux], configuration: .release))
            ]),

        // Build-time tool: turns files (Migrations/*.sql, the server's Assets/) into Swift string
        // literals compiled into the binary.
        .executableTarget(name: "FileEmbedder"),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["FileEmbedder"]),
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["FileEmbedder"]),
        // Build-time tool and plugin: swift-openapi-generator's client of a target's openapi.json,
        // written with plain imports (its `public import`s warn on Swift 6.3; see the tool).
        .executableTarget(name: "GenerateClientSources"),
        .plugin(
            name: "GenerateClient", capability: .buildTool(),
            dependencies: [
                "GenerateClientSources",
                .product(name: "swift-openapi-generator", package: "swift-openapi-generator"),
            ]),

        .target(name: "WaterfallTestSupport", dependencies: ["WaterfallStore"], path: "Tests/WaterfallTestSupport"),
        .testTarget(name: "WaterfallLayoutTests", dependencies: ["WaterfallLayout", "WaterfallTestSupport"]),
        .testTarget(name: "WaterfallSyncTests", dependencies: ["WaterfallSync", "WaterfallTestSupport"]),
        .testTarget(
            name: "WaterfallStoreTests",
            dependencies: [
                "WaterfallStore", "WaterfallTestSupport",
                // SilenceableProxy: a connection to PostgreSQL that dies without a word.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .testTarget(
            name: "WaterfallTests",
            dependencies: [
                "Waterfall", "WaterfallStore", "WaterfallSync", "WaterfallTestSupport",
                // KeptFeedsTests traces the statements a command's SQLite connection runs.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "WaterfallRenderTests", dependencies: ["WaterfallRender", "WaterfallTestSupport"]),
        .testTarget(name: "WaterfallCLITests", dependencies: ["waterfall", "WaterfallTestSupport"]),
        .testTarget(name: "WaterfallJSONTests", dependencies: ["WaterfallJSON", "WaterfallTestSupport"]),
        .testTarget(
            name: "WaterfallServerTests",
            dependencies: [
                "WaterfallServer", "WaterfallTestSupport", "WaterfallMirror",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // ClientTests: the server through the generated client, over a real port.
                "WaterfallClient",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                // CompressionTests: gzip answers decode to the plain bytes.
                .product(name: "CompressNIO", package: "compress-nio"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
