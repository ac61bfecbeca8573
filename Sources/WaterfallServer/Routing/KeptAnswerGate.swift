import Hummingbird
import Waterfall

/// Answers a repeated read from its kept answer, the first piece after the request's id, log and
/// problems: it finds who calls (``Gatekeeper/caller(of:)``), looks the answer up under the
/// request's target *and that caller's scope* (``KeptAnswerKey``), admits the caller to it as the
/// route would, and sends the kept bytes as they are; routing, parameter parsing and the
/// database are skipped. Anything else goes on to the route table, with the caller found.
///
/// A share link's path (DESIGN section 20) is answered the same way once its link is found to
/// answer still (``ShareBook``, as the route would): its answers are kept under the link's own
/// path, so the kept bytes are the ones its route gave, pinned (`revision=R`) as the route pins.
struct KeptAnswerGate: RouterMiddleware {
    typealias Context = EdgeContext

    let runner: ServiceRunner
    let gatekeeper: Gatekeeper
    let shares: ShareBook
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // The open routes (the probes above all) never ask who calls: that reads the keys, and
        // liveness must not depend on the database.
        // A precondition (`If-Match` on a read of the change log) is checked by the route.
        guard request.method == .get, !APIRoutes.openPaths.contains(request.uri.path),
            request.headers[.ifMatch] == nil
        else {
            return try await next(request, context)
        }
        if request.uri.path.hasPrefix(WaterfallService.sharePathPrefix) {
            return try await shared(request, context: context, next: next)
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

    /// A share link's read from its kept answer: kept under the link's path without `revision`
    /// (its route strips it) and the scope of a caller the route does not ask about.
    private func shared(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let rest = request.uri.path.utf8.dropFirst(WaterfallService.sharePathPrefix.utf8.count)
        let token = String(Substring(rest.prefix { $0 != UInt8(ascii: "/") }))
        // The link's root takes no `revision` (its route refuses one): only what is under it.
        guard !ImageStreamRoute.asksForLines(request),
            let (stripped, pinned) = try? RevisionPin.strip(request),
            pinned == nil || rest.contains(UInt8(ascii: "/")),
            let link = try await shares.link(token: token, runner: runner),
            let kept = runner.keptAnswer(for: KeptAnswerKey(target: stripped.uri.description, scope: .all))
        else {
            return try await next(request, context)
        }
        context.notes.route = kept.route
        metrics.keptAnswer(hit: true)
        return try RevisionPin.finish(
            await kept.answer.response(to: request), pinned: pinned, isPublic: true, expires: link.scope.expiresAt)
    }
}
