extension APIDocument {
    /// `paths`: one item per route pattern, in the order the route table first names it, with
    /// its path parameters once and an operation per method.
    static func paths(of routes: [Route]) -> JSONValue {
        var patterns: [String] = []
        var routesByPattern: [String: [Route]] = [:]
        for route in routes {
            if routesByPattern[route.pattern] == nil { patterns.append(route.pattern) }
            routesByPattern[route.pattern, default: []].append(route)
        }
        return .object(patterns.map { pattern in (pattern, pathItem(routesByPattern[pattern] ?? [])) })
    }

    /// The item of one pattern. Its routes must declare the same path parameters.
    private static func pathItem(_ routes: [Route]) -> JSONValue {
        let pathParameters = routes[0].doc.parameters.filter { $0.location == .path }
        var item: [(key: String, value: JSONValue)] = []
        if !pathParameters.isEmpty { item.append(("parameters", references(pathParameters))) }
        for route in routes {
            precondition(
                route.doc.parameters.filter { $0.location == .path } == pathParameters,
                "\(route.operationID) declares other path parameters than \(routes[0].operationID) of the same path")
            item.append((route.method.rawValue.lowercased(), operation(route)))
        }
        return .object(item)
    }

    /// The operation of one route. An open route that never asks for a key (it has no 401)
    /// says that no security applies.
    private static func operation(_ route: Route) -> JSONValue {
        let doc = route.doc
        var operation: [(key: String, value: JSONValue)] = [
            ("operationId", .string(route.operationID)),
            ("summary", .string(doc.summary)),
        ]
        if let description = doc.description { operation.append(("description", .string(description))) }
        operation.append(("tags", .array(doc.tags.map { .string($0) })))
        if route.access == .open && !doc.problems.statuses.contains(.unauthorized) {
            operation.append(("security", .array([])))
        }
        let pin: ParameterRef = .query("Revision")
        let parameters =
            doc.parameters.filter { $0.location != .path }
            + (route.pinsRevision && !doc.parameters.contains(pin) ? [pin] : [])
        if !parameters.isEmpty { operation.append(("parameters", references(parameters))) }
        if let body = doc.body { operation.append(("requestBody", requestBody(body))) }
        operation.append(("responses", responses(route.pinsRevision ? doc.pinnable : doc)))
        return .object(operation)
    }

    private static func references(_ parameters: [ParameterRef]) -> JSONValue {
        .array(parameters.map { .ref("#/components/parameters/\($0.component)") })
    }

    private static func requestBody(_ body: RequestBodyDoc) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("required", .bool(true))]
        if let description = body.description { members.append(("description", .string(description))) }
        members.append(("content", content(body.content)))
        return .object(members)
    }

    /// The success answers and the shared ones, by status.
    private static func responses(_ doc: OperationDoc) -> JSONValue {
        var answers: [(status: Int, value: JSONValue)] = doc.responses.map { ($0.status, response($0)) }
        answers += doc.problems.sorted.map { ($0.rawValue, .ref("#/components/responses/\($0.component)")) }
        return .object(answers.sorted { $0.status < $1.status }.map { (String($0.status), $0.value) })
    }

    /// A success answer: its description, its headers and `X-Request-ID`, its body.
    private static func response(_ response: ResponseDoc) -> JSONValue {
        var headers: [(key: String, value: JSONValue)] = response.headers.map { header in
            switch header {
            case .component(let name, let component):
                (name, .ref("#/components/headers/\(component)"))
            case .text(let name, let description):
                (
                    name,
                    .object([("description", .string(description)), ("schema", .object([("type", .string("string"))]))])
                )
            }
        }
        headers.append(("X-Request-ID", .ref("#/components/headers/RequestID")))
        var members: [(key: String, value: JSONValue)] = [
            ("description", .string(response.description)), ("headers", .object(headers)),
        ]
        if !response.content.isEmpty { members.append(("content", content(response.content))) }
        return .object(members)
    }

    private static func content(_ content: [ContentDoc]) -> JSONValue {
        .object(
            content.map { entry in
                let schema: JSONValue =
                    switch entry.schema {
                    case .component(let name): .ref("#/components/schemas/\(name)")
                    case .text: .object([("type", .string("string"))])
                    }
                return (entry.mediaType, .object([("schema", schema)]))
            })
    }
}
