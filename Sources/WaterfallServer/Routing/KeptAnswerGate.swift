import Hummingbird
import Waterfall

/// Answers a repeated read from its kept answer, the first piece after the request's id, log and
/// problems: it finds who calls (``Gatekeeper/caller(of:)``), looks the answer up under the
/// request's target *and that caller's scope* (``KeptAnswerKey``), admits the caller to it as the
/// route would, and sends the kept bytes as they are; routing, parameter parsing and the
/// database are skipped. Anything else goes on to the route table, with the caller found.
struct KeptAnswerGate: RouterMiddleware {
    typealias Context = EdgeContext

    let runner: ServiceRunner
    let gatekeeper: Gatekeeper
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // The open routes (the probes above all) never ask who calls: that reads the keys, and
        // liveness must not depend on the database.
        // A precondition (`If-Match` on a read of the change log) is checked by the route.
        // A share link's path is checked against its link at every request (``ShareBook``).
        guard request.method == .get, !APIRoutes.openPaths.contains(request.uri.path),
            request.headers[.ifMatch] == nil, !request.uri.path.hasPrefix(WaterfallService.sharePathPrefix)
        else {
            return try await next(request, context)
        }
        var context = context
        let caller = try await gatekeeper.caller(of: request)
        context.caller = caller
        context.notes.key = caller.keyName
        // A listing streamed as lines is never kept, and the JSON kept under its URI is not it.
        guard !ImageStreamRoute.asksForLines(request),
            let kept = runner.keptAnswer(for: KeptAnswerKey(target: request.uri.description, scope: caller.scope))
        else {
            return try await next(request, context)
        }
        context.notes.route = kept.route
        _ = try gatekeeper.admit(caller, access: kept.access, feed: kept.feed)
        metrics.keptAnswer(hit: true)
        return await kept.answer.response(to: request)
    }
}
