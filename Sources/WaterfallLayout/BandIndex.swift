/// A list of frames stacked top to bottom, searchable for those meeting a horizontal band.
///
/// Built from frames whose tops and bottoms increase along the list (one column of a
/// waterfall, its full-span images, its headers). Searches run on the running maximum of the
/// bottoms and the running minimum (from the end) of the tops, which are monotone even if
/// rounding made the frames themselves slightly out of order, and every candidate is then
/// checked with ``Frame/meetsBand(y:height:)``: the answer is exact in every case, and takes
/// O(log n + candidates) when the frames are stacked.
struct BandIndex: Sendable {
    /// What each entry stands for (an item index, a section index).
    private(set) var ids: [Int] = []
    /// `max(maxY)` over entries `0...i`.
    private var bottomsSoFar: [Double] = []
    /// `min(minY)` over entries `i...`; filled by ``finish()``.
    private var topsFromHere: [Double] = []
    /// The entries' tops, until ``finish()`` turns them into running minima.
    private var tops: [Double] = []

    /// Appends an entry; entries must be appended top to bottom for searches to be fast.
    mutating func append(id: Int, frame: Frame) {
        ids.append(id)
        bottomsSoFar.append(max(bottomsSoFar.last ?? -.infinity, frame.maxY))
        tops.append(frame.minY)
    }

    /// Computes the running minima; call once after the last ``append(id:frame:)``.
    mutating func finish() {
        topsFromHere = tops
        var lowest = Double.infinity
        for index in topsFromHere.indices.reversed() {
            lowest = min(lowest, topsFromHere[index])
            topsFromHere[index] = lowest
        }
        tops = []
    }

    /// The id of every entry whose frame (from `frame(id)`) meets `[y, y + height)`, in list
    /// order. O(log n + candidates).
    func indices(meeting y: Double, height: Double, frame: (Int) -> Frame) -> [Int] {
        let end = y + height
        let first = Self.partition(bottomsSoFar) { $0 > y }
        let last = Self.partition(topsFromHere) { $0 >= end }
        guard first < last else { return [] }
        return ids[first..<last].filter { frame($0).meetsBand(y: y, height: height) }
    }

    /// The first index whose value satisfies `isAfter`, for values on which it is monotone.
    private static func partition(_ values: [Double], _ isAfter: (Double) -> Bool) -> Int {
        var low = 0
        var high = values.count
        while low < high {
            let middle = low + (high - low) / 2
            if isAfter(values[middle]) {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }
}
