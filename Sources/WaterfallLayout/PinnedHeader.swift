/// A section header placed for a viewport with pinned ("floating") headers.
public struct PinnedHeader: Hashable, Sendable {
    /// Where the header is drawn, in points: its natural frame moved down to stick under the
    /// pin offset, but never below its section's end.
    public var frame: Frame
    /// Whether `frame` differs from the header's natural position.
    public var isPinned: Bool

    /// Creates a placed header.
    public init(frame: Frame, isPinned: Bool) {
        self.frame = frame
        self.isPinned = isPinned
    }
}
