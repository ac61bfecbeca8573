import Foundation
import PackagePlugin

/// Compiles the files of a target's `Assets/` folder (the OpenAPI document, the web gallery's
/// page, styles and script) into the target as Swift string literals (`EmbeddedAssets.all`), so
/// that a `waterfall` binary copied anywhere serves them without a resource bundle.
@main
struct EmbedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = target.directoryURL.appending(path: "Assets")
        let files = try FileManager.default
            .contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) assets from \(target.name)/Assets",
                executable: try context.tool(named: "FileEmbedder").url,
                arguments: [output.path, "EmbeddedAssets"] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
