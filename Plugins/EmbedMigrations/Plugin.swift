import Foundation
import PackagePlugin

/// Compiles the numbered SQL files of the package's top-level `Migrations/` folder into the
/// target as Swift string literals, one series per storage engine: `Migrations/sqlite/` becomes
/// `EmbeddedSQLiteMigrations.all` and `Migrations/postgres/` `EmbeddedPostgresMigrations.all`,
/// so that a `waterfall` binary copied anywhere can still migrate a new database without a
/// resource bundle.
///
/// SwiftPM lists the folder when it plans a build, and plans again only when a manifest
/// changes: a new migration file reaches an incremental build (a scratch folder such as
/// `.build-release`) once `Package.swift` is touched. An edited file is seen at once.
@main
struct EmbedMigrations: BuildToolPlugin {
    /// Each engine's folder under `Migrations/` and the type its files become.
    static let series = [("sqlite", "EmbeddedSQLiteMigrations"), ("postgres", "EmbeddedPostgresMigrations")]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        try Self.series.map { folderName, type in
            let folder = context.package.directoryURL.appending(path: "Migrations").appending(path: folderName)
            let files = try FileManager.default
                .contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "sql" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
            let output = context.pluginWorkDirectoryURL.appending(path: "\(type).swift")
            return .buildCommand(
                displayName: "Embedding \(files.count) migrations from Migrations/\(folderName)/",
                executable: try context.tool(named: "FileEmbedder").url,
                arguments: [output.path, type] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        }
    }
}
