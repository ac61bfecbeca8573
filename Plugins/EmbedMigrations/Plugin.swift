import Foundation
import PackagePlugin

/// Compiles the numbered SQL files of the package's top-level `Migrations/` folder into the
/// target as Swift string literals (`EmbeddedMigrations.all`), so that a `waterfall` binary
/// copied anywhere can still migrate a new database without a resource bundle.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "Migrations")
        let files = try FileManager.default
            .contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations from Migrations/",
                executable: try context.tool(named: "FileEmbedder").url,
                arguments: [output.path, "EmbeddedMigrations"] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
