import Foundation
import PackagePlugin

/// Generates a target's typed client from its `openapi.json` and `openapi-generator-config.yaml`
/// with swift-openapi-generator, at build time, as the generator's own `OpenAPIGenerator` plugin
/// does; the tool `GenerateClientSources` runs the generator and then writes its files with plain
/// imports (see there why: the generator's `public import`s warn on Swift 6.3).
@main
struct GenerateClient: BuildToolPlugin {
    /// The files swift-openapi-generator 1.14.3 writes for `generate: [types, client]`.
    static let files = [
        "Types.swift", "Types+Components.swift", "Types+Operations.swift", "Types+Components+Schemas.swift",
        "Types+Components+Parameters.swift", "Types+Components+RequestBodies.swift",
        "Types+Components+Responses.swift", "Types+Components+Headers.swift", "Client.swift",
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = target.directoryURL
        let document = folder.appending(path: "openapi.json")
        let configuration = folder.appending(path: "openapi-generator-config.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedSources")
        return [
            .buildCommand(
                displayName: "Generating the \(target.name) client from openapi.json (swift-openapi-generator)",
                executable: try context.tool(named: "GenerateClientSources").url,
                arguments: [
                    try context.tool(named: "swift-openapi-generator").url.path, document.path, configuration.path,
                    output.path,
                ] + Self.files,
                inputFiles: [document, configuration],
                outputFiles: Self.files.map { output.appending(path: $0) })
        ]
    }
}
