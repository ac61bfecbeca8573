/// Bytes that are not a serialized ``LayoutState``, explained in one sentence.
///
/// Thrown by ``LayoutState/init(serialized:)``. A cache that meets one should drop the entry
/// and recompute: the state is always derivable from the catalog.
public struct LayoutStateDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The byte offset where decoding found the problem.
    public let offset: Int
    /// One sentence saying what was wrong.
    public let message: String

    /// Creates an error at `offset` with a one-sentence `message`.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// The same as `message`.
    public var description: String { message }
}
