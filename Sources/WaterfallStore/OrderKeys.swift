/// Sparse order keys: catalog order is key order, with room between neighbours, so that a move
/// or an insertion writes one row. When a gap is used up, a window of neighbours around it is
/// respaced; the window doubles until it has room, so the rewrite stays local and rare.
public enum OrderKeys {
    /// The distance between neighbouring keys after a bulk import or a renumbering.
    public static let spacing: Int64 = 1 << 32
    /// The largest key handed out, leaving headroom for arithmetic.
    public static let maximum: Int64 = 1 << 62
    /// A key after every image's: "no image after" where a key bounds a range.
    public static let end = Int64.max
    /// A respaced window leaves at least this distance between neighbours (16 halvings of room).
    static let minimumSpacing: Int64 = 1 << 16

    /// `count` increasing keys after `lower` (exclusive, 0 at the start) with `spacing` between.
    public static func fresh(count: Int, after lower: Int64 = 0) -> [Int64] {
        (0..<count).map { lower + spacing * Int64($0 + 1) }
    }

    /// `count` increasing keys spread evenly strictly between `lower` and `upper` (`nil`: the
    /// end of the feed, where keys are `spacing` apart), or `nil` when the gap is too narrow.
    public static func spread(count: Int, after lower: Int64, before upper: Int64?) -> [Int64]? {
        if count == 0 { return [] }
        let slots = Int64(count) + 1
        let step: Int64
        if let upper {
            step = (upper - lower) / slots
        } else {
            guard lower <= maximum - slots * spacing else { return nil }
            step = spacing
        }
        guard step >= 1 else { return nil }
        return (1...Int64(count)).map { lower + step * $0 }
    }
}

/// Keys handed out for a gap, and whether neighbours had to be renumbered to make room.
public struct KeyAllocation: Hashable, Sendable {
    /// The new keys, increasing, all strictly between the gap's neighbours after renumbering.
    public var keys: [Int64]
    /// The smallest key that any existing image had before it was renumbered (`nil` when none
    /// was): the layout cache must be invalidated from there.
    public var renumberedFrom: Int64?
    /// The images renumbered, in order: each one's key before and after (what a view's
    /// membership replays, DESIGN section 20); empty when none was.
    public var renumberedKeys: [Int64] = []
    public var renumberedTo: [Int64] = []
}

extension ImageRows {
    /// Returns `count` free keys strictly between `lower` and `upper` (the keys of the images
    /// around the gap; `nil` for the start or the end of the feed), renumbering a window of
    /// neighbours when the gap is too narrow. Amortised O(count) rows written.
    /// - Throws: ``StoreError`` `invalidRequest` when the feed's key space is exhausted.
    public func allocateKeys(feedID: Int64, count: Int, after lower: Int64?, before upper: Int64?) throws
        -> KeyAllocation
    {
        precondition(count >= 0)
        if let keys = OrderKeys.spread(count: count, after: lower ?? 0, before: upper) {
            return KeyAllocation(keys: keys, renumberedFrom: nil)
        }
        return try renumberWindow(feedID: feedID, count: count, after: lower, before: upper)
    }

    private func renumberWindow(feedID: Int64, count: Int, after lower: Int64?, before upper: Int64?) throws
        -> KeyAllocation
    {
        var width = 32
        while true {
            let left: [Int64] = try lower.map { try keys(feedID: feedID, atOrBelow: $0, limit: width) } ?? []
            let right: [Int64] = try upper.map { try keys(feedID: feedID, atOrAbove: $0, limit: width) } ?? []
            let leftBound = try left.last.flatMap { try key(feedID: feedID, before: $0) } ?? 0
            let rightBound = try right.last.flatMap { try key(feedID: feedID, after: $0) }
            let reachesStart = lower == nil || left.count < width
            let reachesEnd = upper == nil || right.count < width
            let total = Int64(left.count + right.count + count)
            let ceiling = rightBound ?? min(OrderKeys.maximum, leftBound &+ (total + 1) &* OrderKeys.spacing)
            let step = (ceiling - leftBound) / (total + 1)
            if step >= OrderKeys.minimumSpacing || (reachesStart && reachesEnd && step >= 1) {
                let window = left.reversed() + right
                var newKeys: [(from: Int64, to: Int64, sectionID: Int64?)] = []
                var allocated: [Int64] = []
                var slot: Int64 = 1
                for old in left.reversed() {
                    newKeys.append((old, leftBound + step * slot, nil))
                    slot += 1
                }
                for _ in 0..<count {
                    allocated.append(leftBound + step * slot)
                    slot += 1
                }
                for old in right {
                    newKeys.append((old, leftBound + step * slot, nil))
                    slot += 1
                }
                try rekeyImages(feedID: feedID, newKeys)
                let moved = window.min()
                return KeyAllocation(
                    keys: allocated, renumberedFrom: moved.map { min($0, allocated.first!) },
                    renumberedKeys: newKeys.map(\.from), renumberedTo: newKeys.map(\.to))
            }
            if reachesStart && reachesEnd {
                throw StoreError(
                    .invalidRequest,
                    "the feed has run out of order keys; re-import it with --reset-order to renumber it.")
            }
            width *= 4
        }
    }
}
