/// An answer with the entity tag the server sent for it (`ETag`, `"R-H"`: R the feed's revision).
///
/// Send ``etag`` back as `ifMatch:` on a write to make the write happen only while the feed is
/// still at that revision: otherwise the server answers 412 (``WaterfallProblem/Kind/preconditionFailed``)
/// and changes nothing.
public struct Versioned<Value: Sendable>: Sendable {
    /// The answer.
    public var value: Value
    /// Its entity tag; nil when the server sent none.
    public var etag: String?

    /// Pairs an answer with its entity tag.
    public init(_ value: Value, etag: String?) {
        self.value = value
        self.etag = etag
    }
}

extension Versioned: Equatable where Value: Equatable {}
extension Versioned: Hashable where Value: Hashable {}
