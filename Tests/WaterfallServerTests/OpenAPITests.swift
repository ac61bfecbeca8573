import Foundation
import Testing
import Waterfall
import WaterfallServer
import WaterfallTestSupport

/// `openapi.json` and the route table describe the same API: every route is documented, every
/// documented operation is a route, under the same operation id.
@Suite struct OpenAPITests {
    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsARoute() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(WaterfallServer.openAPIDocument.utf8)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented: Set<String> = []
        for (path, item) in paths {
            for (method, operation) in item where ["get", "put", "post", "delete", "patch"].contains(method) {
                let id = (operation as? [String: Any])?["operationId"] as? String ?? "?"
                documented.insert("\(method.uppercased()) \(path) \(id)")
            }
        }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let server = try WaterfallServer(
            service: try WaterfallService.openForServing(path: folder.path("api.sqlite")), configuration: ServerConfiguration())
        let routes = Set(server.routeList.map { "\($0.method) \($0.pattern) \($0.operationID)" })
        #expect(routes.subtracting(documented).isEmpty, "routes missing from openapi.json")
        #expect(documented.subtracting(routes).isEmpty, "documented operations no route answers")
    }

    @Test func theDocumentInTheBinaryIsTheOneInTheRepository() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Sources/WaterfallServer/Assets/openapi.json")
        #expect(try String(contentsOf: file, encoding: .utf8) == WaterfallServer.openAPIDocument)
    }
}
