/// How a waterfall layout chooses the column of the next ordinary (not full-span) image.
///
/// The raw values are the spellings used in JSON and on the command line.
public enum PlacementOrder: String, Hashable, Codable, Sendable, CaseIterable {
    /// The column whose bottom is highest on screen (smallest `y`); the lowest index wins ties.
    case shortest
    /// Round robin from the left: the `k`-th ordinary image of a section goes to column `k % columns`.
    case leftToRight = "left-to-right"
    /// Round robin from the right: the `k`-th ordinary image goes to column `columns - 1 - k % columns`.
    case rightToLeft = "right-to-left"
}
