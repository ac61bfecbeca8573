import Hummingbird
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// Liveness, the OpenAPI document, what the caller may do, the server's metrics and the
    /// database's statistics.
    static func systemRoutes(_ runner: ServiceRunner, gatekeeper: Gatekeeper) -> [Route] {
        let health = ByteBuffer(string: #"{"status":"ok"}"# + "\n")
        let openAPI = ByteBuffer(string: Assets.openAPI)
        return [
            Route(.get, "/healthz", "getHealth", access: .open) { request, _ in
                try RequestQuery(request).finish()
                return .json(health)
            },
            Route(.get, "/openapi.json", "getOpenAPI", access: .open) { request, _ in
                try RequestQuery(request).finish()
                return .json(openAPI)
            },
            // Open: it answers who calls, a 401 included (an expired key's says when it expired).
            Route(.get, "/v1/access", "getAccess", access: .open) { request, _ in
                try RequestQuery(request).finish()
                let access = try gatekeeper.access(of: try await gatekeeper.caller(of: request))
                return .json(ByteBuffer(bytes: try StableJSON.document(of: access)))
            },
            Route(.get, "/metrics", "getMetrics", access: .readAll) { request, _ in
                try RequestQuery(request).finish()
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: runner.metrics.exposition(hot: runner.service.hot?.report ?? []))))
            },
            Route(.get, "/v1/stats", "getStats", access: .readAll) { request, _ in
                try RequestQuery(request).finish()
                // Not kept: the file's size changes without a commit (WAL checkpoints).
                return .json(ByteBuffer(bytes: try await runner.run { try StableJSON.document(of: try $0.stats()) }))
            },
        ]
    }
}

/// The files of `Assets/`, compiled into the binary.
enum Assets {
    /// The OpenAPI 3.1 document of every route (`GET /openapi.json`).
    static let openAPI = file("openapi.json")

    static func file(_ name: String) -> String {
        guard let file = EmbeddedAssets.all.first(where: { $0.name == name }) else {
            preconditionFailure("Assets/\(name) is not compiled in")
        }
        return file.text
    }
}
