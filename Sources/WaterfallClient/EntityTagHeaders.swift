import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends `If-Match` and `If-None-Match` as written: entity tags with their quotes.
///
/// The generated client writes header parameters in OpenAPI's `simple` style, which
/// percent-encodes reserved characters: the tag `"1-674dfbe87cdf5045"` would leave as
/// `%221-674dfbe87cdf5045%22`, a tag no server gave (412, "names no revision"). An entity tag
/// holds no `%` of its own (RFC 9110: visible ASCII but `"`), so decoding is exact.
/// ``WaterfallAPI`` puts this middleware on both of its clients.
public struct EntityTagHeaders: ClientMiddleware {
    static let names: [HTTPField.Name] = [.ifMatch, .ifNoneMatch]

    /// The middleware; it has no settings.
    public init() {}

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for name in Self.names {
            if let value = request.headerFields[name], value.contains("%"), let decoded = value.removingPercentEncoding
            {
                request.headerFields[name] = decoded
            }
        }
        return try await next(request, body, baseURL)
    }
}
