import Hummingbird
import Waterfall

/// Answers every request through the route table: the matching route's handler, else 404
/// for an unknown path or 405 (with `Allow`) for a known path and another method. It throws
/// its refusals; ``ProblemMapping`` before it makes them problem documents.
struct APIResponder: HTTPResponder {
    typealias Context = EdgeContext

    let routes: [Route]
    let gatekeeper: Gatekeeper
    let runner: ServiceRunner

    func respond(to request: Request, context: Context) async throws -> Response {
        if request.method == .get, let kept = runner.keptAnswer(for: request.uri.description) {
            context.notes.route = kept.route
            _ = try await gatekeeper.admit(request, access: kept.access, feed: kept.feed, notes: context.notes)
            return kept.answer.response(to: request)
        }
        let path = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let segments = Array(path)
        var allowed: [HTTPRequest.Method] = []
        for route in routes {
            guard var parameters = try route.match(segments) else { continue }
            let isHead = route.method == .get && request.method == .head
            if route.method == request.method || isHead {
                context.notes.route = route.pattern
                parameters.scope = try await gatekeeper.admit(request, access: route.access, feed: parameters.values["feed"], notes: context.notes)
                let response = try await route.handler(request, parameters)
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
            .methodNotAllowed, "\(request.uri.path.quoted) does not take \(request.method.rawValue); it takes \(methods).",
            headers: [.allow: methods])
    }
}
