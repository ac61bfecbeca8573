import Hummingbird
import NIOCore

/// One operation of the HTTP API: a method, a path pattern, the OpenAPI operation it is, what
/// the document says of it, and what answers it. The route table (``APIRoutes``) is the one list
/// of what the server does: the responder dispatches through it and ``APIDocument`` writes the
/// `paths` of `openapi.json` from it.
struct Route: Sendable {
    /// A segment of a path pattern: fixed text, or a named, percent-encoded parameter.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// Who may call a route once the database has API keys.
    enum Access: Sendable {
        /// Anyone (liveness, the API's description).
        case open
        /// A key that covers the feed, or anyone when the server has `--public-read`.
        case read
        /// As `read`, for a route about the whole database: a key that covers every feed.
        case readAll
        /// A key with write access that covers the feed.
        case write
    }

    let method: HTTPRequest.Method
    let segments: [Segment]
    let access: Access
    /// The pattern as the OpenAPI document writes it (`/v1/feeds/{feed}`): the route template
    /// of the access log.
    let pattern: String
    /// The `operationId` of this route in `openapi.json`.
    let operationID: String
    /// The rest of the route's operation in `openapi.json`: prose, parameters, body, answers.
    let doc: OperationDoc
    let handler: @Sendable (Request, PathParameters, RouteServices) async throws -> Response

    /// A route for `pattern`, written as in the OpenAPI document: `/v1/feeds/{feed}`.
    /// `access` defaults to what the method does: reads for GET, writes for anything else.
    init(
        _ method: HTTPRequest.Method, _ pattern: String, _ operationID: String, access: Access? = nil,
        _ doc: OperationDoc,
        _ handler: @escaping @Sendable (Request, PathParameters, RouteServices) async throws -> Response
    ) {
        self.method = method
        self.access = access ?? (method == .get ? .read : .write)
        // The root, `/`, is one empty segment, as the responder splits a request's path.
        self.segments =
            pattern == "/"
            ? [.literal("")]
            : pattern.split(separator: "/").map { part in
                part.hasPrefix("{") && part.hasSuffix("}")
                    ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
            }
        self.pattern =
            pattern == "/"
            ? "/"
            : "/"
                + segments.map { segment in
                    switch segment {
                    case .literal(let text): text
                    case .parameter(let name): "{\(name)}"
                    }
                }.joined(separator: "/")
        self.operationID = operationID
        self.doc = doc
        self.handler = handler
    }

    /// The path parameters when the raw (still percent-encoded) path segments match, else nil.
    /// - Throws: ``Problem`` 400 when a parameter is not valid percent-encoded UTF-8.
    func match(_ path: [Substring]) throws(Problem) -> PathParameters? {
        guard path.count == segments.count else { return nil }
        var parameters = PathParameters()
        parameters.access = access
        parameters.route = pattern
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let text):
                guard part == text else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                guard let value = PercentDecoding.decode(part) else {
                    throw Problem.badRequest(
                        "the path's \(name) \(String(part).quoted) is not valid percent-encoded UTF-8.")
                }
                parameters.values[name] = value
            }
        }
        return parameters
    }
}

/// What handlers answer with: the server's parts, handed to the route at each request so that
/// the route table itself needs no server (``APIDocument`` reads it without one).
struct RouteServices: Sendable {
    let runner: ServiceRunner
    let hub: EventHub
    let gatekeeper: Gatekeeper
    /// The readiness probe's one check at a time (``Readiness``).
    let readiness: Readiness
    let limits: ServerLimits
    /// When SIGTERM came, for answers that run long (``ImageStreamRoute``).
    let shutdown: ShutdownClock
    /// The streams running now (NDJSON listings and event streams), and their caps.
    let streams: StreamSlots
}

/// The decoded path parameters of a matched route, and the feeds the caller may see.
struct PathParameters: Sendable {
    fileprivate(set) var values: [String: String] = [:]
    /// The feeds the caller's key covers.
    var scope = FeedScope.all
    /// Who may call the route.
    var access = Route.Access.read
    /// The route's pattern (`/v1/feeds/{feed}`).
    var route = ""
    /// The name of the caller's API key, `nil` without one (streams are capped per key).
    var key: String?
    /// The request's connection: a stream closes it when its client reads nothing
    /// (``StallWatch``).
    var connection: (any Channel)?

    /// The parameter `name` of the route's pattern (always present once matched).
    subscript(_ name: String) -> String {
        values[name] ?? ""
    }
}
