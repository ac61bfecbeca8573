/// One image as the layout engine sees it: its pixel size and whether it spans all columns.
///
/// `width` and `height` are the image's pixel dimensions, each 1...1,000,000 (the catalog
/// guarantees it; the engine does not re-check, and other values give meaningless frames).
/// Only the aspect ratio matters: frames are in points.
public struct LayoutItem: Hashable, Sendable {
    /// The image's width in pixels, 1...1,000,000.
    public var width: Int32
    /// The image's height in pixels, 1...1,000,000.
    public var height: Int32
    /// Whether the image is a banner across all columns (`"span": "full"` in a feed).
    public var isFullSpan: Bool

    /// Creates an item from pixel sizes (each 1...1,000,000) and its span.
    @inlinable
    public init(width: Int32, height: Int32, isFullSpan: Bool = false) {
        self.width = width
        self.height = height
        self.isFullSpan = isFullSpan
    }
}
