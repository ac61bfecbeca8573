/// One entry of a reorder file's `"moves"` array.
public struct ReorderMove: Hashable, Sendable {
    /// The id of the image to move.
    public var id: String
    /// Where it goes.
    public var target: MoveTarget
    /// The entry's place in the file, such as `moves[3]`, for later error messages
    /// (an unknown id, say).
    public var path: String

    /// Creates a move (values are not validated here).
    public init(id: String, target: MoveTarget, path: String) {
        self.id = id
        self.target = target
        self.path = path
    }
}

/// Where a moved image goes. A move is remove-then-insert, never a swap.
public enum MoveTarget: Hashable, Sendable {
    /// Right before the image with this id, in that image's section (never the moved image).
    case before(String)
    /// Right after the image with this id, in that image's section (never the moved image).
    case after(String)
    /// At this index (0 or more) inside the moved image's own section.
    case index(Int)
}
