import Hummingbird

/// The context of one request as it passes the edge's pieces (``Edge``): Hummingbird's, and
/// the request's id.
struct EdgeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's id (``RequestIdentity``): the client's `X-Request-ID`, or a new one.
    var requestID = ""

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
