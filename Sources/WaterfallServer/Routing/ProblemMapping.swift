import Hummingbird
import Waterfall

/// Turns every failure of the pieces after it into a problem document (RFC 9457) whose
/// `instance` is the request's id: a ``Problem`` as thrown, a service error as its status and
/// sentence, anything else a 500 that is logged. Nothing a client sends gives a 500.
struct ProblemMapping: RouterMiddleware {
    typealias Context = EdgeContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            var problem = Self.problem(for: error, context: context)
            problem.instance = context.requestID
            return problem.response
        }
    }

    static func problem(for error: any Error, context: Context) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as WaterfallError:
            return Problem(error)
        case let error as any HTTPResponseError:
            return Problem(error.status, "the request cannot be read: \(error.status.reasonPhrase.lowercased()).")
        default:
            context.logger.error("unexpected failure: \(error)", metadata: ["request_id": .string(context.requestID)])
            return Problem(.internalServerError, "unexpected failure: \(error).")
        }
    }
}
