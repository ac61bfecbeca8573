import Hummingbird
import NIOCore

/// The context of one request as it passes the edge's pieces (``Edge``): Hummingbird's, the
/// request's id, and what the pieces note about it for the access log.
struct EdgeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's id (``RequestIdentity``): the client's `X-Request-ID`, or a new one.
    var requestID = ""
    /// The route and key of the request, noted on the way in, logged on the way out.
    let notes = RequestNotes()
    /// Who sends the request, once ``KeptAnswerGate`` has asked the ``Gatekeeper``.
    var caller: Caller?
    /// The request's connection.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
