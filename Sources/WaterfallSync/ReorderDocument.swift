/// A decoded, validated reorder file.
public struct ReorderDocument: Hashable, Sendable {
    /// The feed's name from the file's `"feed"` field; `nil` when absent or `null`.
    public var feed: String?
    /// What to do, in one transaction.
    public var operations: ReorderOperations

    /// Creates a document (values are not validated here).
    public init(feed: String? = nil, operations: ReorderOperations) {
        self.feed = feed
        self.operations = operations
    }
}

/// The two forms a reorder file takes.
public enum ReorderOperations: Hashable, Sendable {
    /// The `"moves"`, applied in order, then the `"remove"` ids (each list possibly empty;
    /// ids in `removals` are distinct).
    case edits(moves: [ReorderMove], removals: [String])
    /// The `"order"` form: the listed images (distinct, at least one) take, in this order, the
    /// places the same set of images occupies now.
    case order([String])
}
