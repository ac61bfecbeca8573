import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WaterfallLayout
import WaterfallServer

/// The gallery's files as the server serves them: the page loads `/gallery.js` as a native ES
/// module, which imports the others from `/gallery/{module}`; every module it imports is served
/// and every module served is imported; each opens with one comment line and stays under 600
/// lines; `field-defaults.js` is written from the field tables; an unknown module is a 404.
@Suite struct GalleryRouteTests {
    @Test func thePageLoadsTheEntryAsAModule() async throws {
        try await TestServer().test { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains(#"<script type="module" src="/gallery.js"></script>"#))
                // Modules from the server itself are allowed; inline handlers are not.
                #expect(
                    response.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("script-src 'self'") == true)
                #expect(!response.text.contains(" onclick="))
            }
        }
    }

    @Test func everyImportedModuleIsServedAndEveryServedModuleImported() async throws {
        try await TestServer().test { client in
            let entry = try await Self.script(client, "/gallery.js")
            #expect(!entry.contains("FIELD_DEFAULTS = "), "the entry no longer starts with the field defaults")
            // The entry imports `./gallery/NAME.js`; the modules import each other as `./NAME.js`.
            var queue = Self.imports(of: entry, prefix: "./gallery/")
            var served: [String: String] = [:]
            while let name = queue.popLast() {
                guard served[name] == nil else { continue }
                let text = try await Self.script(client, "/gallery/\(name)")
                served[name] = text
                queue += Self.imports(of: text, prefix: "./")
            }
            #expect(served.count > 10, "the entry imports \(served.keys.sorted())")
            #expect(served["field-defaults.js"] != nil)
            for (name, text) in served.merging(["gallery.js": entry], uniquingKeysWith: { $1 }) {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.count <= 600, "\(name) has \(lines.count) lines")
                #expect(lines.first?.hasPrefix("// ") == true, "\(name) does not open with a comment line")
                #expect(lines.count > 1 && !lines[1].hasPrefix("//"), "\(name) opens with more than one comment line")
            }
            // Nothing is served that nothing imports: a module list is not kept anywhere else.
            for name in Self.moduleFiles where served[name] == nil {
                Issue.record("Assets/gallery/\(name) is imported by no module")
            }
        }
    }

    @Test func theFieldDefaultsComeFromTheFieldTables() async throws {
        try await TestServer().test { client in
            let text = try await Self.script(client, "/gallery/field-defaults.js")
            let prefix = "export const FIELD_DEFAULTS = "
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(prefix) })
            let json = Data(line.dropFirst(prefix.count).dropLast().utf8)
            let served = try JSONDecoder().decode([String: ConfigurationValue].self, from: json)
            var expected: [String: ConfigurationValue] = [:]
            for parameter in LayoutParameter.all {
                if let value = parameter.defaultValue { expected[parameter.key] = value }
            }
            #expect(!expected.isEmpty && served == expected)
        }
    }

    @Test func anUnknownModuleIsNotFound() async throws {
        try await TestServer().test { client in
            try await client.execute(uri: "/gallery/nothing.js", method: .get) {
                $0.expectProblem(.notFound, "no module \"nothing.js\"")
            }
            try await client.execute(uri: "/gallery/gallery.css", method: .get) { $0.expectProblem(.notFound) }
            try await client.execute(uri: "/gallery/scroll.js?x=1", method: .get) {
                $0.expectProblem(.badRequest, "unknown query parameter \"x\"")
            }
        }
    }

    /// The text of the script at `path`, checked to be served as the gallery's files are.
    static func script(_ client: any TestClientProtocol, _ path: String) async throws -> String {
        try await client.execute(uri: path, method: .get) { response in
            #expect(response.status == .ok, "\(path): \(response.status)")
            #expect(response.headers[.contentType] == "text/javascript; charset=utf-8", "\(path)")
            #expect(response.headers[.cacheControl] == "no-cache", "\(path)")
            return response.text
        }
    }

    /// The module names `text` imports from `prefix` (`import … from './NAME.js';`).
    static func imports(of text: String, prefix: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            guard let from = line.range(of: " from '\(prefix)"), line.hasSuffix("';")
            else { return nil }
            return String(line[from.upperBound...].dropLast(2))
        }
    }

    /// The files of `Sources/WaterfallServer/Assets/gallery/`.
    static let moduleFiles: [String] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Sources/WaterfallServer/Assets/gallery")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0.hasSuffix(".js")
        }
    }()
}
