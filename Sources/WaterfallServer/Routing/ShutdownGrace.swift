import Hummingbird
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Holds every request that carries a body (not a `GET` or `HEAD`) to the shutdown's grace
/// (DESIGN section 18): once SIGTERM has started
/// the shutdown and the grace has passed, a request still under way is cancelled, and answered
/// 503 with `Retry-After` unless it finished all the same: a body still coming is dropped
/// (nothing of it written), while work already in the database, which cannot be taken back
/// half-way, ends as it would have and is answered. It sits after
/// ``ProblemMapping``, so the 503 is a problem document with the request's id, and after
/// ``KeptAnswerGate`` (a kept answer is sent at once), before everything that may wait (the
/// body's upload, the database).
///
/// A response whose body has started is not cut here: bodies are written after this piece
/// returns, and the server's own stop comes well after the grace (``WaterfallServer/run``).
/// The one answer that can run for long, a catalog streamed as lines, ends itself at the
/// grace's end (``ImageStreamRoute``).
struct ShutdownGrace: RouterMiddleware {
    typealias Context = EdgeContext

    let clock: ShutdownClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // A read has no body to wait for and ends within the database's own timeouts; racing it
        // against the grace (a task group of two tasks, one awaiting the service lifecycle's
        // shutdown) halved the requests a second of `/healthz`. Reads go straight on; a read
        // still running at the server's own stop, 15 s after the grace, is closed unanswered.
        if request.method == .get || request.method == .head { return try await next(request, context) }
        return try await withoutActuallyEscaping(next) { next in
            // The group awaits both children before it returns, so `next` never outlives this call.
            let handler = UncheckedHandler(next: next)
            return try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask { .answered(try await handler.next(request, context)) }
                group.addTask {
                    try await clock.graceEnded()
                    return .graceEnded
                }
                var graceEnded = false
                while let outcome = try await nextOutcome(&group, graceEnded: graceEnded) {
                    switch outcome {
                    case .answered(let response):
                        group.cancelAll()
                        return response
                    case .graceEnded:
                        graceEnded = true
                        group.cancelAll()
                    }
                }
                preconditionFailure("the request ended without an answer")
            }
        }
    }

    /// The next child's outcome; once the grace has ended, a handler's failure (the
    /// cancellation that ended it, or what it caused) is the 503 of a request cut short.
    private func nextOutcome(_ group: inout ThrowingTaskGroup<Outcome, any Error>, graceEnded: Bool) async throws
        -> Outcome?
    {
        do {
            return try await group.next()
        } catch let error where graceEnded || clock.graceHasEnded {
            if error is CancellationError || graceEnded { throw clock.problem }
            throw error
        }
    }

    private enum Outcome: Sendable {
        case answered(Response)
        case graceEnded
    }

    /// The rest of the chain, called from a child task of the group that outlives it not.
    private struct UncheckedHandler: @unchecked Sendable {
        let next: (Request, Context) async throws -> Response
    }
}

/// When the shutdown began, and the grace it gives requests in flight.
final class ShutdownClock: Sendable {
    let grace: Duration
    private let began = NIOLockedValueBox<ContinuousClock.Instant?>(nil)

    init(grace: Duration) {
        self.grace = grace
    }

    /// Notes that the shutdown began now (the first call counts).
    func shutdownBegan() {
        began.withLockedValue { if $0 == nil { $0 = .now } }
    }

    /// Whether the shutdown began more than the grace ago.
    var graceHasEnded: Bool {
        guard let began = began.withLockedValue({ $0 }) else { return false }
        return began + grace <= .now
    }

    /// Returns once the shutdown began and its grace has passed; throws `CancellationError`
    /// when cancelled first (the request was answered).
    func graceEnded() async throws {
        try await gracefulShutdown()
        shutdownBegan()
        guard let began = began.withLockedValue({ $0 }) else { return }
        try await Task.sleep(until: began + grace, clock: .continuous)
    }

    /// The answer of a request cut short by the end of the grace.
    var problem: Problem {
        Problem(
            .serviceUnavailable,
            "the server is shutting down and the request did not finish within its \(Self.seconds(grace))-second grace; send it again in a moment (to this server once it is back, or to another instance).",
            headers: [.retryAfter: "1"])
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds)" }
        return String(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
