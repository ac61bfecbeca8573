import NIOConcurrencyHelpers

/// What the pieces of the edge learn about a request on its way in, for the access log on its
/// way out: the route template it matched and the name of the key it came with. Shared by
/// reference, since a piece's copy of the context does not travel back out.
final class RequestNotes: Sendable {
    private let notes = NIOLockedValueBox<(route: String?, key: String?)>((nil, nil))

    /// The pattern of the route that answered (`/v1/feeds/{feed}/images`); nil when none did.
    var route: String? {
        get { notes.withLockedValue { $0.route } }
        set { notes.withLockedValue { $0.route = newValue } }
    }

    /// The name of the API key the request came with; nil without one.
    var key: String? {
        get { notes.withLockedValue { $0.key } }
        set { notes.withLockedValue { $0.key = newValue } }
    }
}
