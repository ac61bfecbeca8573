import Hummingbird
import Logging
import NIOConcurrencyHelpers

/// Writes one line per request, through swift-log, as it ends: method, route template, status,
/// bytes of the body, duration, key name and request id; never a secret, a query or a path's
/// values. Successes (1xx to 3xx) are `info`, refusals (4xx) `notice`, failures (5xx) `error`,
/// so that the default level, `notice`, writes the requests that went wrong and nothing else.
///
/// An answer of known length is logged when its handler returns it; a streamed one (an event
/// stream) when it ends, with the bytes it sent.
struct AccessLog: RouterMiddleware {
    typealias Context = EdgeContext

    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let level = Self.level(of: response.status)
        guard logger.logLevel <= level else { return response }
        let line = Line(
            method: request.method.rawValue, route: context.notes.route, status: Int(response.status.code),
            key: context.notes.key,
            requestID: context.requestID, start: start, level: level)
        if let length = response.body.contentLength {
            line.write(to: logger, bytes: length)
            return response
        }
        let body = response.body
        response.body = ResponseBody { [logger] writer in
            let counted = NIOLockedValueBox(0)
            do {
                try await body.write(CountingWriter(base: writer, count: counted))
            } catch {
                line.write(to: logger, bytes: counted.withLockedValue { $0 })
                throw error
            }
            line.write(to: logger, bytes: counted.withLockedValue { $0 })
        }
        return response
    }

    /// The level a request of this status is logged at.
    static func level(of status: HTTPResponse.Status) -> Logger.Level {
        switch status.code {
        case 500...: .error
        case 400..<500: .notice
        default: .info
        }
    }

    /// One request's line, but for its bytes and end.
    struct Line: Sendable {
        var method: String
        var route: String?
        var status: Int
        var key: String?
        var requestID: String
        var start: ContinuousClock.Instant
        var level: Logger.Level

        func write(to logger: Logger, bytes: Int) {
            let elapsed = (ContinuousClock.now - start).components
            let milliseconds = Double(elapsed.seconds) * 1_000 + Double(elapsed.attoseconds) / 1e15
            let route = route ?? "-"
            logger.log(
                level: level, "\(method) \(route) \(status)",
                metadata: [
                    "request_id": .string(requestID),
                    "method": .string(method),
                    "route": .string(route),
                    "status": .stringConvertible(status),
                    "bytes": .stringConvertible(bytes),
                    "duration_ms": .stringConvertible((milliseconds * 1_000).rounded() / 1_000),
                    "key": .string(key ?? "-"),
                ])
        }
    }
}

/// A body writer that counts the bytes it passes on.
private struct CountingWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    let count: NIOLockedValueBox<Int>

    mutating func write(_ buffer: ByteBuffer) async throws {
        count.withLockedValue { $0 += buffer.readableBytes }
        try await base.write(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}
