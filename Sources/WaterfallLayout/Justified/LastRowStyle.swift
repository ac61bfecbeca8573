/// How a justified layout places the last row of a section, or the row a full-span banner
/// interrupts (DESIGN section 8, `lastRow`), when it is not full enough to fill the width.
///
/// Such a row is `grid(min(prevH ?? rowHeight, rowHeight))` tall and its images keep their
/// aspect ratios; when they and their gaps would still be wider than the content, the row is
/// justified instead whatever the style. The raw values are the spellings used in JSON and on
/// the command line.
public enum LastRowStyle: String, Hashable, Codable, Sendable, CaseIterable {
    /// Packed against the left content edge (`sectionInset.left`), `columnSpacing` apart.
    case left
    /// Centred in the content width: the row starts `grid((W - rowWidth) / 2)` after
    /// `sectionInset.left`, where `rowWidth` counts the images and their gaps.
    case center
    /// Stretched to the full content width like every other row (DESIGN's `close(row)`).
    case justify
}
