import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends an API key made with `waterfall key add` as `Authorization: Bearer SECRET` on every
/// request (DESIGN section 9).
///
/// The secret is never logged or echoed; a request that already names its own
/// `Authorization` keeps it.
public struct BearerAPIKey: ClientMiddleware {
    let secret: String

    /// - Parameter secret: the secret `waterfall key add` printed once.
    public init(_ secret: String) {
        self.secret = secret
    }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if request.headerFields[.authorization] == nil {
            request.headerFields[.authorization] = "Bearer \(secret)"
        }
        return try await next(request, body, baseURL)
    }
}
