import ArgumentParser
import Foundation
import WaterfallServer

extension WaterfallCommand {
    /// `waterfall openapi`: the HTTP API's OpenAPI document, as the server produces it.
    struct OpenAPI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "openapi",
            abstract: "Print the OpenAPI document of the HTTP API, produced from its route table.",
            discussion: """
                The document is the hand-written skeleton (Sources/WaterfallServer/Assets/openapi-skeleton.json) \
                with the paths of every route the server answers. `waterfall serve` answers GET /openapi.json \
                with the checked-in copy, Sources/WaterfallServer/Assets/openapi.json; after a change to the \
                routes or the skeleton, write it again from the repository's root with
                  swift run waterfall openapi --output Sources/WaterfallServer/Assets/openapi.json
                """)

        @Option(help: "Write the document to this file instead of standard output.")
        var output: String?

        func run() async throws {
            let document = APIDocument.produce()
            guard let output else { return Terminal.print(document, terminator: "") }
            do {
                try Data(document.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                Terminal.fail("cannot write \(output): \((error as NSError).localizedDescription)", status: 1)
            }
        }
    }
}
