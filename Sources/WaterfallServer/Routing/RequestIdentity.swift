import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// Gives each request an id, the first piece of the edge: the client's `X-Request-ID` when it
/// is 1 to 128 visible ASCII characters (a proxy's id, so that one request can be followed
/// through both logs), else a new one; and echoes it in the answer's `X-Request-ID`. Problems
/// carry it as their `instance` and the access log writes it.
struct RequestIdentity: RouterMiddleware {
    typealias Context = EdgeContext

    private let ids = RequestIDs()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.requestID = Self.accepted(request.headers[.requestID]) ?? ids.next()
        var response = try await next(request, context)
        response.headers[.requestID] = context.requestID
        return response
    }

    /// `value` when it is an id this server takes from a client: 1 to 128 characters from `!`
    /// to `~` (no space, no control character, nothing beyond ASCII); else nil.
    static func accepted(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return value
    }
}

/// New request ids: a random prefix drawn once per server (so that the ids of instances behind
/// one load balancer differ) and a counter, `9f3a61c2-000000000000002a`: unique, cheap (a lock
/// held for one addition), and sortable by arrival within an instance.
final class RequestIDs: Sendable {
    private let prefix: String
    private let counter = NIOLockedValueBox<UInt64>(0)

    init() {
        let digits = String(UInt32.random(in: .min ... .max), radix: 16)
        prefix = String(repeating: "0", count: 8 - digits.count) + digits
    }

    func next() -> String {
        let number = counter.withLockedValue { counter in
            counter &+= 1
            return counter
        }
        let digits = String(number, radix: 16)
        return prefix + "-" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`: the id of a request, as a client or proxy names it and the answer echoes it.
    static let requestID = HTTPField.Name("X-Request-ID")!
}
