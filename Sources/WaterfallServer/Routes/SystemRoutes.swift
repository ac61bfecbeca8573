import Hummingbird
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// The probes, the OpenAPI document, what the caller may do, the server's metrics and the
    /// database's statistics.
    static let systemRoutes: [Route] = [
        Route(
            .get, "/livez", "getLiveness", access: .open,
            OperationDoc(
                "Liveness: the process serves", tags: ["service"],
                description:
                    "200 while the process serves requests, without touching the database: an orchestrator's liveness probe, which must not restart a healthy instance while its database is away (DESIGN section 19).",
                responses: [.ok("The server is up.", .json("Health"))],
                problems: .open)
        ) { request, _, _ in try await liveness(request) },
        Route(
            .get, "/readyz", "getReadiness", access: .open,
            OperationDoc(
                "Readiness: the database answers and its schema is current", tags: ["service"],
                description:
                    "200 when the database answered within 2 s and every migration this version knows is applied; else 503 with `Retry-After`: an orchestrator's readiness probe, which sends no traffic to an instance whose database is away. One check runs at a time and its outcome answers for a second, however many probes come.",
                responses: [.ok("Ready.", .json("Health"))],
                problems: .open + [.serviceUnavailable])
        ) { request, _, server in
            try RequestQuery(request).finish()
            try await server.readiness.check()
            return await healthAnswer.response(to: request)
        },
        Route(
            .get, "/healthz", "getHealth", access: .open,
            OperationDoc(
                "Liveness (as /livez)", tags: ["service"],
                description:
                    "The same as `/livez`: 200 while the process serves, whatever its database does. Kept for the probes that know it; `/readyz` says whether the database answers.",
                responses: [.ok("The server is up.", .json("Health"))],
                problems: .open)
        ) { request, _, _ in try await liveness(request) },
        Route(
            .get, "/openapi.json", "getOpenAPI", access: .open,
            OperationDoc(
                "This OpenAPI document", tags: ["service"],
                responses: [.ok("The OpenAPI 3.1 document of the API.", .json("OpenAPIDocument"))],
                problems: .open)
        ) { request, _, _ in
            try RequestQuery(request).finish()
            return await openAPIAnswer.response(to: request)
        },
        // Open: it answers who calls, a 401 included (an expired key's says when it expired).
        Route(
            .get, "/v1/access", "getAccess", access: .open,
            OperationDoc(
                "What the caller may do here", tags: ["service"],
                description:
                    "The caller's key and what it allows, so that a client offers only that (the gallery turns moves off for a read-only key). 401 when a key is needed and none was sent, or the key is unknown or expired (the detail then says when it expired).",
                responses: [.ok("What the caller may do.", .json("Access"))],
                problems: .keyed)
        ) { request, _, server in
            try RequestQuery(request).finish()
            let gatekeeper = server.gatekeeper
            let access = try gatekeeper.access(of: try await gatekeeper.caller(of: request))
            return await .json(ByteBuffer(bytes: try StableJSON.document(of: access)), to: request)
        },
        Route(
            .get, "/metrics", "getMetrics", access: .readAll,
            OperationDoc(
                "The server's metrics, in Prometheus' text format", tags: ["service"],
                description:
                    #"Counters and histograms of this server process since it started (swift-metrics with swift-prometheus), with the same access as `/v1/stats`: `waterfall_http_requests_total{route, method, status}` (route the route template, `-` for none), `waterfall_http_request_duration_seconds{route, method}` (a histogram of the time to the answer's head, 0.1 ms to 10 s), `waterfall_kept_answers_total{result="hit"|"miss"}`, `waterfall_event_streams_open` and `waterfall_writes_total{kind}` (kind the write's operationId)."#,
                responses: [.ok("The metrics, in the Prometheus text exposition format 0.0.4.", .text("text/plain"))],
                problems: .databaseRead)
        ) { request, _, server in
            try RequestQuery(request).finish()
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        bytes: server.runner.metrics.exposition(hot: server.runner.service.keptFeeds?.report ?? []))))
        },
        Route(
            .get, "/v1/stats", "getStats", access: .readAll,
            OperationDoc(
                "Counts, revisions, cache coverage and database size", tags: ["service"],
                parameters: [.ifNoneMatch],
                responses: [.ok("The statistics.", .json("Stats"), headers: [.eTag])],
                problems: .keptDatabaseRead)
        ) { request, _, server in
            try RequestQuery(request).finish()
            // Not kept: the file's size changes without a commit (WAL checkpoints).
            return await .json(
                ByteBuffer(bytes: try await server.runner.run { try await StableJSON.document(of: try $0.stats()) }),
                to: request)
        },
    ]
}

/// The liveness answer, `{"status":"ok"}`, described once: this table writes it and gives its
/// schema.
struct Health: JSONAnswer {
    static let members: [AnswerMember<Health>] = [.constant("status", "ok")]
    static let schemas = [schema("Health", description: "The liveness answer.")]
}

extension APIRoutes {
    /// `GET /livez` and `/healthz`: the process serves; the database is not asked.
    fileprivate static func liveness(_ request: Request) async throws -> Response {
        try RequestQuery(request).finish()
        return await healthAnswer.response(to: request)
    }

    /// The answer of `GET /livez`, `/readyz` and `/healthz`, written once.
    fileprivate static let healthAnswer: JSONBody = {
        do {
            return JSONBody(ByteBuffer(bytes: try StableJSON.document(of: Health())))
        } catch {
            preconditionFailure("the liveness answer, \(error)")
        }
    }()
    /// The answer of `GET /openapi.json`: the checked-in document, as compiled in.
    /// Compressed once, on the first request that asks for gzip.
    fileprivate static let openAPIAnswer = JSONBody(ByteBuffer(string: Assets.openAPI))
}

/// The files of `Assets/`, compiled into the binary.
enum Assets {
    /// The OpenAPI 3.1 document of every route (`GET /openapi.json`).
    static let openAPI = file("openapi.json")

    /// The text of `Assets/NAME` (`name` is its path under `Assets/`: `gallery/scroll.js`).
    static func file(_ name: String) -> String {
        guard let file = EmbeddedAssets.all.first(where: { $0.name == name }) else {
            preconditionFailure("Assets/\(name) is not compiled in")
        }
        return file.text
    }

    /// The files of the folder `Assets/FOLDER` (not of its subfolders), by name within it.
    static func files(in folder: String) -> [(name: String, text: String)] {
        EmbeddedAssets.all.compactMap { file in
            guard file.name.hasPrefix(folder + "/") else { return nil }
            let name = String(file.name.dropFirst(folder.count + 1))
            return name.contains("/") ? nil : (name, file.text)
        }
    }
}
