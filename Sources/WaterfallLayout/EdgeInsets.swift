/// Distances from the four edges of a rectangle, in points.
///
/// Used for `sectionInset`, `headerInset` and `footerInset`. A layout accepts each side
/// from 0 to 1,000,000 points (see ``LayoutConfiguration/validate()``). Encoded as
/// `{"top", "left", "bottom", "right"}`, all four required.
public struct EdgeInsets: Hashable, Codable, Sendable {
    /// Distance from the top edge, in points.
    public var top: Double
    /// Distance from the left edge, in points.
    public var left: Double
    /// Distance from the bottom edge, in points.
    public var bottom: Double
    /// Distance from the right edge, in points.
    public var right: Double

    /// Creates insets from four distances in points.
    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// Creates insets with the same distance, in points, on all four sides.
    public init(all: Double) {
        self.init(top: all, left: all, bottom: all, right: all)
    }

    /// No inset on any side.
    public static let zero = EdgeInsets(all: 0)
}
