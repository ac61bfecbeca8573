/// The bulk path's forms of ``JustifiedRules/decide(_:_:_:)`` and ``JustifiedRules/close(_:_:_:_:_:_:_:)``:
/// the same decisions and the same `Double`s, bit for bit, with fewer divisions.
///
/// A division is the costliest operation of a row (it occupies the divider for about 5
/// cycles; the streaming path makes one an image for its width, one a row for its height and,
/// for most rows, two more in `isWorse`). Here:
/// - `isWorse`'s ideal sums `(W - n*s)/T` come from a table computed once per call with the
///   same expression, so the same bits;
/// - a row's divisions go two at a time into one SSE2 `divpd` (each lane is the same IEEE
///   division as the scalar one): its height with its first width, then its widths in pairs.
extension JustifiedRules {
    /// Entries of the ideal-sum table: rows of up to 63 pending images use it, longer ones
    /// divide as ``isWorse(_:_:_:)`` does.
    static let idealSumCount = 64

    /// Writes `(W - n*s)/T` for `n` in `0..<idealSumCount` to `ideals`, as ``isWorse(_:_:_:)``
    /// computes them.
    func writeIdealSums(_ ideals: UnsafeMutablePointer<Double>) {
        for count in 0..<Self.idealSumCount {
            ideals[count] = (contentWidth - Double(count) * spacing) / rowHeight
        }
    }

    /// ``decide(_:_:_:)`` with `isWorse`'s ideal sums read from `ideals` (see
    /// ``writeIdealSums(_:)``).
    @inline(__always)
    func decide(
        _ pendingCount: Int, _ pendingSum: Double, _ candidate: Double, _ ideals: UnsafePointer<Double>
    ) -> Decision {
        if pendingCount < pendingLimit {
            if candidate < minimumAspectRatio { return .gather }
            if !(candidate > maximumAspectRatio && pendingCount > 0
                && isWorse(candidate, pendingSum, pendingCount, ideals))
            {
                return .closeCandidate
            }
        }
        return .closePending
    }

    /// ``isWorse(_:_:_:)`` with the ideal sums read from `ideals`; `pendingCount >= 1`.
    @inline(__always)
    func isWorse(_ candidate: Double, _ pendingSum: Double, _ pendingCount: Int, _ ideals: UnsafePointer<Double>)
        -> Bool
    {
        guard pendingCount < Self.idealSumCount else { return isWorse(candidate, pendingSum, pendingCount) }
        return abs(candidate - ideals[pendingCount]) > abs(pendingSum - ideals[pendingCount &- 1])
    }

    /// ``close(_:_:_:_:_:_:_:)`` with the row's divisions made two at a time.
    @inline(__always)
    func closeInPairs<Grid: JustifiedGrid>(
        _ aspects: UnsafePointer<Double>, _ count: Int, _ sum: Double, _ rowTop: inout Double,
        _ previous: inout Double?, _ frames: UnsafeMutablePointer<Frame>, _ grid: Grid
    ) {
        let height = justifyInPairs(aspects, count, sum, rowTop, frames, grid)
        rowTop += height + caption + rowSpacing
        previous = height
    }

    /// ``justify(_:_:_:_:_:_:)`` with the divisions two at a time: `available / sum` with the
    /// first width's, then the other widths in pairs. When the pairs overrun into the row's
    /// last image (an odd number of widths), that lane's frame is overwritten by the last
    /// frame, which starts where the lane before it ended. `count >= 1`.
    @inline(__always)
    func justifyInPairs<Grid: JustifiedGrid>(
        _ aspects: UnsafePointer<Double>, _ count: Int, _ sum: Double, _ top: Double,
        _ frames: UnsafeMutablePointer<Frame>, _ grid: Grid
    ) -> Double {
        let available = contentWidth - Double(count &- 1) * spacing
        let sums = SIMD2(repeating: sum)
        let availables = SIMD2(repeating: available)
        // Lane 0: DESIGN's H, clamped to [0.5T, 2T]; lane 1: the first width (unused for a row
        // of one), which the infinite bounds leave as it is.
        let first = grid.grid(
            PairMath.clamped(
                SIMD2(available, available * aspects[0]) / sums, SIMD2(lowestRowHeight, -.infinity),
                SIMD2(highestRowHeight, .infinity)))
        let height = first[0]
        let frameHeight = height + caption
        let last = count &- 1
        var x = left
        if last > 0 {
            let width = first[1]
            frames[0] = Frame(x: x, y: top, width: width, height: frameHeight)
            x += width + spacing
        }
        var index = 1
        var secondLaneX = x
        while index < last {
            let widths = grid.grid((availables * SIMD2(aspects[index], aspects[index &+ 1])) / sums)
            let width = widths[0]
            frames[index] = Frame(x: x, y: top, width: width, height: frameHeight)
            x += width + spacing
            secondLaneX = x
            let next = widths[1]
            frames[index &+ 1] = Frame(x: x, y: top, width: next, height: frameHeight)
            x += next + spacing
            index &+= 2
        }
        let lastX = index == last ? x : secondLaneX
        frames[last] = Frame(x: lastX, y: top, width: rowEnd - lastX, height: frameHeight)
        return height
    }
}
