import Hummingbird

/// Counts each request in the server's metrics (``ServerMetrics``) by route template, method
/// and status, and records its latency to the answer's head: a piece of the edge of its own,
/// beside the access log, so that either can go without the other.
struct RequestMetrics: RouterMiddleware {
    typealias Context = EdgeContext

    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        metrics.request(
            route: context.notes.route ?? "-", method: request.method.rawValue, status: Int(response.status.code),
            duration: ContinuousClock.now - start)
        return response
    }
}
