import Hummingbird

/// The server's HTTP edge: small pieces composed as Hummingbird's middleware chain, each with
/// one role, in this order: the request's id (``RequestIdentity``), the request's metrics
/// (``RequestMetrics``), the access log line (``AccessLog``), problem documents for failures (``ProblemMapping``), kept answers
/// (``KeptAnswerGate``), the shutdown's grace (``ShutdownGrace``), then the route table (``APIResponder``), which admits each request
/// through the ``Gatekeeper`` and answers it.
struct Edge: HTTPResponder {
    typealias Context = EdgeContext

    let identity: RequestIdentity
    let metrics: RequestMetrics
    let log: AccessLog
    let problems: ProblemMapping
    let kept: KeptAnswerGate
    let grace: ShutdownGrace
    let routing: APIResponder

    func respond(to request: Request, context: Context) async throws -> Response {
        try await identity.handle(request, context: context) { request, context in
            try await metrics.handle(request, context: context) { request, context in
                try await log.handle(request, context: context) { request, context in
                    try await problems.handle(request, context: context) { request, context in
                        try await kept.handle(request, context: context) { request, context in
                            try await grace.handle(request, context: context) { request, context in
                                try await routing.respond(to: request, context: context)
                            }
                        }
                    }
                }
            }
        }
    }
}
