/// What a kept answer is kept under: the request's target (path and query, as sent) and the
/// scope of the caller it was computed for. Callers whose keys cover different feeds never
/// share an answer, whatever a route does with the scope: a key cannot be made without one.
struct KeptAnswerKey: Hashable, Sendable {
    let target: String
    let scope: FeedScope
}
