/// What a viewport band `[y, y + height)` shows: DESIGN's `layoutAttributesForElementsInRect:`.
public struct Viewport: Hashable, Sendable {
    /// Global indices (catalog order) of the images whose frames meet the band, ascending.
    public var items: [Int]
    /// The headers to draw, by ascending section index: the headers that meet the band, or,
    /// with pinned headers, the header of every section with an element in the band.
    public var headers: [ViewportHeader]
    /// Indices of the sections whose footers meet the band, ascending.
    public var footers: [Int]

    /// Creates a viewport answer.
    public init(items: [Int], headers: [ViewportHeader], footers: [Int]) {
        self.items = items
        self.headers = headers
        self.footers = footers
    }
}

/// A section header in a ``Viewport``: where it is drawn and whether pinning moved it.
public struct ViewportHeader: Hashable, Sendable {
    /// The section's index in ``FeedLayout/sections``.
    public var section: Int
    /// The frame to draw, in points (the pinned one when `isPinned`).
    public var frame: Frame
    /// Whether the header was moved from its natural position to stay under the pin offset.
    public var isPinned: Bool

    /// Creates a viewport header.
    public init(section: Int, frame: Frame, isPinned: Bool) {
        self.section = section
        self.frame = frame
        self.isPinned = isPinned
    }
}
