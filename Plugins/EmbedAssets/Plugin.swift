import Foundation
import PackagePlugin

/// Compiles the files of a target's `Assets/` folder and its subfolders (the OpenAPI document,
/// the web gallery's page, styles and modules) into the target as Swift string literals
/// (`EmbeddedAssets.all`, each named by its path under `Assets/`: `gallery.js`,
/// `gallery/scroll.js`), so that a `waterfall` binary copied anywhere serves them without a
/// resource bundle.
@main
struct EmbedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = target.directoryURL.appending(path: "Assets")
        let files = try Self.files(under: folder)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) assets from \(target.name)/Assets",
                executable: try context.tool(named: "FileEmbedder").url,
                arguments: [output.path, "EmbeddedAssets", "--relative-to", folder.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }

    /// Every file under `folder`, hidden ones left out, in the order of their paths under it.
    static func files(under folder: URL) throws -> [URL] {
        try paths(under: folder, prefix: "").sorted { $0.path < $1.path }.map(\.url)
    }

    /// Every file under `folder`, with its path under the top folder (`prefix` and its name).
    private static func paths(under folder: URL, prefix: String) throws -> [(path: String, url: URL)] {
        var files: [(path: String, url: URL)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix(".") {
            let url = folder.appending(path: name)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                files += try paths(under: url, prefix: prefix + name + "/")
            } else {
                files.append((prefix + name, url))
            }
        }
        return files
    }
}
