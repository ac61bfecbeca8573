/// An axis-aligned rectangle in the layout's coordinate space, in points.
///
/// `y` grows downwards from the top of the content; `x` grows rightwards from its left edge.
public struct Frame: Hashable, Codable, Sendable {
    /// The left edge, in points.
    public var x: Double
    /// The top edge, in points.
    public var y: Double
    /// The width, in points (never negative in a layout's output).
    public var width: Double
    /// The height, in points (never negative in a layout's output).
    public var height: Double

    /// Creates a frame from its top-left corner and its size, all in points.
    @inlinable
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The left edge, `x`.
    @inlinable public var minX: Double { x }
    /// The right edge, `x + width`.
    @inlinable public var maxX: Double { x + width }
    /// The top edge, `y`.
    @inlinable public var minY: Double { y }
    /// The bottom edge, `y + height`.
    @inlinable public var maxY: Double { y + height }
    /// The horizontal centre, `x + width / 2`.
    @inlinable public var midX: Double { x + width / 2 }
    /// The vertical centre, `y + height / 2`.
    @inlinable public var midY: Double { y + height / 2 }

    /// Whether the frame meets the horizontal band `[y, y + height)` (DESIGN section 2, viewport).
    ///
    /// True when `minY < y + height && maxY > y`; a band of height 0 meets only frames that
    /// straddle `y`. O(1).
    @inlinable
    public func meetsBand(y: Double, height: Double) -> Bool {
        minY < y + height && maxY > y
    }
}
