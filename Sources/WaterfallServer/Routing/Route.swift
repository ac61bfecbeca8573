import Hummingbird
import NIOCore
import Waterfall

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

    /// The route for a view of the feed it is about (DESIGN section 20):
    /// `/v1/feeds/{feed}/views/{view}` and the rest of its pattern, the same parameters with
    /// `{view}`, answered by the same handler with the view's service.
    func forView() -> Route {
        let feedPrefix = "/v1/feeds/{feed}"
        precondition(pattern.hasPrefix(feedPrefix + "/"), "only a feed's routes have a view's")
        var parameters = doc.parameters
        parameters.insert(.viewName, at: (parameters.firstIndex(of: .feed) ?? -1) + 1)
        let viewDoc = OperationDoc(
            doc.summary + ", of a view", tags: ["views"],
            description: (doc.description.map { $0 + "\n\n" } ?? "")
                + "For a view, the view's images alone, as a feed of them would answer; a view's revision is its feed's. A write given in a view is its feed's.",
            parameters: parameters, body: doc.body, responses: doc.responses, problems: doc.problems)
        let handler = self.handler
        return Route(
            method, "/v1/feeds/{feed}/views/{view}" + pattern.dropFirst(feedPrefix.count),
            "view" + operationID.prefix(1).uppercased() + operationID.dropFirst(), access: access, viewDoc
        ) { request, path, services in
            try await handler(request, path, services.inView(path["view"]))
        }
    }

    /// Whether a request may pin the route's answer to a revision (`revision=R`, DESIGN section
    /// 20): a read of one feed (or view) answered with an entity tag; not its event stream.
    var pinsRevision: Bool {
        method == .get && pattern.hasPrefix("/v1/feeds/{feed}") && !pattern.hasSuffix("/events")
    }

    /// The route for a share link (DESIGN section 20): `/s/{token}` and the rest of a feed's read
    /// route, open to anyone holding a link, answered as the route answers for the link's feed
    /// or view. With the link's layout, only that named layout (and the routes that take none).
    /// Anything the link does not reach, and a link removed or expired, is the same 404.
    func forShare() -> Route {
        let feedPrefix = "/v1/feeds/{feed}"
        precondition(method == .get && pattern.hasPrefix(feedPrefix), "only a feed's reads have a share link's")
        let rest = String(pattern.dropFirst(feedPrefix.count))
        let takesLayoutName = rest.contains("{name}")
        let takesNoLayout = Self.routesWithoutLayout.contains(rest)
        var parameters = doc.parameters.filter { $0 != .feed }
        parameters.insert(.shareToken, at: 0)
        let shareDoc = OperationDoc(
            doc.summary + ", through a share link", tags: ["shares"],
            description: (doc.description.map { $0 + "\n\n" } ?? "")
                + "Through a share link, without a key: what the route answers for the link's feed or view. `revision=R` pins the answer to the revision it shows: `Cache-Control: public, max-age=31536000, immutable`, or 410 once R is not current; unpinned answers are `no-cache`.",
            parameters: parameters + [.query("Revision")], body: nil, responses: doc.responses,
            problems: doc.problems + [.gone])
        let handler = self.handler
        return Route(
            .get, "/s/{token}" + rest, "share" + operationID.prefix(1).uppercased() + operationID.dropFirst(),
            access: .open, shareDoc
        ) { request, path, services in
            guard let link = try await services.shares.link(token: path["token"], runner: services.runner),
                link.scope.layout == nil || takesNoLayout
                    || (takesLayoutName && path["name"].utf8.elementsEqual(link.scope.layout!.utf8))
            else { throw Problem.noShare }
            let scope = link.scope
            let path = path.sharing(link)
            let (pinnedRequest, pinned) = try RevisionPin.strip(request)
            do {
                let response = try await handler(
                    pinnedRequest, path, scope.view.map { services.inView($0) } ?? services)
                return try RevisionPin.finish(
                    response, pinned: pinned, isPublic: true, expires: scope.expiresAt)
            } catch let error as WaterfallError {
                // The link's view or layout removed since: as a link removed, nothing named.
                switch error {
                case .unknownFeed, .unknownView, .unknownLayout: throw Problem.noShare
                default: throw error
                }
            }
        }
    }

    /// The rest of the feed's read routes that take no layout: a link limited to one layout
    /// answers these and that layout's own (its list of layouts holds that one alone).
    static let routesWithoutLayout: Set<String> = ["", "/images", "/sections", "/changes", "/events", "/layouts"]

    /// The path parameters when the raw (still percent-encoded) path segments match, else nil.
    /// - Throws: ``Problem`` 400 when a parameter is not valid percent-encoded UTF-8, or holds a
    ///   NUL.
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
                        "the path's \(name) \(String(part).quoted) is not valid percent-encoded UTF-8 without NUL (%00)."
                    )
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
    /// What each share link hands out (DESIGN section 20).
    let shares: ShareBook

    /// The same services, the runner's answering for the view `view` (DESIGN section 20).
    func inView(_ view: String) -> RouteServices {
        RouteServices(
            runner: runner.inView(view), hub: hub, gatekeeper: gatekeeper, readiness: readiness, limits: limits,
            shutdown: shutdown, streams: streams, shares: shares)
    }
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

    /// The share link the request came through (DESIGN section 20), `nil` for any other: a
    /// stream asks it again while it runs, and ends once the link no longer answers.
    var link: ShareLink?

    /// The same parameters, standing for the feed (and view) the share link `link` hands out.
    /// Its streams are capped as one key's are, the link's own count (``streamOwner``).
    func sharing(_ link: ShareLink) -> PathParameters {
        var parameters = self
        parameters.values["feed"] = link.scope.feed
        parameters.values["view"] = link.scope.view
        parameters.access = .read
        parameters.link = link
        return parameters
    }

    /// Whose streams the request's count against: its share link's, else its key's.
    var streamOwner: StreamOwner? {
        if let link { return .link(link.scope.id) }
        return key.map { .key($0) }
    }
}
