import Hummingbird
import Waterfall

/// Answers every request through the route table: the matching route's handler, else 404
/// for an unknown path or 405 (with `Allow`) for a known path and another method. It throws
/// its refusals; ``ProblemMapping`` before it makes them problem documents.
struct APIResponder: HTTPResponder {
    typealias Context = EdgeContext

    let routes: [Route]
    let services: RouteServices
    var gatekeeper: Gatekeeper { services.gatekeeper }
    var metrics: ServerMetrics { services.runner.metrics }

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let segments = Array(path)
        var allowed: [HTTPRequest.Method] = []
        for route in routes {
            guard var parameters = try route.match(segments) else { continue }
            let isHead = route.method == .get && request.method == .head
            if route.method == request.method || isHead {
                context.notes.route = route.pattern
                if route.access != .open {
                    let caller =
                        if let known = context.caller { known } else { try await gatekeeper.caller(of: request) }
                    context.notes.key = caller.keyName
                    parameters.key = caller.keyName
                    parameters.scope = try gatekeeper.admit(
                        caller, access: route.access, feed: parameters.values["feed"])
                }
                parameters.connection = context.channel
                // A read of a feed may be pinned to its revision (DESIGN section 20).
                let (request, pinned) = route.pinsRevision ? try RevisionPin.strip(request) : (request, nil)
                var response = try await route.handler(request, parameters, services)
                if pinned != nil { response = try RevisionPin.finish(response, pinned: pinned, isPublic: false) }
                if route.access == .write && response.status.kind == .successful {
                    metrics.write(kind: route.operationID)
                }
                return isHead ? Response(status: response.status, headers: response.headers) : response
            }
            allowed.append(route.method)
        }
        guard !allowed.isEmpty else {
            throw Problem(.notFound, "no route answers \(request.uri.path.quoted); /openapi.json lists the routes.")
        }
        if allowed.contains(.get) { allowed.append(.head) }
        let methods = allowed.map(\.rawValue).joined(separator: ", ")
        throw Problem(
            .methodNotAllowed,
            "\(request.uri.path.quoted) does not take \(request.method.rawValue); it takes \(methods).",
            headers: [.allow: methods])
    }
}
