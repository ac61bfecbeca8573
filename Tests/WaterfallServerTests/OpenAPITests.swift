import Foundation
import Testing

@testable import WaterfallServer

/// `openapi.json` is produced from the skeleton and the route table (``APIDocument``), checked
/// in, and served as checked in; the routes' declarations name components the skeleton has.
@Suite struct OpenAPITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let checkedIn = repository.appending(path: "Sources/WaterfallServer/Assets/openapi.json")

    @Test func theCheckedInDocumentIsTheProducedOne() throws {
        let file = try String(contentsOf: Self.checkedIn, encoding: .utf8)
        #expect(
            file == APIDocument.produce(),
            "Sources/WaterfallServer/Assets/openapi.json is not what the routes and the skeleton produce; write it again with `\(APIDocument.regenerateCommand)`."
        )
    }

    @Test func theDocumentInTheBinaryIsTheOneInTheRepository() throws {
        #expect(try String(contentsOf: Self.checkedIn, encoding: .utf8) == WaterfallServer.openAPIDocument)
    }

    @Test func everyReferenceResolves() throws {
        let document = try Self.produced()
        var references: Set<String> = []
        Self.collectReferences(in: document, into: &references)
        #expect(!references.isEmpty)
        for reference in references.sorted() {
            #expect(reference.hasPrefix("#/"), "\(reference) is not a reference into the document")
            var value: Any? = document
            for part in reference.dropFirst(2).split(separator: "/") {
                let key = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                value = (value as? [String: Any])?[key]
            }
            #expect(value != nil, "\(reference) names nothing in the document")
        }
    }

    @Test func everyParameterARouteDeclaresIsTheComponentItNames() throws {
        let parameters = try #require(
            Self.components(of: try Self.produced())["parameters"] as? [String: [String: Any]])
        for route in APIRoutes.all {
            for parameter in route.doc.parameters {
                let component = parameters[parameter.component]
                #expect(
                    component != nil,
                    "\(route.operationID) takes \(parameter.component), which components.parameters lacks")
                #expect(
                    component?["in"] as? String == parameter.location.rawValue,
                    "\(route.operationID) takes \(parameter.component) in its \(parameter.location), the component says in \(component?["in"] ?? "?")"
                )
            }
            let segments = Set(
                route.segments.compactMap { segment -> String? in
                    if case .parameter(let name) = segment { name } else { nil }
                })
            let declared = Set(
                route.doc.parameters.filter { $0.location == .path }.compactMap {
                    parameters[$0.component]?["name"] as? String
                })
            #expect(
                declared == segments,
                "\(route.operationID): the path parameters declared are not those of \(route.pattern)")
        }
    }

    @Test func everyParameterComponentIsTakenBySomeRoute() throws {
        let parameters = try #require(Self.components(of: try Self.produced())["parameters"] as? [String: Any])
        let taken = Set(APIRoutes.all.flatMap { $0.doc.parameters.map(\.component) })
        #expect(Set(parameters.keys).subtracting(taken).isEmpty, "parameter components no route takes")
    }

    @Test func everyRouteHasItsOwnOperationIDKnownTagsAndASuccessAnswer() throws {
        let tags = try #require(try Self.produced()["tags"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        let routes = APIRoutes.all
        #expect(Set(routes.map(\.operationID)).count == routes.count, "two routes share an operationId")
        #expect(
            Set(routes.map { "\($0.method.rawValue) \($0.pattern)" }).count == routes.count,
            "two routes share a method and a path")
        for route in routes {
            #expect(
                !route.doc.tags.isEmpty && route.doc.tags.allSatisfy(tags.contains),
                "\(route.operationID) has a tag the skeleton lacks")
            #expect(!route.doc.responses.isEmpty, "\(route.operationID) declares no success answer")
        }
    }

    @Test func everyOperationOfTheDocumentIsARoute() throws {
        let paths = try #require(try Self.produced()["paths"] as? [String: [String: Any]])
        var documented: Set<String> = []
        for (path, item) in paths {
            for (method, operation) in item where method != "parameters" {
                documented.insert(
                    "\(method.uppercased()) \(path) \((operation as? [String: Any])?["operationId"] as? String ?? "?")")
            }
        }
        #expect(documented == Set(APIRoutes.all.map { "\($0.method.rawValue) \($0.pattern) \($0.operationID)" }))
    }

    private static func produced() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(APIDocument.produce().utf8)) as? [String: Any])
    }

    private static func components(of document: [String: Any]) -> [String: Any] {
        document["components"] as? [String: Any] ?? [:]
    }

    private static func collectReferences(in value: Any, into references: inout Set<String>) {
        if let object = value as? [String: Any] {
            if let reference = object["$ref"] as? String { references.insert(reference) }
            for member in object.values { collectReferences(in: member, into: &references) }
        } else if let array = value as? [Any] {
            for element in array { collectReferences(in: element, into: &references) }
        }
    }
}
