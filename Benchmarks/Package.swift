// swift-tools-version:6.1
import PackageDescription

/// Benchmarks for Waterfall, kept out of the main build (run from this directory):
///
///     swift package benchmark                       # all benchmarks
///     swift package benchmark --filter "bulk.*10M"  # a subset
/// SwiftPM names a path dependency after its folder, so the root package's identity is the
/// name of the folder holding this one (`main`, `waterfall`, a CI clone's name…).
let rootPackage = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "waterfall")

let package = Package(
    name: "WaterfallBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "LayoutBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "WaterfallLayout", package: rootPackage),
            ],
            path: "Benchmarks/LayoutBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ServiceBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Waterfall", package: rootPackage),
            ],
            path: "Benchmarks/ServiceBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Waterfall", package: rootPackage),
                .product(name: "WaterfallStore", package: rootPackage),
            ],
            path: "Benchmarks/StoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
