import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A problem the server answered (`application/problem+json`, RFC 9457), as a typed error.
///
/// ``WaterfallAPI``'s methods throw it for every answer of status 400 or more, so a caller
/// can `catch let problem as WaterfallProblem where problem.kind == .preconditionFailed`.
/// `detail` is the sentence the command line prints for the same failure.
public struct WaterfallProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, by HTTP status (DESIGN section 9 lists when each is answered).
    public enum Kind: Hashable, Sendable {
        /// 400: a bad parameter.
        case badRequest
        /// 401: no key, an unknown key, or an expired one.
        case unauthorized
        /// 403: the key lacks the right (write, or this feed).
        case forbidden
        /// 404: unknown feed, layout or image (or outside the key's feeds).
        case notFound
        /// 409: a move onto itself.
        case conflict
        /// 412: `If-Match` or `X-Feed-Revision` named a revision the feed has moved on from;
        /// nothing changed. Read again and retry.
        case preconditionFailed
        /// 410: the changes since the asked revision were pruned (`serve --keep-changes`); see
        /// ``WaterfallProblem/oldestSince``: list the feed again and follow from there.
        case gone
        /// 413: the body is larger than the server's `--max-body`.
        case contentTooLarge
        /// 415: a media type the route does not read.
        case unsupportedMediaType
        /// 422: a bad feed, reorder or layout configuration.
        case unprocessableContent
        /// 503: the database was busy past its timeout; see ``WaterfallProblem/retryAfter``.
        case serviceUnavailable
        /// 507: the server's database disk is full; nothing changed, reads still answer.
        case insufficientStorage
        /// Any other status.
        case other
    }

    /// The answer's HTTP status code.
    public var status: Int
    /// The status's reason phrase, as the server wrote it.
    public var title: String
    /// One sentence saying what failed, naming the input.
    public var detail: String
    /// The request's id (`X-Request-ID`), as the server logged it; nil if it sent none.
    public var instance: String?
    /// Seconds to wait before retrying, from `Retry-After` (503 answers).
    public var retryAfter: Int?
    /// For ``Kind/gone``: the oldest revision whose later changes the server keeps.
    public var oldestSince: Int?

    /// What went wrong, from ``status``.
    public var kind: Kind {
        switch status {
        case 400: .badRequest
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 409: .conflict
        case 410: .gone
        case 412: .preconditionFailed
        case 413: .contentTooLarge
        case 415: .unsupportedMediaType
        case 422: .unprocessableContent
        case 503: .serviceUnavailable
        case 507: .insufficientStorage
        default: .other
        }
    }

    public var description: String { "\(status) \(title): \(detail)" }

    /// Creates a problem from its fields.
    public init(status: Int, title: String, detail: String, instance: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.title = title
        self.detail = detail
        self.instance = instance
        self.retryAfter = retryAfter
    }

    /// The problem an answer carries: its problem+json body when it has one, else the status
    /// with the body's text (a proxy's page, say) as the detail.
    init(response: HTTPResponse, body: Data) {
        let retryAfter = response.headerFields[.retryAfter].flatMap { Int($0) }
        if let problem = try? JSONDecoder().decode(Components.Schemas.Problem.self, from: body) {
            self.init(
                status: problem.status, title: problem.title, detail: problem.detail,
                instance: problem.instance, retryAfter: retryAfter)
            oldestSince = problem.oldestSince
        } else {
            let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            self.init(
                status: response.status.code, title: response.status.reasonPhrase,
                detail: text.isEmpty ? response.status.reasonPhrase : text, retryAfter: retryAfter)
        }
    }
}

/// Turns every answer of status 400 or more into a thrown ``WaterfallProblem``, so that
/// ``WaterfallAPI``'s methods need not switch over each operation's error cases.
struct ProblemMiddleware: ClientMiddleware {
    /// A problem document is a few hundred bytes; a larger error body is cut here.
    static let maximumBodyBytes = 64 * 1024

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        var bytes = Data()
        if let responseBody {
            for try await chunk in responseBody {
                bytes.append(contentsOf: chunk.prefix(Self.maximumBodyBytes - bytes.count))
                if bytes.count >= Self.maximumBodyBytes { break }
            }
        }
        throw WaterfallProblem(response: response, body: bytes)
    }
}
