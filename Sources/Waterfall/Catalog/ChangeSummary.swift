/// What an import, move, reorder or removal changed: the JSON of `import --json` and friends.
public struct ChangeSummary: Hashable, Sendable {
    public var feed: String
    /// The feed's revision after the operation (unchanged when nothing changed).
    public var revision: Int64
    public var inserted = 0
    public var updated = 0
    public var moved = 0
    public var removed = 0
    public var unchanged = 0
    /// How many images' `section` fields an import with date sections ignored (DESIGN section
    /// 17); `nil`, and absent from the JSON, for every other import and edit.
    public var sectionFieldsIgnored: Int?

    public init(
        feed: String, revision: Int64, inserted: Int = 0, updated: Int = 0, moved: Int = 0, removed: Int = 0,
        unchanged: Int = 0
    ) {
        self.feed = feed
        self.revision = revision
        self.inserted = inserted
        self.updated = updated
        self.moved = moved
        self.removed = removed
        self.unchanged = unchanged
    }

    /// Whether the operation changed the catalog.
    public var changedAnything: Bool {
        inserted + updated + moved + removed > 0
    }
}
