/// The cover-flow layout of DESIGN section 2: one horizontal row whose images shrink with
/// their distance from the viewport's centre, and snap to it.
///
/// Frames are in points: image `i` is `itemHeight` tall and `grid(itemHeight * w / h)` wide
/// (evaluated as `(itemHeight * w) / h`, then snapped), at `y = sectionInset.top`; the first
/// starts at `x = sectionInset.left`, each next one `spacing` after the previous one's right
/// edge. Their left edges, centres and right edges therefore never decrease, which the
/// queries below rely on: pass them frames made by ``frames(_:)`` or ``nextFrame(after:item:)``.
public struct CoverFlowLayout: Sendable {
    /// The validated configuration this layout applies.
    public let configuration: CoverFlowConfiguration

    /// Creates a layout after validating `configuration`. O(1).
    ///
    /// - Throws: ``LayoutConfigurationError`` for the first value out of bounds (see
    ///   ``CoverFlowConfiguration/validate()``).
    public init(_ configuration: CoverFlowConfiguration) throws(LayoutConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// The frames of `items` in one row, in points. O(n).
    public func frames(_ items: [LayoutItem]) -> [Frame] {
        var frames: [Frame] = []
        frames.reserveCapacity(items.count)
        for item in items {
            frames.append(nextFrame(after: frames.last, item: item))
        }
        return frames
    }

    /// The frame of `item` placed after `previous` (or first in the row when `nil`), so a
    /// caller can stream frames without holding them all. O(1).
    public func nextFrame(after previous: Frame?, item: LayoutItem) -> Frame {
        let config = configuration
        let x = previous.map { $0.maxX + config.spacing } ?? config.sectionInset.left
        let width = config.grid((config.itemHeight * Double(item.width)) / Double(item.height))
        return Frame(x: x, y: config.sectionInset.top, width: width, height: config.itemHeight)
    }

    /// The width of the whole row, in points: the last frame's right edge plus
    /// `sectionInset.right`, or `sectionInset.left + sectionInset.right` with no frames. O(1).
    public func contentWidth(frames: [Frame]) -> Double {
        guard let last = frames.last else {
            return configuration.sectionInset.left + configuration.sectionInset.right
        }
        return last.maxX + configuration.sectionInset.right
    }

    /// How much an image is drawn shrunk for a viewport at offset `x` that is `viewportWidth`
    /// points wide: `1 / (1 + |frame.midX - (x + viewportWidth / 2)| * factor)`, in (0, 1]. O(1).
    public func scale(of frame: Frame, x: Double, viewportWidth: Double) -> Double {
        1 / (1 + abs(frame.midX - (x + viewportWidth / 2)) * configuration.factor)
    }

    /// Indices of the frames meeting the horizontal band `[x, x + viewportWidth)`
    /// (`minX < x + viewportWidth && maxX > x`), ascending. O(log n + answer).
    public func visible(_ frames: [Frame], x: Double, viewportWidth: Double) -> [Int] {
        let end = x + viewportWidth
        var index = Self.partition(frames.count) { frames[$0].maxX > x }
        var result: [Int] = []
        while index < frames.count, frames[index].minX < end {
            if frames[index].maxX > x { result.append(index) }
            index += 1
        }
        return result
    }

    /// The index of the frame whose centre is nearest (absolute distance) to the centre of a
    /// viewport at `x`, `viewportWidth` wide; the lowest index on ties, `nil` with no frames.
    /// O(log n).
    public func nearestIndex(_ frames: [Frame], x: Double, viewportWidth: Double) -> Int? {
        guard !frames.isEmpty else { return nil }
        let target = x + viewportWidth / 2
        let after = Self.partition(frames.count) { frames[$0].midX >= target }
        guard after > 0 else { return 0 }
        guard after < frames.count else { return Self.firstWithCentre(frames, frames.count - 1) }
        let before = after - 1
        let distanceBefore = abs(frames[before].midX - target)
        let distanceAfter = abs(frames[after].midX - target)
        return distanceBefore <= distanceAfter ? Self.firstWithCentre(frames, before) : after
    }

    /// The offset that puts the centre of the image nearest to the proposed viewport's centre
    /// exactly at the viewport's centre: `centreX - viewportWidth / 2`, not clamped to the
    /// content; `proposed` itself when there are no frames. O(log n).
    public func snapOffset(_ frames: [Frame], proposed x: Double, viewportWidth: Double) -> Double {
        guard let index = nearestIndex(frames, x: x, viewportWidth: viewportWidth) else { return x }
        return frames[index].midX - viewportWidth / 2
    }

    /// The lowest index whose centre equals that of `index` (images of width 0 and no spacing
    /// can share a centre).
    private static func firstWithCentre(_ frames: [Frame], _ index: Int) -> Int {
        let centre = frames[index].midX
        var first = index
        while first > 0, frames[first - 1].midX == centre {
            first -= 1
        }
        return first
    }

    /// The first index in `0..<count` for which `isAfter` holds (monotone in the index).
    private static func partition(_ count: Int, _ isAfter: (Int) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = low + (high - low) / 2
            if isAfter(middle) {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }
}
