/// A section declared in a feed's `"sections"` array.
public struct FeedSection: Hashable, Sendable {
    /// The section's id, non-empty; a JSON integer id is stored as its decimal text.
    public var id: String
    /// The section's display title, if the feed gives one.
    public var title: String?

    /// Creates a section (values are not validated here).
    public init(id: String, title: String? = nil) {
        self.id = id
        self.title = title
    }
}
