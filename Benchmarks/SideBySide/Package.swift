// swift-tools-version:6.1
import PackageDescription

/// The timing program of `Benchmarks/side-by-side.py`: Waterfall's bulk layout paths on a
/// ratios file, timed in process. Its own package, so that the root package's `swift build`
/// and `swift test` never build it, and building it compiles only `WaterfallLayout`:
///
///     swift build -c release --package-path Benchmarks/SideBySide
///
/// SwiftPM names a path dependency after its folder, so the root package's identity is the
/// name of the folder two levels up (`main`, `waterfall`, a CI clone's name…).
let rootPackage = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "waterfall")

let package = Package(
    name: "SideBySide",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "side-by-side",
            dependencies: [.product(name: "WaterfallLayout", package: rootPackage)],
            path: "Sources/SideBySide")
    ],
    swiftLanguageModes: [.v6]
)
