/// DESIGN section 8's rules and the constants they use, shared by every path of
/// ``JustifiedLayout`` (streaming, bulk, resumed): each path calls these same inlined
/// functions, so the decisions and every `Double` operation are the same, in the same order.
///
/// A value type of constants, so that the bulk loop can keep a copy in registers.
struct JustifiedRules: Sendable {
    /// DESIGN's `W`, `configuration.contentWidth`.
    let contentWidth: Double
    /// `sectionInset.left`: where every row starts.
    let left: Double
    /// `sectionInset.left + W`: where every justified row ends.
    let rowEnd: Double
    /// DESIGN's `T`.
    let rowHeight: Double
    /// DESIGN's `minAR`.
    let minimumAspectRatio: Double
    /// DESIGN's `maxAR`.
    let maximumAspectRatio: Double
    /// `0.5 * T`, the least height of a justified row before the grid.
    let lowestRowHeight: Double
    /// `2 * T`, the greatest height of a justified row.
    let highestRowHeight: Double
    /// DESIGN's `s`.
    let spacing: Double
    /// DESIGN's `r`.
    let rowSpacing: Double
    /// `captionHeight`.
    let caption: Double
    /// `Double(configuration.scale)`.
    let scale: Double
    /// The smallest pending count `n` with `W - n * s <= 0` (`Int.max` when none): a pending
    /// row that long closes before it takes another image.
    let pendingLimit: Int
    /// `configuration.lastRow`.
    let lastRowStyle: LastRowStyle

    /// The constants of a validated configuration. O(1).
    init(_ configuration: JustifiedConfiguration) {
        contentWidth = configuration.contentWidth
        left = configuration.sectionInset.left
        rowEnd = left + contentWidth
        rowHeight = configuration.rowHeight
        minimumAspectRatio = configuration.minimumAspectRatio
        maximumAspectRatio = configuration.maximumAspectRatio
        lowestRowHeight = 0.5 * configuration.rowHeight
        highestRowHeight = 2 * configuration.rowHeight
        spacing = configuration.columnSpacing
        rowSpacing = configuration.rowSpacing
        caption = configuration.captionHeight
        scale = Double(configuration.scale)
        pendingLimit = Self.pendingLimit(contentWidth: contentWidth, spacing: spacing)
        lastRowStyle = configuration.lastRow
    }

    /// The smallest `n >= 1` with `contentWidth - Double(n) * spacing <= 0`, found with the
    /// same arithmetic as the test it replaces (the expression only decreases as `n` grows).
    static func pendingLimit(contentWidth: Double, spacing: Double) -> Int {
        guard spacing > 0, contentWidth / spacing < 1e15 else { return .max }
        var limit = max(1, Int(contentWidth / spacing))
        while limit > 1, contentWidth - Double(limit - 1) * spacing <= 0 { limit -= 1 }
        while contentWidth - Double(limit) * spacing > 0 { limit += 1 }
        return limit
    }

    /// The literal grid of the configuration's scale, dividing as DESIGN writes it.
    var exactGrid: ExactGrid {
        ExactGrid(scale: scale)
    }

    /// What DESIGN does with an ordinary image, given the pending row.
    enum Decision {
        /// `A < minAR`: the image joins the pending row.
        case gather
        /// Within tolerance, a panorama on an empty row, or too full but closer to the ideal
        /// with the image: `close(candidate)`.
        case closeCandidate
        /// Too full and worse with the image (or the row's gaps leave no room for it):
        /// `close(pending)`, then the image closes a row alone if `a >= minAR`, else it starts
        /// the next row.
        case closePending
    }

    /// DESIGN's decision for an ordinary image, with `pendingCount` images pending whose
    /// `sum(a)` is `pendingSum`, and `candidate = pendingSum + a`.
    @inline(__always)
    func decide(_ pendingCount: Int, _ pendingSum: Double, _ candidate: Double) -> Decision {
        if pendingCount < pendingLimit {
            if candidate < minimumAspectRatio { return .gather }
            if !(candidate > maximumAspectRatio && pendingCount > 0 && isWorse(candidate, pendingSum, pendingCount)) {
                return .closeCandidate
            }
        }
        return .closePending
    }

    /// DESIGN's "worse with it": `|A - (W - (n_c-1)*s)/T| > |A_p - (W - (n_p-1)*s)/T|`, with
    /// `n_c = n_p + 1`.
    func isWorse(_ candidate: Double, _ pendingSum: Double, _ pendingCount: Int) -> Bool {
        let candidateIdeal = (contentWidth - Double(pendingCount) * spacing) / rowHeight
        let pendingIdeal = (contentWidth - Double(pendingCount - 1) * spacing) / rowHeight
        return abs(candidate - candidateIdeal) > abs(pendingSum - pendingIdeal)
    }

    /// DESIGN's `close(row)` followed by `rowTop += H + captionHeight + r` and `prevH = H`.
    /// `aspects` holds the row's `a(image)`, `sum` their sum (added left to right from 0).
    @inline(__always)
    func close<Grid: JustifiedGrid>(
        _ aspects: UnsafePointer<Double>, _ count: Int, _ sum: Double, _ rowTop: inout Double,
        _ previous: inout Double?, _ frames: UnsafeMutablePointer<Frame>, _ grid: Grid
    ) {
        let height = justify(aspects, count, sum, rowTop, frames, grid)
        rowTop += height + caption + rowSpacing
        previous = height
    }

    /// DESIGN's `close(row)`: writes the row's frames at `top` and returns `H`.
    @inline(__always)
    func justify<Grid: JustifiedGrid>(
        _ aspects: UnsafePointer<Double>, _ count: Int, _ sum: Double, _ top: Double,
        _ frames: UnsafeMutablePointer<Frame>, _ grid: Grid
    ) -> Double {
        let available = contentWidth - Double(count &- 1) * spacing
        let height = grid.grid(min(max(available / sum, lowestRowHeight), highestRowHeight))
        let frameHeight = height + caption
        var x = left
        var index = 0
        while index < count &- 1 {
            let width = grid.grid((available * aspects[index]) / sum)
            frames[index] = Frame(x: x, y: top, width: width, height: frameHeight)
            x += width + spacing
            index &+= 1
        }
        frames[index] = Frame(x: x, y: top, width: rowEnd - x, height: frameHeight)
        return height
    }

    /// DESIGN's `lastRowOf(row)` for a non-empty row, followed by
    /// `rowTop += H + captionHeight + r` (`prevH` is set only when the row is justified).
    func lastRow<Grid: JustifiedGrid>(
        _ aspects: UnsafePointer<Double>, _ count: Int, _ sum: Double, _ rowTop: inout Double,
        _ previous: inout Double?, _ frames: UnsafeMutablePointer<Frame>, _ grid: Grid
    ) {
        guard lastRowStyle != .justify else {
            close(aspects, count, sum, &rowTop, &previous, frames, grid)
            return
        }
        let height = grid.grid(min(previous ?? rowHeight, rowHeight))
        let frameHeight = height + caption
        var total = 0.0
        for index in 0..<count {
            let width = grid.grid(aspects[index] * height)
            frames[index] = Frame(x: 0, y: rowTop, width: width, height: frameHeight)
            total += width
        }
        total += Double(count - 1) * spacing
        guard total <= contentWidth else {
            close(aspects, count, sum, &rowTop, &previous, frames, grid)
            return
        }
        var x = lastRowStyle == .center ? left + grid.grid((contentWidth - total) / 2) : left
        for index in 0..<count {
            frames[index].x = x
            x += frames[index].width + spacing
        }
        rowTop += height + caption + rowSpacing
    }

    /// A full-span image at `rowTop`: `(sectionInset.left, rowTop, W, grid(W * h / w) +
    /// captionHeight)`; then `rowTop += height + r` and `prevH = nil`.
    @inline(__always)
    func banner(_ item: LayoutItem, _ rowTop: inout Double, _ previous: inout Double?) -> Frame {
        let frame = Frame(
            x: left, y: rowTop, width: contentWidth,
            height: exactGrid.grid((contentWidth * Double(item.height)) / Double(item.width)) + caption)
        rowTop += frame.height + rowSpacing
        previous = nil
        return frame
    }
}
